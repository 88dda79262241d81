package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNormDiaID(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"D1:3", "D1:3", true},
		{" D12:7 ", "D12:7", true},
		{"D30:05", "D30:5", true},
		{"D:11:26", "D11:26", true},
		{"D", "", false},
		{"D1", "", false},
		{"X1:2", "", false},
		{"Da:b", "", false},
	}
	for _, tt := range tests {
		got, ok := normDiaID(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("normDiaID(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSplitEvidence(t *testing.T) {
	got := splitEvidence([]string{"D1:3; D1:4", "D9:1 D4:4", "D2:1", "D", ""})
	want := []string{"D1:3", "D1:4", "D9:1", "D4:4", "D2:1", "D"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("splitEvidence = %q, want %q", got, want)
	}
}

// tinyLoCoMo is a hand-made file in LoCoMo's shape (not LoCoMo data).
func tinyLoCoMo(t *testing.T) string {
	t.Helper()
	type tn struct {
		Speaker string `json:"speaker"`
		DiaID   string `json:"dia_id"`
		Text    string `json:"text"`
		Caption string `json:"blip_caption,omitempty"`
	}
	type qa struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	}
	samples := []map[string]any{{
		"sample_id": "conv-a",
		"conversation": map[string]any{
			"speaker_a": "Ann", "speaker_b": "Bob",
			// Session 2 is listed first: order comes from the number.
			"session_2_date_time": "9:05 am on 3 March, 2023",
			"session_2": []tn{
				{"Bob", "D2:1", "My sister adopted a kitten named Pixel.", ""},
				{"Ann", "D2:2", "Cute! I went hiking in the Alps last weekend.", "a mountain trail"},
			},
			"session_1_date_time": "1:56 pm on 8 May, 2022",
			"session_1": []tn{
				{"Ann", "D1:1", "I started learning the cello in January.", ""},
				{"Bob", "D1:2", "I work as a nurse at the city hospital.", ""},
				{"Ann", "D1:3", "My favourite composer is Dvorak.", ""},
			},
			"session_10_date_time": "2:00 pm on 1 June, 2023",
			"session_10":           []tn{},
		},
		"qa": []qa{
			{"What instrument is Ann learning?", []string{"D1:1"}, 4},
			{"Where does Bob work?", []string{"D1:2"}, 4},
			{"What is the name of the kitten of Bob's sister?", []string{"D2:1"}, 1},
			{"Where did Ann go hiking?", []string{"D2:2; D1:3"}, 2},
			{"What did Bob say about cars?", []string{"D1:2"}, 5},      // adversarial: left out
			{"Unanswerable", []string{"D", "D7:1"}, 3},                 // no known evidence: skipped
			{"Who is Ann's favourite composer?", []string{"D1:03"}, 3}, // leading zero
		},
	}}
	b, err := json.Marshal(samples)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadLoCoMo_OrdersDatesAndFilters(t *testing.T) {
	convs, sum, err := loadLoCoMo(tinyLoCoMo(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || len(sum) != 64 {
		t.Fatalf("got %d conversations, sha %q", len(convs), sum)
	}
	c := convs[0]
	var ids []string
	for _, tr := range c.Turns {
		ids = append(ids, tr.DiaID)
	}
	if want := []string{"D1:1", "D1:2", "D1:3", "D2:1", "D2:2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("turn order %q, want %q", ids, want)
	}
	if got, want := c.Turns[2].At, time.Date(2022, 5, 8, 13, 56, 2, 0, time.UTC); !got.Equal(want) {
		t.Errorf("turn D1:3 at %v, want %v (session time + 2 s)", got, want)
	}
	if c.Turns[3].Session != "session_2" || c.Turns[3].Text != "Bob: My sister adopted a kitten named Pixel." {
		t.Errorf("turn D2:1 = %+v", c.Turns[3])
	}
	if got := c.Turns[4].Text; got != "Ann: Cute! I went hiking in the Alps last weekend. [shares an image: a mountain trail]" {
		t.Errorf("captioned turn text %q", got)
	}
	if len(c.Questions) != 5 || c.Skipped != 1 || c.Unknown != 2 {
		t.Errorf("%d questions, %d skipped, %d unknown ids; want 5, 1, 2", len(c.Questions), c.Skipped, c.Unknown)
	}
	if ev := c.Questions[3].Evidence; !reflect.DeepEqual(ev, []string{"D2:2", "D1:3"}) {
		t.Errorf("split evidence %q", ev)
	}
	if ev := c.Questions[4].Evidence; !reflect.DeepEqual(ev, []string{"D1:3"}) {
		t.Errorf("normalised evidence %q", ev)
	}
}

func TestLoadLoCoMo_Missing(t *testing.T) {
	_, _, err := loadLoCoMo(filepath.Join(t.TempDir(), "absent.json"), 0)
	if !errors.Is(err, ErrNoLoCoMo) {
		t.Fatalf("err = %v, want ErrNoLoCoMo", err)
	}
	var out bytes.Buffer
	if err := RunRecall(context.Background(), RecallOptions{Data: filepath.Join(t.TempDir(), "absent.json"), Out: &out}); err != nil {
		t.Fatalf("a missing file must skip, not fail: %v", err)
	}
	if !strings.Contains(out.String(), "skipped") || !strings.Contains(out.String(), "snap-research/LoCoMo") {
		t.Errorf("message does not say where to get the data: %q", out.String())
	}
}

func TestLoadLoCoMo_BadDate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	data := `[{"sample_id":"c","conversation":{"session_1_date_time":"yesterday","session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi"}]},"qa":[]}]`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadLoCoMo(path, 0); err == nil || !strings.Contains(err.Error(), "session_1_date_time") {
		t.Errorf("err = %v, want one naming the bad date", err)
	}
}

// TestEvaluateRecall_Tiny runs the whole bench, ingest to report, on the
// hand-made file with the hash embedder.
func TestEvaluateRecall_Tiny(t *testing.T) {
	rep, err := EvaluateRecall(context.Background(), RecallOptions{Data: tinyLoCoMo(t), Embed: "hash"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Turns != 5 || rep.Questions != 5 || rep.SkippedQuestions != 1 || len(rep.Readers) != len(recallReaders) {
		t.Fatalf("report %+v", rep)
	}
	checkReport(t, rep)
	kw := rep.Readers[0]
	// Exact words: the keyword leg must find "cello", "nurse" and "kitten".
	if kw.Name != "keyword" || kw.Overall.Turn[20] < 0.6 {
		t.Errorf("keyword turn R@20 = %v", kw.Overall.Turn[20])
	}
	var out bytes.Buffer
	printRecall(&out, rep)
	for _, want := range []string{"| keyword |", "| full-gated |", "turn R@5 by category", "hash-"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

// checkReport asserts what holds for any run: every reader answered every
// question without error, and every measure is a share.
func checkReport(t *testing.T, rep RecallReport) {
	t.Helper()
	for _, r := range rep.Readers {
		if r.Errors != 0 || r.Overall.Questions != rep.Questions {
			t.Errorf("%s: %d errors, %d of %d questions scored", r.Name, r.Errors, r.Overall.Questions, rep.Questions)
		}
		n := 0
		for _, cat := range categoryOrder {
			c := r.ByCategory[categoryNames[cat]]
			n += c.Questions
			checkShares(t, r.Name+" "+categoryNames[cat], c)
		}
		if n != rep.Questions {
			t.Errorf("%s: categories hold %d questions, want %d", r.Name, n, rep.Questions)
		}
		checkShares(t, r.Name, r.Overall)
		if r.Overall.Empty > r.Overall.Questions {
			t.Errorf("%s: %d empty results of %d", r.Name, r.Overall.Empty, r.Overall.Questions)
		}
	}
}

func checkShares(t *testing.T, name string, r Recall) {
	t.Helper()
	prev := [3]float64{}
	for _, k := range recallKs {
		for i, v := range []float64{r.Turn[k], r.All[k], r.Session[k]} {
			if v < 0 || v > 1 || v != v {
				t.Errorf("%s @%d: measure %d = %v, not in [0,1]", name, k, i, v)
			}
			if v < prev[i] {
				t.Errorf("%s @%d: measure %d fell from %v to %v as k grew", name, k, i, prev[i], v)
			}
			prev[i] = v
		}
		if r.All[k] > r.Turn[k]+1e-9 {
			t.Errorf("%s @%d: recall-all %v above turn recall %v", name, k, r.All[k], r.Turn[k])
		}
	}
}
