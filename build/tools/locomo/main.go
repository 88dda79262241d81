// Command locomo measures recall on the LoCoMo benchmark (Maharana et al.,
// ACL 2024; CC BY-NC 4.0: evaluation only, never shipped): every turn of
// the ten conversations is stored as a memory of its conversation's owner,
// each question of categories 1-4 is searched through the real recall
// pipeline, and recall@k is the share of the question's evidence turns in
// the top k. It prints one markdown table row per run.
//
//	go run ./build/tools/locomo -data ../shared/data/locomo/locomo10.json -embed glove [-glove DIR] [-reader hybrid]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
)

type sample struct {
	ID           string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
}

type turn struct {
	Speaker  string `json:"speaker"`
	DiaID    string `json:"dia_id"`
	Text     string `json:"text"`
	Caption  string `json:"blip_caption"`
	ImageURL any    `json:"img_url"`
}

func main() {
	data := flag.String("data", "../shared/data/locomo/locomo10.json", "locomo10.json")
	embedder := flag.String("embed", "glove", "glove | hash")
	gloveDir := flag.String("glove", "", "a genglove output dir (default: the built-in model)")
	reader := flag.String("reader", "hybrid", "hybrid | vector | keyword")
	minScore := flag.Float64("min-score", 0, "vector floor (0: none)")
	ortLib := flag.String("ort", os.Getenv("HYATLAS_ORT_LIB"), "ONNX Runtime library")
	label := flag.String("label", "", "row label")
	calibrate := flag.Bool("calibrate", false, "print the cosine distributions that set the vector floor")
	mmr := flag.Float64("mmr", 0.75, "MMR lambda (1: off)")
	recency := flag.Bool("recency", true, "recency boost")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the searches")
	flag.Parse()

	ctx := context.Background()
	emb, err := openEmbedder(*embedder, *gloveDir, *ortLib)
	if err != nil {
		log.Fatal(err)
	}
	var samples []sample
	b, err := os.ReadFile(*data)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, &samples); err != nil {
		log.Fatal(err)
	}
	dir, _ := os.MkdirTemp("", "locomo-")
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	info := emb.Info()
	ix := vector.New(info.Dims)
	svc, err := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: *minScore,
		Search: memory.SearchConfig{Recency: *recency, UsageLearning: true, MMRLambda: *mmr}},
		memory.Deps{Store: st, Index: ix, Embedder: emb})
	if err != nil {
		log.Fatal(err)
	}

	idOf := map[string]string{} // sample/dia_id -> memory id
	turns, embedTime := 0, time.Duration(0)
	for _, s := range samples {
		rows, texts, dias := loadTurns(s)
		start := time.Now()
		vecs, err := emb.Embed(ctx, texts, memory.PurposeDocument)
		if err != nil {
			log.Fatal(err)
		}
		embedTime += time.Since(start)
		var batch []memory.NewRow
		for i := range rows {
			rows[i].ID = fmt.Sprintf("m%s-%05d", s.ID, i)
			idOf[s.ID+"/"+dias[i]] = rows[i].ID
			batch = append(batch, memory.NewRow{Memory: rows[i], Vector: memory.Vector{Embedder: info.ID, Values: vecs[i]}})
			if err := ix.Upsert(memory.IndexEntry{ID: rows[i].ID, Layer: rows[i].Layer, Owner: rows[i].Owner, Values: vecs[i]}); err != nil {
				log.Fatal(err)
			}
		}
		if err := st.Insert(ctx, batch...); err != nil {
			log.Fatal(err)
		}
		turns += len(rows)
	}

	if *calibrate {
		calibrateFloor(ctx, emb, ix, samples, idOf)
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	ks := []int{1, 5, 10, 20}
	sum := map[int]float64{}
	byCat := map[int][2]float64{} // category -> (recall@5 sum, n)
	n := 0
	var searchTime time.Duration
	for _, s := range samples {
		for _, q := range s.QA {
			if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
				continue
			}
			start := time.Now()
			res, err := svc.Search(ctx, memory.SearchInput{Query: q.Question, Limit: 20, UserIDs: []string{s.ID},
				Reader: *reader, MinScore: minScore})
			if err != nil {
				log.Fatal(err)
			}
			searchTime += time.Since(start)
			rank := map[string]int{}
			for i, h := range res.Hits {
				rank[h.Memory.ID] = i + 1
			}
			n++
			for _, k := range ks {
				found := 0
				for _, ev := range q.Evidence {
					if r, ok := rank[idOf[s.ID+"/"+strings.TrimSpace(ev)]]; ok && r <= k {
						found++
					}
				}
				rec := float64(found) / float64(len(q.Evidence))
				sum[k] += rec
				if k == 5 {
					c := byCat[q.Category]
					byCat[q.Category] = [2]float64{c[0] + rec, c[1] + 1}
				}
			}
		}
	}
	name := *label
	if name == "" {
		name = fmt.Sprintf("%s %s", info.ID, *reader)
	}
	cat := func(c int) float64 { return byCat[c][0] / byCat[c][1] }
	fmt.Printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f | %.2f |\n", name,
		sum[1]/float64(n), sum[5]/float64(n), sum[10]/float64(n), sum[20]/float64(n),
		cat(1), cat(2), cat(3), cat(4), float64(turns)/embedTime.Seconds(),
		float64(searchTime.Microseconds())/1000/float64(n))
	fmt.Fprintf(os.Stderr, "%d questions, %d turns\n", n, turns)
}

// loadTurns turns a conversation into raw rows, one per turn, dated by
// its session.
func loadTurns(s sample) ([]memory.Memory, []string, []string) {
	var keys []string
	for k := range s.Conversation {
		if strings.HasPrefix(k, "session_") && !strings.HasSuffix(k, "_date_time") {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return sessionNum(keys[i]) < sessionNum(keys[j]) })
	var rows []memory.Memory
	var texts, dias []string
	for _, k := range keys {
		var ts []turn
		if json.Unmarshal(s.Conversation[k], &ts) != nil {
			continue
		}
		var when string
		_ = json.Unmarshal(s.Conversation[k+"_date_time"], &when)
		at, err := time.Parse("3:04 pm on 2 January, 2006", when)
		if err != nil {
			at = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		for i, t := range ts {
			text := t.Speaker + ": " + t.Text
			if t.Caption != "" {
				text += " [shares an image: " + t.Caption + "]"
			}
			created := at.Add(time.Duration(i) * time.Second)
			rows = append(rows, memory.Memory{Layer: memory.LayerRaw, Content: text,
				Owner: memory.Owner{UserID: s.ID}, SessionID: k, CreatedAt: created, UpdatedAt: created,
				EventAt: created, Strength: memory.DefaultStrength, Extraction: memory.ExtractSkipped})
			texts = append(texts, text)
			dias = append(dias, t.DiaID)
		}
	}
	return rows, texts, dias
}

func sessionNum(k string) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(k, "session_"), "%d", &n)
	return n
}

func openEmbedder(kind, dir, lib string) (memory.Embedder, error) {
	if kind == "hash" {
		return embed.NewHash(embed.DefaultHashDims)
	}
	if _, err := embed.InitORT(embed.ORTOptions{Lib: lib, CacheDir: os.TempDir()}); err != nil {
		return nil, err
	}
	if dir != "" {
		return embed.LoadGloVeDir(dir, embed.SessionOptions{IntraOp: 0})
	}
	return embed.NewGloVe(embed.SessionOptions{IntraOp: 0})
}

// offTopic are questions no LoCoMo conversation answers.
var offTopic = []string{
	"How do I configure a Postgres replication slot?",
	"What is the time complexity of quicksort?",
	"Which Kubernetes version deprecated the beta ingress API?",
	"How much torque does the M6 cylinder head bolt need?",
	"What is the capital of Burkina Faso?",
	"How do I rebase a git branch onto main?",
	"What does the TLS handshake do before key exchange?",
	"Which enzyme breaks down lactose in the small intestine?",
	"How many satellites does Jupiter have?",
	"What is the boiling point of ethanol at sea level?",
	"Explain the difference between TCP and UDP.",
	"What interest rate did the central bank set last quarter?",
}

// calibrateFloor prints percentiles of the cosine between each question
// and its evidence turns (what the floor must keep), and of the best
// cosine an off-topic question reaches in each conversation (what it
// should drop).
func calibrateFloor(ctx context.Context, emb memory.Embedder, ix *vector.Index, samples []sample, idOf map[string]string) {
	var on, off []float64
	for _, s := range samples {
		for _, q := range s.QA {
			if q.Category < 1 || q.Category > 4 {
				continue
			}
			v, err := emb.Embed(ctx, []string{q.Question}, memory.PurposeQuery)
			if err != nil {
				log.Fatal(err)
			}
			for _, ev := range q.Evidence {
				if w, ok := ix.Vector(idOf[s.ID+"/"+strings.TrimSpace(ev)]); ok {
					on = append(on, dot(v[0], w))
				}
			}
		}
		for _, q := range offTopic {
			v, err := emb.Embed(ctx, []string{q}, memory.PurposeQuery)
			if err != nil {
				log.Fatal(err)
			}
			hits, err := ix.Search(ctx, v[0], 1, memory.VectorFilter{Scope: memory.Scope{UserIDs: []string{s.ID}}})
			if err != nil || len(hits) == 0 {
				log.Fatal(err)
			}
			off = append(off, hits[0].Score)
		}
	}
	// Margins: the best cosine minus the mean of the top 40, per query.
	margin := func(q string, user string) float64 {
		v, err := emb.Embed(ctx, []string{q}, memory.PurposeQuery)
		if err != nil {
			log.Fatal(err)
		}
		hits, err := ix.Search(ctx, v[0], 40, memory.VectorFilter{Scope: memory.Scope{UserIDs: []string{user}}})
		if err != nil || len(hits) == 0 {
			log.Fatal(err)
		}
		sum := 0.0
		for _, h := range hits {
			sum += h.Score
		}
		return hits[0].Score - sum/float64(len(hits))
	}
	var mOn, mOff []float64
	for _, s := range samples {
		for i, q := range s.QA {
			if q.Category >= 1 && q.Category <= 4 && i%3 == 0 {
				mOn = append(mOn, margin(q.Question, s.ID))
			}
		}
		for _, q := range offTopic {
			mOff = append(mOff, margin(q, s.ID))
		}
	}
	sort.Float64s(mOn)
	sort.Float64s(mOff)
	pc := func(v []float64, p float64) float64 { return v[int(p/100*float64(len(v)-1))] }
	fmt.Printf("margin on-topic (n=%d): p10 %.3f p25 %.3f p50 %.3f p75 %.3f\n", len(mOn), pc(mOn, 10), pc(mOn, 25), pc(mOn, 50), pc(mOn, 75))
	fmt.Printf("margin off-topic (n=%d): p50 %.3f p75 %.3f p90 %.3f max %.3f\n", len(mOff), pc(mOff, 50), pc(mOff, 75), pc(mOff, 90), mOff[len(mOff)-1])
	sort.Float64s(on)
	sort.Float64s(off)
	pct := func(v []float64, p float64) float64 { return v[int(p/100*float64(len(v)-1))] }
	fmt.Printf("evidence cosines (n=%d): p10 %.3f p25 %.3f p50 %.3f p75 %.3f\n", len(on), pct(on, 10), pct(on, 25), pct(on, 50), pct(on, 75))
	fmt.Printf("best off-topic cosine (n=%d): p50 %.3f p75 %.3f p90 %.3f max %.3f\n", len(off), pct(off, 50), pct(off, 75), pct(off, 90), off[len(off)-1])
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
