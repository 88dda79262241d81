package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

func TestInsertGetRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	at := func(d time.Duration) time.Time { return t0.Add(d).In(zone) } // not UTC, sub-ms digits
	ms := func(d time.Duration) time.Time { return t0.Add(d).Truncate(time.Millisecond).UTC() }

	full := memory.Memory{
		ID: "full", Layer: memory.LayerFact, Content: "Ünïcode — and \"quotes\"",
		Owner: memory.Owner{UserID: "alice", AgentID: "hermes"}, SessionID: "sess-1",
		Category: "preference", Strength: 0.8125, Source: "chat",
		SourceIDs: []string{"r1", "r2"}, Metadata: map[string]string{"k": "v", "lang": "de"},
		EventAt: at(-48 * time.Hour), ValidTo: at(48 * time.Hour), DueAt: at(72 * time.Hour),
		CreatedAt: at(0), UpdatedAt: at(time.Minute),
		RetiredAt: at(2 * time.Minute), RetiredBy: "newer", RetiredHow: memory.RetiredReplaced,
		RetireReason: "moved city", UseCount: 42, LastUsedAt: at(3 * time.Minute),
		Extraction: memory.ExtractFailed,
	}
	wantFull := full
	wantFull.EventAt, wantFull.ValidTo, wantFull.DueAt = ms(-48*time.Hour), ms(48*time.Hour), ms(72*time.Hour)
	wantFull.CreatedAt, wantFull.UpdatedAt = ms(0), ms(time.Minute)
	wantFull.RetiredAt, wantFull.LastUsedAt = ms(2*time.Minute), ms(3*time.Minute)

	bare := memory.Memory{ID: "bare", Layer: memory.LayerRaw, Content: "nothing else set",
		Extraction: memory.ExtractPending}
	wantBare := bare
	wantBare.SourceIDs = []string{}

	insert(t, s, memory.NewRow{Memory: full}, memory.NewRow{Memory: bare})
	for _, tc := range []struct {
		name string
		want memory.Memory
	}{{"every field set", wantFull}, {"zero values", wantBare}} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustGet(t, s, tc.want.ID)
			equalMemory(t, got, tc.want)
			for _, tm := range []time.Time{got.EventAt, got.ValidTo, got.DueAt, got.CreatedAt,
				got.UpdatedAt, got.RetiredAt, got.LastUsedAt} {
				if !tm.IsZero() && tm.Location() != time.UTC {
					t.Errorf("time %v is not UTC", tm)
				}
			}
			many, err := s.GetMany(ctx, []string{tc.want.ID})
			if err != nil {
				t.Fatal(err)
			}
			equalMemory(t, many[tc.want.ID], tc.want)
		})
	}
	if got := mustGet(t, s, "bare"); !got.Live() || !got.CreatedAt.IsZero() || got.Metadata != nil {
		t.Errorf("zero row read back as live=%v created=%v metadata=%v", got.Live(), got.CreatedAt, got.Metadata)
	}
}

func TestGetUnknownIsNotFound(t *testing.T) {
	s := openStore(t)
	insert(t, s, row("known", "hello"))
	_, err := s.Get(context.Background(), "unknown")
	wantCode(t, err, memory.ENOTFOUND)
}

func TestGetManySkipsUnknownIDs(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	// More than one 500-id chunk, mixed with unknown ids.
	var rows []memory.NewRow
	var ask []string
	for i := range 700 {
		id := fmt.Sprintf("m%03d", i)
		rows = append(rows, row(id, "content of "+id))
		ask = append(ask, id, "missing-"+id)
	}
	insert(t, s, rows...)
	got, err := s.GetMany(ctx, append(ask, "m001")) // a repeated id too
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 700 {
		t.Fatalf("GetMany returned %d rows, want 700", len(got))
	}
	for _, r := range rows {
		if got[r.Memory.ID].Content != r.Memory.Content {
			t.Fatalf("row %s: content %q", r.Memory.ID, got[r.Memory.ID].Content)
		}
	}
	if none, err := s.GetMany(ctx, []string{"nope"}); err != nil || len(none) != 0 {
		t.Errorf("GetMany(unknown) = %v, %v", none, err)
	}
}

func TestList(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	at := func(i int) func(*memory.NewRow) { return createdAt(t0.Add(time.Duration(i) * time.Minute)) }
	insert(t, s,
		row("a", "one", at(1)),
		row("b", "two", at(2), inLayer(memory.LayerFact)),
		row("c", "three", at(3), inLayer(memory.LayerFact), ownedBy("u2", "")),
		row("d", "four", at(4), ownedBy("u1", "bot")),
		row("e", "five", at(5), inLayer(memory.LayerProfile), ownedBy("u3", "bot")),
		row("f", "six", at(6), inLayer(memory.LayerFact)),
		row("g", "seven", at(6)), // same time as f, inserted later
		row("r", "retired", at(7), inLayer(memory.LayerFact)),
		row("k1", "alice works at acme", at(8), inLayer(memory.LayerKnowledge), stating("rel1")),
		row("k2", "alice lives in oslo", at(9), inLayer(memory.LayerKnowledge), stating("rel2")),
	)
	if _, _, err := s.Retire(ctx, "r", memory.Retirement{How: memory.RetiredReplaced, By: "f", At: t0}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		f     memory.ListFilter
		want  []string
		total int
	}{
		{"newest first, ties by insert order", memory.ListFilter{Limit: 100},
			[]string{"k2", "k1", "g", "f", "e", "d", "c", "b", "a"}, 9},
		{"page", memory.ListFilter{Offset: 4, Limit: 3}, []string{"e", "d", "c"}, 9},
		{"offset past the end", memory.ListFilter{Offset: 50, Limit: 3}, nil, 9},
		{"relations", memory.ListFilter{Relations: []string{"rel1", "rel9"}, Limit: 100}, []string{"k1"}, 1},
		{"layers", memory.ListFilter{Layers: []memory.Layer{memory.LayerFact, memory.LayerProfile}, Limit: 100},
			[]string{"f", "e", "c", "b"}, 4},
		{"exclude layers", memory.ListFilter{ExcludeLayers: []memory.Layer{memory.LayerRaw, memory.LayerKnowledge}, Limit: 2},
			[]string{"f", "e"}, 4},
		{"users", memory.ListFilter{Scope: memory.Scope{UserIDs: []string{"u2", "u3"}}, Limit: 100},
			[]string{"e", "c"}, 2},
		{"agent", memory.ListFilter{Scope: memory.Scope{AgentID: "bot"}, Limit: 100}, []string{"e", "d"}, 2},
		{"user and agent", memory.ListFilter{Scope: memory.Scope{UserIDs: []string{"u1"}, AgentID: "bot"}, Limit: 100},
			[]string{"d"}, 1},
		{"include retired", memory.ListFilter{Layers: []memory.Layer{memory.LayerFact}, IncludeRetired: true, Limit: 100},
			[]string{"r", "f", "c", "b"}, 4},
		{"retired by", memory.ListFilter{RetiredBy: "f", IncludeRetired: true, Limit: 100}, []string{"r"}, 1},
		{"retired by nobody", memory.ListFilter{RetiredBy: "a", IncludeRetired: true, Limit: 100}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, total, err := s.List(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(idsOf(got), tc.want) || total != tc.total {
				t.Errorf("List = %v total %d, want %v total %d", idsOf(got), total, tc.want, tc.total)
			}
		})
	}
}

// TestListText: the Atlas's text filter is a substring test that folds
// ASCII case only (as SQL's LIKE does), takes % and _ literally, and, for
// live rows, also needs each word to start a word of the text.
func TestListText(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s,
		row("pg", "Foxtrot runs on Postgres 16"),
		row("pct", "Coverage must stay above 50% on main"),
		row("und", "The flag is called dry_run in the config"),
		row("acc", "Élodie prefers the café near the station"),
		row("mid", "The preprocessing step is slow"),
		row("old", "Postgres 12 was retired last year"),
	)
	retire(t, s, "old")
	for _, tc := range []struct {
		text    string
		retired bool
		want    []string
	}{
		{"postgres", false, []string{"pg"}},
		{"POSTGRES 16", false, []string{"pg"}},
		{"postgres", true, []string{"old", "pg"}},
		{"50%", false, []string{"pct"}},
		{"0%", true, []string{"pct"}},
		{"dry_run", false, []string{"und"}},
		{"dry%run", false, nil},
		{"élodie", false, nil}, // non-ASCII letters do not fold, as in LIKE
		{"Élodie", false, []string{"acc"}},
		{"café", false, []string{"acc"}},
		{"processing", false, nil}, // live rows: a word must start with it
		{"processing", true, []string{"mid"}},
		{"preprocess", false, []string{"mid"}},
	} {
		got, total, err := s.List(ctx, memory.ListFilter{Text: tc.text, IncludeRetired: tc.retired, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		ids := idsOf(got)
		slices.Sort(ids)
		if !slices.Equal(ids, tc.want) || total != len(tc.want) {
			t.Errorf("%q (retired %v) = %v total %d, want %v", tc.text, tc.retired, ids, total, tc.want)
		}
	}
}

func TestKeyword(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s,
		row("runs", "she runs every morning"),
		row("run", "a run before work"),
		row("coffee", "strong coffee in the office", inLayer(memory.LayerFact)),
		row("tea", "green tea after lunch", ownedBy("u2", "")),
		row("pasta3", "pasta pasta pasta"),
		row("pasta1", "pasta is one of many dishes she cooked for friends on long summer evenings"),
		row("agent", "coffee notes from the agent", ownedBy("u3", "bot")),
		row("old", "retired coffee and tea and pasta"),
	)
	retire(t, s, "old")
	for _, tc := range []struct {
		name    string
		q       memory.KeywordQuery
		want    []string
		ordered bool
	}{
		{"porter stemming", memory.KeywordQuery{Terms: []string{"running"}}, []string{"run", "runs"}, false},
		{"any term matches", memory.KeywordQuery{Terms: []string{"coffee", "tea"}}, []string{"agent", "coffee", "tea"}, false},
		{"better bm25 first", memory.KeywordQuery{Terms: []string{"pasta"}}, []string{"pasta3", "pasta1"}, true},
		{"limit keeps the best", memory.KeywordQuery{Terms: []string{"pasta"}, Limit: 1}, []string{"pasta3"}, true},
		{"layer", memory.KeywordQuery{Terms: []string{"coffee", "tea"}, Layers: []memory.Layer{memory.LayerFact}},
			[]string{"coffee"}, false},
		{"users", memory.KeywordQuery{Terms: []string{"coffee", "tea"}, Scope: memory.Scope{UserIDs: []string{"u2", "u3"}}},
			[]string{"agent", "tea"}, false},
		{"agent", memory.KeywordQuery{Terms: []string{"coffee"}, Scope: memory.Scope{AgentID: "bot"}}, []string{"agent"}, false},
		{"retired excluded", memory.KeywordQuery{Terms: []string{"retired"}}, nil, false},
		{"double quote in a term", memory.KeywordQuery{Terms: []string{`coffee"`}}, []string{"agent", "coffee"}, false},
		{"lone double quote", memory.KeywordQuery{Terms: []string{`"`, `tea`}}, []string{"tea"}, false},
		{"fts syntax is literal", memory.KeywordQuery{Terms: []string{"NOT", "content:x", "(", "*", "NEAR", "green"}},
			[]string{"tea"}, false},
		{"only the given rows", memory.KeywordQuery{Terms: []string{"coffee", "pasta"}, IDs: []string{"pasta1", "coffee", "tea", "nope"}},
			[]string{"coffee", "pasta1"}, false},
		{"only the given rows, retired left out", memory.KeywordQuery{Terms: []string{"coffee"}, IDs: []string{"old"}}, nil, false},
		{"no terms", memory.KeywordQuery{}, nil, false},
		{"negative limit", memory.KeywordQuery{Terms: []string{"coffee"}, Limit: -1}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.q.Limit == 0 && len(tc.q.Terms) > 0 {
				tc.q.Limit = 10
			}
			hits, err := s.Keyword(ctx, tc.q)
			if err != nil {
				t.Fatalf("Keyword: %v", err)
			}
			got, want := hitIDs(hits), tc.want
			if !tc.ordered {
				got, want = sorted(got), sorted(want)
			}
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("Keyword = %v, want %v", hitIDs(hits), tc.want)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("scores not descending: %v", hits)
				}
			}
			if tc.ordered && len(hits) == 2 && !(hits[0].Score > hits[1].Score) {
				t.Errorf("better match does not score higher: %v", hits)
			}
		})
	}
	// A row scored alone keeps the score it has among all matches.
	all, err := s.Keyword(ctx, memory.KeywordQuery{Terms: []string{"pasta"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	one, err := s.Keyword(ctx, memory.KeywordQuery{Terms: []string{"pasta"}, Limit: 10, IDs: []string{"pasta1"}})
	if err != nil || len(one) != 1 || len(all) != 2 || one[0] != all[1] {
		t.Errorf("pasta1 alone = %v (%v), among all %v", one, err, all)
	}
}

func TestFindByContent(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	insert(t, s,
		row("exact", "I like  Green\tTea"),
		row("longer", "I like green tea a lot"),
		row("teapots", "i like green teapots"),
		row("other-user", "i like green tea", ownedBy("u2", "")),
		row("agent", "i like green tea", ownedBy("u1", "bot")),
		row("retired", "i like green tea"),
		row("punct", "!!! ???"),
		row("superscript", "Area x²y here"),
		row("private-use", "icon \uE0A0branch here"),
		row("hindi", "मुझे हिन्दी पसंद है"),
		row("decomposed", "my re\u0301sume\u0301 is ready"),
	)
	retire(t, s, "retired")
	u1 := memory.Scope{UserIDs: []string{"u1"}}
	for _, tc := range []struct {
		name     string
		scope    memory.Scope
		text     string
		contains bool
		want     []string
	}{
		{"exact ignores case and spacing", u1, "I LIKE green tea", false, []string{"agent", "exact"}},
		{"exact across users", memory.Scope{}, "i like green tea", false, []string{"agent", "exact", "other-user"}},
		{"exact in agent scope", memory.Scope{AgentID: "bot"}, "i like green tea", false, []string{"agent"}},
		{"contains", u1, "like green tea", true, []string{"agent", "exact", "longer", "teapots"}},
		{"contains cuts words at both ends", u1, "ike green te", true, []string{"agent", "exact", "longer", "teapots"}},
		{"contains one partial word", u1, "eapo", true, []string{"teapots"}},
		{"contains nothing", u1, "green coffee", true, nil},
		{"no word characters", u1, "!!! ???", false, []string{"punct"}},
		{"superscript digits", u1, "area x²y here", false, []string{"superscript"}},
		{"private use characters", u1, "icon \uE0A0branch here", false, []string{"private-use"}},
		{"combining marks", u1, "मुझे हिन्दी पसंद है", false, []string{"hindi"}},
		{"contains with combining marks", u1, "my re\u0301sume\u0301 is", true, []string{"decomposed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.FindByContent(ctx, tc.scope, memory.NormalizeText(tc.text), tc.contains)
			if err != nil {
				t.Fatal(err)
			}
			if g := sorted(idsOf(got)); !slices.Equal(g, sorted(tc.want)) {
				t.Errorf("FindByContent(%q, contains=%v) = %v, want %v", tc.text, tc.contains, g, tc.want)
			}
		})
	}
}

// TestKeyword_OtherOwnersOutrankYours: when more than the prefilter's worth
// of another owner's rows rank above the caller's only match, the caller
// still finds it (the second, filtered pass).
func TestKeyword_OtherOwnersOutrankYours(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var rows []memory.NewRow
	for i := range 300 {
		rows = append(rows, row(fmt.Sprintf("u2-%03d", i), "pasta pasta", ownedBy("u2", "")))
	}
	rows = append(rows, row("mine", "a long note that mentions pasta once among many other words", ownedBy("u1", "")))
	insert(t, s, rows...)
	hits, err := s.Keyword(ctx, memory.KeywordQuery{Terms: []string{"pasta"}, Scope: memory.Scope{UserIDs: []string{"u1"}}, Limit: 15})
	if err != nil || len(hits) != 1 || hits[0].ID != "mine" {
		t.Fatalf("hits = %v, %v; want [mine]", hits, err)
	}
	hits, _ = s.Keyword(ctx, memory.KeywordQuery{Terms: []string{"pasta"}, Limit: 15})
	if len(hits) != 15 {
		t.Errorf("unscoped: %d hits, want 15", len(hits))
	}
}

// stating makes an L5 row state the graph relation rel.
func stating(rel string) func(*memory.NewRow) {
	return func(r *memory.NewRow) { r.Memory.Metadata = map[string]string{memory.MetaRelation: rel} }
}
