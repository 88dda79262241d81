package memory_test

import (
	"context"
	"strings"
	"testing"

	"hyatlas/backend/memory"
)

func TestRetireRestore_RecordsHistory(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	old := r.add(t, "the office is in Porto", "u1")
	repl := r.add(t, "the office moved to Lisbon", "u1")

	got, err := r.svc.Retire(ctx, old.ID, memory.RetireInput{How: "replaced", Reason: "moved", By: repl.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Live() || got.RetiredHow != memory.RetiredReplaced || got.RetiredBy != repl.ID || got.RetireReason != "moved" {
		t.Errorf("retired row = %+v", got)
	}
	if _, err := r.svc.Retire(ctx, old.ID, memory.RetireInput{}); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("second retire: %v, want conflict", err)
	}
	d, err := r.svc.Get(ctx, repl.ID)
	if err != nil || len(d.Replaced) != 1 || d.Replaced[0].ID != old.ID {
		t.Errorf("replacement's detail lists %v (err %v), want the old row", d.Replaced, err)
	}
	d, _ = r.svc.Get(ctx, old.ID)
	if d.ReplacedBy == nil || d.ReplacedBy.ID != repl.ID {
		t.Errorf("old row's detail: replaced by %v", d.ReplacedBy)
	}

	if _, err := r.svc.Restore(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Restore(ctx, old.ID); memory.ErrorCode(err) != memory.ECONFLICT {
		t.Errorf("restoring a live row: %v, want conflict", err)
	}
	d, _ = r.svc.Get(ctx, old.ID)
	if !d.Memory.Live() || len(d.History) != 2 || d.History[0].Action != memory.HistoryRetired ||
		d.History[1].Action != memory.HistoryRestored || d.History[1].How != memory.RetiredReplaced {
		t.Errorf("history = %+v", d.History)
	}
}

func TestRetire_Validation(t *testing.T) {
	r := newRig(t, memory.Config{})
	m := r.add(t, "note", "u1")
	ctx := context.Background()
	others := r.add(t, "another person's note", "u2")
	agents := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "an agent's note", Owner: memory.Owner{UserID: "u1", AgentID: "coder"}})
	agents2 := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "another agent's note", Owner: memory.Owner{UserID: "u1", AgentID: "hermes"}})
	gone := r.add(t, "a retired note", "u1")
	if _, err := r.svc.Retire(ctx, gone.ID, memory.RetireInput{By: m.ID}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   string
		in   memory.RetireInput
		code memory.Code
	}{
		{"replaced by another person's", m.ID, memory.RetireInput{By: others.ID, How: "replaced"}, memory.EINVALID},
		{"replaced by another agent's", agents.ID, memory.RetireInput{By: agents2.ID, How: "replaced"}, memory.EINVALID},
		{"replaced by a retired row (which it replaced)", m.ID, memory.RetireInput{By: gone.ID, How: "replaced"}, memory.EINVALID},
		{"unknown id", "m-nope", memory.RetireInput{}, memory.ENOTFOUND},
		{"unknown how", m.ID, memory.RetireInput{How: "vanished"}, memory.EINVALID},
		{"unknown replacement", m.ID, memory.RetireInput{By: "m-ghost"}, memory.EINVALID},
		{"huge reason", m.ID, memory.RetireInput{Reason: string(make([]byte, 2000))}, memory.EINVALID},
		{"replaced by itself", m.ID, memory.RetireInput{By: m.ID}, memory.EINVALID},
	}
	for _, tt := range tests {
		if _, err := r.svc.Retire(ctx, tt.id, tt.in); memory.ErrorCode(err) != tt.code {
			t.Errorf("%s: %v, want %s", tt.name, err, tt.code)
		}
	}
	for _, id := range []string{m.ID, agents.ID} {
		if got, _ := r.store.Get(ctx, id); !got.Live() {
			t.Errorf("a refused retire changed row %s", id)
		}
	}
	// An agent's row may be replaced by the person's own, a person's by
	// their agent's.
	if _, err := r.svc.Retire(ctx, agents.ID, memory.RetireInput{By: m.ID, How: "replaced"}); err != nil {
		t.Errorf("an agent's row replaced by the person's own: %v", err)
	}
	if _, err := r.svc.Retire(ctx, m.ID, memory.RetireInput{By: agents2.ID, How: "replaced"}); err != nil {
		t.Errorf("the person's row replaced by their agent's: %v", err)
	}
}

func TestEdit(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	m, err := r.svc.Remember(ctx, memory.RememberInput{Content: "my bike is red", Owner: memory.Owner{UserID: "u1"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.svc.Edit(ctx, m.ID, memory.EditInput{Content: str("my bike is blue"), Category: str(" preference "), Strength: f64(0.9)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != "my bike is blue" || got.Category != "preference" || got.Strength != 0.9 {
		t.Errorf("edited = %+v", got)
	}
	if ids := r.search(t, memory.SearchInput{Query: "blue bike", Reader: "vector", MinScore: f64(0.5)}); !contains(ids, m.ID) {
		t.Errorf("edited content was not re-embedded: %v", ids)
	}
	if ids := r.search(t, memory.SearchInput{Query: "red", Reader: "keyword"}); contains(ids, m.ID) {
		t.Errorf("old words still match: %v", ids)
	}
	d, _ := r.svc.Get(ctx, m.ID)
	if len(d.History) != 1 || d.History[0].OldContent != "my bike is red" || d.History[0].How != memory.RetiredUpdated {
		t.Errorf("history = %+v", d.History)
	}
	bad := []memory.EditInput{
		{},
		{Content: str("  ")},
		{Strength: f64(1.5)},
		{Strength: f64(-0.1)},
		{Category: str(string(make([]byte, 100)))},
		{Category: str("  ")}, // no category at all; Remember's "" means the layer's default
	}
	for _, in := range bad {
		if _, err := r.svc.Edit(ctx, m.ID, in); err == nil {
			t.Errorf("edit %+v accepted", in)
		}
	}
	// A raw turn has no strength (as promote says), so an edit cannot set one.
	raw := r.add(t, "we talked about bikes", "u1")
	if _, err := r.svc.Edit(ctx, raw.ID, memory.EditInput{Strength: f64(0.9)}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("strength on a raw row: %v, want invalid", err)
	}
	if after, _ := r.store.Get(ctx, raw.ID); after.Strength != raw.Strength {
		t.Errorf("a refused edit changed the raw row's strength: %v -> %v", raw.Strength, after.Strength)
	}
	if got, _ := r.store.Get(ctx, m.ID); got.Category != "preference" || got.Strength != 0.9 {
		t.Errorf("a refused edit changed the fact: %+v", got)
	}
	if _, err := r.svc.Edit(ctx, "m-nope", memory.EditInput{Strength: f64(0.1)}); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("unknown id: %v", err)
	}
}

func TestDelete_RemovesEverywhere(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	m := r.add(t, "secret launch code 4242", "u1")
	if err := r.svc.Delete(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.store.Get(ctx, m.ID); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("row still readable: %v", err)
	}
	if _, ok := r.index.Vector(m.ID); ok {
		t.Error("vector still indexed")
	}
	if ids := r.search(t, memory.SearchInput{Query: "launch code 4242", MinScore: f64(0)}); len(ids) != 0 {
		t.Errorf("deleted row recalled: %v", ids)
	}
	if err := r.svc.Delete(ctx, m.ID); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Errorf("second delete: %v", err)
	}
}

func TestForget(t *testing.T) {
	r := newRig(t, memory.Config{})
	ctx := context.Background()
	exact := r.add(t, "User prefers  tabs over spaces", "u1")
	longer := r.add(t, "note: user prefers tabs over spaces in Go code", "u1")
	other := r.add(t, "user prefers tabs over spaces", "u2")

	rows, err := r.svc.Forget(ctx, memory.ForgetInput{Text: "user prefers tabs over SPACES", UserID: "u1"})
	if err != nil || len(rows) != 1 || rows[0].ID != exact.ID || rows[0].RetiredHow != memory.RetiredForgotten {
		t.Fatalf("exact forget = %v, %v", rows, err)
	}
	rows, err = r.svc.Forget(ctx, memory.ForgetInput{Text: "prefers tabs over spaces", UserID: "u1", Contains: true})
	if err != nil || len(rows) != 1 || rows[0].ID != longer.ID {
		t.Fatalf("contains forget = %v, %v", rows, err)
	}
	if got, _ := r.store.Get(ctx, other.ID); !got.Live() {
		t.Error("forget crossed owners")
	}
	if _, err := r.svc.Restore(ctx, exact.ID); err != nil {
		t.Errorf("forget is not reversible: %v", err)
	}
	// With a source, only the rows written with it: the Hermes plugin
	// retires the entry it mirrored, not the turn that said the same.
	mirror := r.put(t, memory.Memory{Layer: memory.LayerProfile, Content: "dark mode in every editor", Owner: memory.Owner{UserID: "u1"},
		Source: "hermes:memory_tool"})
	turn := r.add(t, "I want dark mode in every editor, please", "u1")
	rows, err = r.svc.Forget(ctx, memory.ForgetInput{Text: "dark mode in every editor", UserID: "u1", Contains: true, Source: "hermes:memory_tool"})
	if err != nil || len(rows) != 1 || rows[0].ID != mirror.ID {
		t.Fatalf("forget by source = %v, %v", rows, err)
	}
	if got, _ := r.store.Get(ctx, turn.ID); !got.Live() {
		t.Error("forget by source retired a row of another source")
	}
	for _, in := range []memory.ForgetInput{{Text: ""}, {Text: "ab"}, {Text: "tabs", Contains: true},
		{Text: "user prefers tabs over spaces", UserID: "u2", Reason: strings.Repeat("r", 2000)}} {
		if _, err := r.svc.Forget(ctx, in); err == nil {
			t.Errorf("forget %.80v accepted", in)
		}
	}
	if got, _ := r.store.Get(ctx, other.ID); !got.Live() {
		t.Error("a refused forget (a 2,000-byte reason) retired the row")
	}
}

func TestDeleteAll_Guards(t *testing.T) {
	ctx := context.Background()
	r := newRig(t, memory.Config{})
	r.add(t, "one", "u1")
	r.add(t, "two", "u2")
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{}); memory.ErrorCode(err) != memory.EBADREQUEST {
		t.Errorf("unscoped: %v", err)
	}
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{All: true}); memory.ErrorCode(err) != memory.EFORBIDDEN {
		t.Errorf("whole store without admin: %v", err)
	}
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{Layer: "l9"}); memory.ErrorCode(err) != memory.EINVALID {
		t.Errorf("bad layer: %v", err)
	}
	n, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{UserID: "u1"})
	if err != nil || n != 1 {
		t.Errorf("scoped delete = %d, %v", n, err)
	}
	if st, _ := r.svc.Stats(ctx); st.Live[memory.LayerRaw] != 1 || st.IndexLen != 1 {
		t.Errorf("after scoped delete: %+v", st)
	}

	admin := newRig(t, memory.Config{Admin: true})
	admin.add(t, "one", "u1")
	admin.add(t, "two", "u2")
	if n, err := admin.svc.DeleteAll(ctx, memory.DeleteAllInput{All: true}); err != nil || n != 2 {
		t.Errorf("admin wipe = %d, %v", n, err)
	}
	if err := admin.svc.Ready(ctx); err != nil {
		t.Errorf("not ready after wipe: %v", err)
	}
}

func TestList(t *testing.T) {
	aliases, _ := memory.ParseAliases("u1,u1b")
	r := newRig(t, memory.Config{Aliases: aliases})
	ctx := context.Background()
	var ids []string
	for i := range 5 {
		ids = append(ids, r.add(t, "raw turn", []string{"u1", "u1b"}[i%2]).ID)
	}
	fact := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "a fact", Owner: memory.Owner{UserID: "u1"}})
	r.add(t, "someone else", "u2")
	if _, err := r.svc.Retire(ctx, ids[0], memory.RetireInput{}); err != nil {
		t.Fatal(err)
	}

	res, err := r.svc.List(ctx, memory.ListInput{UserID: "u1", IncludeRaw: true, Limit: 3, Offset: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 5 || len(res.Memories) != 3 || res.Memories[0].ID != ids[4] {
		t.Errorf("page: total %d, %d rows, first %s", res.Total, len(res.Memories), res.Memories[0].ID)
	}
	res, _ = r.svc.List(ctx, memory.ListInput{UserID: "u1", IncludeRaw: false})
	if res.Total != 1 || res.Memories[0].ID != fact.ID {
		t.Errorf("include_raw=false: total %d", res.Total)
	}
	res, _ = r.svc.List(ctx, memory.ListInput{UserID: "u1", IncludeRaw: true, IncludeRetired: true})
	if res.Total != 6 {
		t.Errorf("with retired: total %d, want 6", res.Total)
	}
	for _, in := range []memory.ListInput{{Limit: -1}, {Limit: 5000}, {Offset: -1}, {Layer: "nope"}} {
		if _, err := r.svc.List(ctx, in); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("list %+v: %v", in, err)
		}
	}
}
