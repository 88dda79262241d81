package llm

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestLedgerStart_ARequestIsRecordedBeforeItsAnswer: with LedgerStart set,
// a request is recorded as it leaves, while the endpoint still works on it
// (so a process that dies then leaves it in the ledger), and its end goes
// to the function LedgerStart returned, not to Ledger; a request whose
// connection is refused never left and is recorded once, by Ledger.
func TestLedgerStart_ARequestIsRecordedBeforeItsAnswer(t *testing.T) {
	var mu sync.Mutex
	var started, finished, ledgered []Call
	seenWhileWorking := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seenWhileWorking <- len(started)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`, goodJSON)
	}))
	defer srv.Close()
	cfg := Config{Primary: Endpoint{Base: srv.URL, Model: testModel}, Backoff: time.Millisecond, Timeout: 10 * time.Second, Retries: -1,
		Ledger: func(c Call) { mu.Lock(); ledgered = append(ledgered, c); mu.Unlock() },
		LedgerStart: func(c Call) func(Call) {
			mu.Lock()
			started = append(started, c)
			mu.Unlock()
			return func(c Call) { mu.Lock(); finished = append(finished, c); mu.Unlock() }
		}}
	if err := New(cfg).CompleteJSON(context.Background(), extractReq(), &plan{}); err != nil {
		t.Fatal(err)
	}
	if n := <-seenWhileWorking; n != 1 {
		t.Errorf("while the endpoint worked on it, %d requests were in the ledger, want 1", n)
	}
	if len(started) != 1 || started[0].Outcome != "in_flight" || started[0].BytesOut == 0 || started[0].Purpose != "extract" {
		t.Errorf("started: %+v", started)
	}
	if len(finished) != 1 || finished[0].Outcome != "ok" || finished[0].Status != 200 || len(ledgered) != 0 {
		t.Errorf("finished %+v, ledgered %+v; want one ok end, through the start's function", finished, ledgered)
	}
	srv.Close() // now nothing listens: the connection is refused
	started, finished, ledgered = nil, nil, nil
	_ = New(cfg).CompleteJSON(context.Background(), extractReq(), &plan{})
	if len(started) != 0 || len(finished) != 0 || len(ledgered) != 1 || ledgered[0].BytesOut != 0 {
		t.Errorf("a refused connection: started %d, finished %d, ledgered %+v; want one row with 0 bytes sent", len(started), len(finished), ledgered)
	}
}
