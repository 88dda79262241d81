package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"time"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
)

// GraphOptions configure `hyatlas bench graph`.
type GraphOptions struct {
	Relations int // relations learned; 0 means 50,000
	Queries   int // timed queries of each kind; 0 means 100
	JSON      bool
	Out       io.Writer
	Progress  io.Writer // nil: no progress
}

// GraphReport is the outcome of a graph run.
type GraphReport struct {
	Machine   string  `json:"machine"`
	Relations int     `json:"relations"`
	Records   int     `json:"records"` // belief records, with the ones contradictions ended
	Nodes     int     `json:"nodes"`
	LearnMs   Latency `json:"learn"`
	// AsOfRecorded and AsOfValid time graph-as-of (500 nodes) at random
	// moments of the history; Changes a one-day delta query.
	AsOfRecorded Latency `json:"as_of_recorded"`
	AsOfValid    Latency `json:"as_of_valid"`
	Changes      Latency `json:"changes_one_day"`
	// Visible is the mean number of records visible per as-of query.
	Visible float64 `json:"mean_visible_records"`
}

// graphHistory is the simulated time span of the seeded history.
const graphHistory = 2 * 365 * 24 * time.Hour

// RunGraph learns a history of relations for one person's graph (people,
// organisations and tools; "works at" and "lives in" are exclusive, so
// about a third of the relations end an earlier one), spread over two
// years, through the domain's rules and a real store, then times
// graph-as-of on both axes at random moments and one-day change queries.
func RunGraph(ctx context.Context, o GraphOptions) error {
	n, queries := o.Relations, o.Queries
	if n <= 0 {
		n = 50_000
	}
	if queries <= 0 {
		queries = 100
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	tmp, err := tempDir("hyatlas-bench-graph-")
	if err != nil {
		return fmt.Errorf("make temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	st, err := store.Open(ctx, tmp)
	if err != nil {
		return err
	}
	defer st.Close()
	emb, err := embed.NewHash(64)
	if err != nil {
		return err
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	svc, err := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: -1},
		memory.Deps{Store: st, Index: vector.New(64), Embedder: emb, GraphStore: st, Now: func() time.Time { return start.Add(graphHistory) }})
	if err != nil {
		return err
	}
	owner := memory.Owner{UserID: "bench"}
	fmt.Fprintf(progress, "graph: seeding %d facts ...\n", n)
	facts, err := seedFacts(ctx, st, owner, n, start)
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "graph: learning %d relations ...\n", n)
	r := rand.New(rand.NewSource(1))
	entities := max(n/10, 20)
	kinds := []struct {
		relation  string
		exclusive bool
		object    string
	}{{"works at", true, "org"}, {"lives in", true, "place"}, {"knows", false, "person"}, {"uses", false, "tool"}}
	var learn []float64
	step := graphHistory / time.Duration(n)
	for i := range n {
		k := kinds[r.Intn(len(kinds))]
		at := start.Add(time.Duration(i) * step)
		subject, object := r.Intn(entities), r.Intn(entities)
		if k.object == "person" && subject == object {
			object = (object + 1) % entities
		}
		in := memory.RelationInput{Owner: owner, From: fmt.Sprintf("person %d", subject), FromType: memory.EntityPerson,
			To: fmt.Sprintf("%s %d", k.object, object), Relation: k.relation, Exclusive: k.exclusive,
			Facts: []string{facts[i]}, At: at}
		if r.Intn(5) > 0 { // most facts say when they became true
			in.ValidFrom = at.Add(-time.Duration(r.Intn(60*24)) * time.Hour)
		}
		t0 := time.Now()
		if _, err := svc.LearnRelation(ctx, in); err != nil {
			return fmt.Errorf("learn relation %d: %w", i, err)
		}
		learn = append(learn, ms(time.Since(t0)))
	}
	rep := GraphReport{Machine: machine(), Relations: n, LearnMs: latencyOf(learn)}
	if rep.Nodes, _, err = st.GraphCounts(ctx, memory.Scope{}); err != nil {
		return err
	}
	all, err := st.GraphChanges(ctx, memory.Scope{}, start.Add(-time.Hour), start.Add(graphHistory+time.Hour))
	if err != nil {
		return err
	}
	rep.Records = len(all.Appeared)
	fmt.Fprintf(progress, "graph: timing %d queries of each kind ...\n", queries)
	var rec, val, chg []float64
	visible := 0
	for i := range queries + searchWarmup {
		at := start.Add(time.Duration(r.Int63n(int64(graphHistory))))
		var times [3]float64
		for j, axis := range []memory.GraphAxis{memory.AxisRecorded, memory.AxisValid} {
			t0 := time.Now()
			v, err := svc.GraphAsOf(ctx, memory.GraphQuery{At: at, Axis: axis})
			if err != nil {
				return err
			}
			times[j] = ms(time.Since(t0))
			visible += v.TotalEdges
		}
		t0 := time.Now()
		if _, err := svc.GraphChanges(ctx, "", "", at, at.Add(24*time.Hour)); err != nil {
			return err
		}
		times[2] = ms(time.Since(t0))
		if i >= searchWarmup {
			rec, val, chg = append(rec, times[0]), append(val, times[1]), append(chg, times[2])
		}
	}
	rep.AsOfRecorded, rep.AsOfValid, rep.Changes = latencyOf(rec), latencyOf(val), latencyOf(chg)
	rep.Visible = float64(visible) / float64(2*(queries+searchWarmup))
	if o.JSON {
		enc := json.NewEncoder(o.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printGraph(o.Out, rep)
	return nil
}

// seedFacts inserts n fact rows (no vectors: the graph bench never
// searches them) and returns their ids.
func seedFacts(ctx context.Context, st *store.Store, o memory.Owner, n int, at time.Time) ([]string, error) {
	ids := make([]string, 0, n)
	var batch []memory.NewRow
	for i := range n {
		id := fmt.Sprintf("mbenchfact%08d", i)
		ids = append(ids, id)
		batch = append(batch, memory.NewRow{Memory: memory.Memory{ID: id, Layer: memory.LayerFact, Owner: o,
			Content: fmt.Sprintf("fact %d", i), Strength: memory.DefaultStrength, CreatedAt: at, UpdatedAt: at,
			EventAt: at, Extraction: memory.ExtractSkipped}})
		if len(batch) == 1000 || i == n-1 {
			if err := st.Insert(ctx, batch...); err != nil {
				return nil, fmt.Errorf("seed facts: %w", err)
			}
			batch = batch[:0]
		}
	}
	return ids, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func printGraph(w io.Writer, r GraphReport) {
	fmt.Fprintf(w, "\nHyAtlas %s; %d relations learned over two years (%d belief records, %d nodes), one owner\n\n",
		r.Machine, r.Relations, r.Records, r.Nodes)
	fmt.Fprintln(w, "| measure | p50 | p95 | target |")
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| learn one relation (one transaction) | %.2f ms | %.2f ms | - |\n", r.LearnMs.P50, r.LearnMs.P95)
	fmt.Fprintf(w, "| graph-as-of, recorded axis, 500 nodes | %.2f ms | %.2f ms | p50 ≤ 50 ms |\n", r.AsOfRecorded.P50, r.AsOfRecorded.P95)
	fmt.Fprintf(w, "| graph-as-of, valid axis, 500 nodes | %.2f ms | %.2f ms | p50 ≤ 50 ms |\n", r.AsOfValid.P50, r.AsOfValid.P95)
	fmt.Fprintf(w, "| changes over one day | %.2f ms | %.2f ms | ≤ 10 ms |\n", r.Changes.P50, r.Changes.P95)
	fmt.Fprintf(w, "\nA view holds %.0f visible records on average before the 500-node cap.\n", r.Visible)
}
