package bench

import (
	"context"
	"path/filepath"
	"testing"
)

// TestRecall_LoCoMo runs the whole recall bench on the first two LoCoMo
// conversations when the data is at ../shared/data/locomo/locomo10.json
// from the repository root, with GloVe when ONNX Runtime can be found
// (HYATLAS_ORT_LIB, or build/cache/ort/lib) and the hash embedder
// otherwise; under the race detector only the first 25 questions of each.
// It asserts behaviour, never timing.
func TestRecall_LoCoMo(t *testing.T) {
	if testing.Short() {
		t.Skip("LoCoMo recall: skipped in -short mode")
	}
	root, ok := repoRoot()
	if !ok {
		t.Fatal("no go.mod above the working directory")
	}
	data := filepath.Join(root, "..", "shared", "data", "locomo", "locomo10.json")
	if _, _, err := loadLoCoMo(data, 1); err != nil {
		t.Skipf("LoCoMo recall skipped: %v (get it from %s)", err, LoCoMoSource)
	}
	embedder := "hash"
	if ortLib() != "" {
		embedder = "glove"
	}
	o := RecallOptions{Data: data, Embed: embedder, Conversations: 2}
	if raceEnabled {
		o.Questions = 25 // every reader still answers every question asked
	}
	rep, err := EvaluateRecall(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("embedder %s: %d turns, %d questions", rep.Embedder, rep.Turns, rep.Questions)
	wantQuestions := func(n int) bool { return n >= 150 }
	if o.Questions > 0 {
		wantQuestions = func(n int) bool { return n == 2*o.Questions }
	}
	if rep.Conversations != 2 || rep.Turns < 500 || !wantQuestions(rep.Questions) || len(rep.DataSHA256) != 64 {
		t.Fatalf("report %+v", rep)
	}
	if len(rep.Readers) != len(recallReaders) {
		t.Fatalf("%d readers, want %d", len(rep.Readers), len(recallReaders))
	}
	checkReport(t, rep)
	by := map[string]ReaderResult{}
	for _, r := range rep.Readers {
		by[r.Name] = r
		t.Logf("%-10s turn R@5 %.3f R@20 %.3f, empty %d", r.Name, r.Overall.Turn[5], r.Overall.Turn[20], r.Overall.Empty)
	}
	if got := by["keyword"].Overall.Turn[20]; got <= 0.3 {
		t.Errorf("keyword turn R@20 = %.3f, want > 0.3", got)
	}
	// Fusing both legs with no floor must not lose to either leg alone at 20.
	if full := by["full"].Overall.Turn[20]; full+0.05 < by["keyword"].Overall.Turn[20] || full+0.05 < by["vector"].Overall.Turn[20] {
		t.Errorf("full turn R@20 %.3f is below a single leg (keyword %.3f, vector %.3f)",
			full, by["keyword"].Overall.Turn[20], by["vector"].Overall.Turn[20])
	}
	if by["full"].Overall.Empty != 0 || by["vector"].Overall.Empty != 0 {
		t.Errorf("with no floor the vector leg always answers: empty results full %d, vector %d",
			by["full"].Overall.Empty, by["vector"].Overall.Empty)
	}
	if by["full"].MinScore != 0 || by["full-gated"].MinScore <= 0 {
		t.Errorf("floors: full %v, full-gated %v", by["full"].MinScore, by["full-gated"].MinScore)
	}
}
