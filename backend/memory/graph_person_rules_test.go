package memory_test

// More rules of a person's shared entities (see graph_person_test.go).

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"hyatlas/backend/embed"
	"hyatlas/backend/memory"
)

// Two agents of a person who learn the same relation each hold their
// own: the later is not recited into the earlier, and each agent's view
// shows what it learnt.
func TestGraph_TheSameRelationLearntByTwoAgentsIsEachOnes(t *testing.T) {
	r := personRig(t)
	hermes, coder := memory.Owner{UserID: "amy", AgentID: "hermes"}, memory.Owner{UserID: "amy", AgentID: "coder"}
	learnStated(t, r, hermes, "Acme", "2024-01-01", "2024-02-01", "Alice works at Acme")
	e := learnStated(t, r, coder, "Acme", "2024-01-01", "2024-03-01", "Alice has worked at Acme since January")
	if e.Owner != coder {
		t.Errorf("the relation coder learnt is owned by %v", e.Owner)
	}
	want := []string{"Alice works at Acme [2024-01-01, ?)"}
	if edges, _ := viewOf(t, r, "amy", "coder", "2024-06-01"); !slices.Equal(edges, want) {
		t.Errorf("coder's own view: %v, want %v", edges, want)
	}
	if _, err := r.svc.GraphNeighbours(context.Background(), "amy", "coder", "alice"); err != nil {
		t.Errorf("coder's scope does not find Alice: %v", err)
	}
}

// Deleting one agent keeps the relation another agent learnt too.
func TestGraph_DeletingAnAgentKeepsTheSameRelationAnotherLearnt(t *testing.T) {
	r := personRig(t)
	ctx := context.Background()
	hermes, coder := memory.Owner{UserID: "amy", AgentID: "hermes"}, memory.Owner{UserID: "amy", AgentID: "coder"}
	learnStated(t, r, hermes, "Acme", "2024-01-01", "2024-02-01", "Alice works at Acme")
	learnStated(t, r, coder, "Acme", "2024-01-01", "2024-03-01", "Alice has worked at Acme since January")
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{UserID: "amy", AgentID: "hermes"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"Alice works at Acme [2024-01-01, ?)"}
	if edges, _ := viewOf(t, r, "amy", "", "2024-06-01"); !slices.Equal(edges, want) {
		t.Errorf("after deleting hermes: %v, want coder's %v", edges, want)
	}
}

// Alias groups that share an id are one person ("amy,bea;bea,cy"): a job
// learnt for cy ends amy's, and amy's view shows it; a user id outside the
// group never weighs in.
func TestGraph_OverlappingAliasGroupsAreOnePerson(t *testing.T) {
	al, err := memory.ParseAliases("amy,bea;bea,cy")
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, memory.Config{Aliases: al}, func(d *memory.Deps) { d.GraphStore = d.Store.(memory.GraphStore) })
	amy, bea, cy, dan := memory.Owner{UserID: "amy"}, memory.Owner{UserID: "bea"}, memory.Owner{UserID: "cy"}, memory.Owner{UserID: "dan"}
	fact := func(o memory.Owner, text string) string {
		return r.put(t, memory.Memory{Layer: memory.LayerFact, Content: text, Owner: o}).ID
	}
	learnJob(t, r, bea, "Acme", "2024-01-01", "2024-02-01", fact(bea, "Alice works at Acme"))
	learnJob(t, r, amy, "Globex", "2025-03-01", "2025-04-01", fact(amy, "Alice moved to Globex"))
	learnJob(t, r, cy, "Initech", "2026-01-01", "2026-02-01", fact(cy, "Alice joined Initech"))
	learnJob(t, r, dan, "Umbrella", "2026-03-01", "2026-04-01", fact(dan, "Alice works at Umbrella"))

	want := []string{"Alice works at Initech [2026-01-01, ?)"}
	for _, user := range []string{"amy", "bea", "cy"} {
		if edges, _ := viewOf(t, r, user, "", "2026-06-01"); !slices.Equal(edges, want) {
			t.Errorf("%s's view: %v, want %v", user, edges, want)
		}
	}
	if edges, _ := viewOf(t, r, "dan", "", "2026-06-01"); !slices.Equal(edges, []string{"Alice works at Umbrella [2026-03-01, ?)"}) {
		t.Errorf("dan's view: %v", edges)
	}
}

// A node passed on by a delete drops the link to a page the delete took,
// and links the page of its name the person writes later.
func TestGraph_APassedNodeLinksALivePage(t *testing.T) {
	r := personRig(t)
	ctx := context.Background()
	hermes, coder := memory.Owner{UserID: "amy", AgentID: "hermes"}, memory.Owner{UserID: "amy", AgentID: "coder"}
	page := func(o memory.Owner) string {
		return r.put(t, memory.Memory{Layer: memory.LayerEntity, Content: "Alice: a friend", Owner: o,
			Metadata: map[string]string{memory.MetaEntityID: "alice"}}).ID
	}
	hermesPage := page(hermes)
	learnStated(t, r, hermes, "Acme", "2024-01-01", "2024-02-01", "Alice works at Acme")
	if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: coder, From: "Alice", To: "Paris", Relation: "lives in",
		Facts: []string{r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice lives in Paris", Owner: coder}).ID},
		At:    day("2024-03-01")}); err != nil {
		t.Fatal(err)
	}
	aliceNode := func() memory.GraphNode {
		t.Helper()
		around, err := r.svc.GraphNeighbours(ctx, "amy", "", "alice")
		if err != nil {
			t.Fatal(err)
		}
		return around.Node
	}
	if got := aliceNode().PageID; got != hermesPage {
		t.Fatalf("Alice's page before: %q, want %q", got, hermesPage)
	}
	if _, err := r.svc.DeleteAll(ctx, memory.DeleteAllInput{UserID: "amy", AgentID: "hermes"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Get(ctx, hermesPage); err == nil {
		t.Fatalf("hermes's page %s survived the delete", hermesPage)
	}
	if got := aliceNode().PageID; got == hermesPage {
		t.Errorf("after deleting hermes, Alice still links hermes's deleted page %s", got)
	}
	coderPage := page(coder)
	if _, err := r.svc.LearnRelation(ctx, memory.RelationInput{Owner: coder, From: "Alice", To: "Bob", Relation: "knows",
		Facts: []string{r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice knows Bob", Owner: coder}).ID},
		At:    day("2024-04-01")}); err != nil {
		t.Fatal(err)
	}
	if got := aliceNode().PageID; got != coderPage {
		t.Errorf("Alice's page after coder wrote one and learnt about her: %q, want %q", got, coderPage)
	}
}

// An alias group set after both of its ids had an Alice leaves the
// person two nodes of her; a restored relation is weighed against the
// relations on both, as learning it now would be.
func TestGraph_ARestoreMeetsTheAliasesNodeLikeALearnDoes(t *testing.T) {
	ctx := context.Background()
	r := graphRig(t) // no aliases yet
	amy, bea := memory.Owner{UserID: "amy"}, memory.Owner{UserID: "bea"}
	acme := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Acme", Owner: amy}).ID
	learnJob(t, r, amy, "Acme", "2024-01-01", "2024-02-01", acme)
	learnStated(t, r, bea, "Globex", "2025-03-01", "2025-04-01", "Alice moved to Globex")

	r2 := restartWithAliases(t, r, "amy,bea")

	r2.setClock(day("2025-05-01"))
	if _, err := r2.svc.Retire(ctx, acme, memory.RetireInput{Reason: "not sure"}); err != nil {
		t.Fatal(err)
	}
	r2.setClock(day("2025-06-01"))
	if _, err := r2.svc.Restore(ctx, acme); err != nil {
		t.Fatal(err)
	}
	// Acme (from 2024-01) is older than Globex (from 2025-03): held again,
	// it ends where Globex began, as learning it now would make it.
	want := []string{"Alice works at Globex [2025-03-01, ?)"}
	if edges, _ := viewOf(t, r2, "amy", "", "2025-07-01"); !slices.Equal(edges, want) {
		t.Errorf("amy's view after the restore: %v, want %v", edges, want)
	}
}

// Deleting everything of an agent leaves no node of it, even when the
// owner its node would pass to has a node of that name already (an alias
// group set late): the relations move to that node.
func TestGraph_DeletingAnAgentLeavesNoNodeOfIt(t *testing.T) {
	ctx := context.Background()
	r := graphRig(t) // no aliases yet
	hermes, beaCoder := memory.Owner{UserID: "amy", AgentID: "hermes"}, memory.Owner{UserID: "bea", AgentID: "coder"}
	learnStated(t, r, hermes, "Acme", "2024-01-01", "2024-02-01", "Alice works at Acme")
	learnStated(t, r, beaCoder, "Globex", "2025-03-01", "2025-04-01", "Alice moved to Globex")

	r2 := restartWithAliases(t, r, "amy,bea")
	// bea's coder learns about Alice: the person's oldest Alice is hermes's.
	if _, err := r2.svc.LearnRelation(ctx, memory.RelationInput{Owner: beaCoder, From: "Alice", To: "Bob", Relation: "knows",
		Facts: []string{r2.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice knows Bob", Owner: beaCoder}).ID},
		At:    day("2025-05-01")}); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.svc.DeleteAll(ctx, memory.DeleteAllInput{UserID: "amy", AgentID: "hermes"}); err != nil {
		t.Fatal(err)
	}
	if edges, nodes := viewOf(t, r2, "amy", "hermes", "2025-06-01"); len(nodes) != 0 {
		t.Errorf("agent hermes's graph after deleting everything of it: nodes %v, relations %v", nodes, edges)
	}
}

// An import of one alias's export into a store where another alias of
// the person has Alice uses that Alice.
func TestGraph_ImportingAnAliasKeepsThePersonsEntityOne(t *testing.T) {
	ctx := context.Background()
	amy, bea := memory.Owner{UserID: "amy"}, memory.Owner{UserID: "bea"}
	src := personRig(t)
	if _, err := src.svc.LearnRelation(ctx, memory.RelationInput{Owner: bea, From: "Alice", To: "Paris", Relation: "lives in",
		Facts: []string{src.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice lives in Paris", Owner: bea}).ID},
		At:    day("2024-03-01")}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := src.svc.Export(ctx, &buf, memory.ExportInput{UserID: "bea"}); err != nil {
		t.Fatal(err)
	}

	dst := personRig(t)
	learnJob(t, dst, amy, "Acme", "2024-01-01", "2024-02-01",
		dst.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Acme", Owner: amy}).ID)
	if _, err := dst.svc.Import(ctx, bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	edges, nodes := viewOf(t, dst, "amy", "", "2024-06-01")
	if want := []string{"Acme", "Alice", "Paris"}; !slices.Equal(nodes, want) {
		t.Errorf("the person's nodes after importing bea: %v, want %v (relations %v)", nodes, want, edges)
	}
	around, err := dst.svc.GraphNeighbours(ctx, "amy", "", "alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(around.Neighbours) != 2 {
		t.Errorf("Alice's neighbours for the person: %d, want 2 (Acme and Paris)", len(around.Neighbours))
	}
}

// Two user ids that each had an Alice (and an Acme) before they became one
// alias group: the person's nodes of a name become one when next met, so
// the same owner stating the same job again recites it, and it is held
// once.
func TestGraph_AnAliasGroupsTwoNodesOfANameBecomeOne(t *testing.T) {
	r := newRig(t, memory.Config{}, func(d *memory.Deps) { d.GraphStore = d.Store.(memory.GraphStore) })
	amy, bea := memory.Owner{UserID: "amy"}, memory.Owner{UserID: "bea"}
	likes := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Bob likes Acme", Owner: amy}).ID
	if _, err := r.svc.LearnRelation(context.Background(), memory.RelationInput{Owner: amy, From: "Bob", FromType: "person",
		To: "Acme", ToType: "organization", Relation: "likes", Facts: []string{likes}, At: day("2024-01-01")}); err != nil {
		t.Fatal(err)
	}
	job := r.put(t, memory.Memory{Layer: memory.LayerFact, Content: "Alice works at Acme", Owner: bea}).ID
	first := learnJob(t, r, bea, "Acme", "2024-06-01", "2024-06-01", job)

	// amy and bea become one person (aliases are settings).
	al, err := memory.ParseAliases("amy,bea")
	if err != nil {
		t.Fatal(err)
	}
	r.store.UsePeople(func(u string) []string { return al.Expand(u) })

	again := learnJob(t, r, bea, "Acme", "2024-06-01", "2025-01-01", job)
	if again.ID != first.ID {
		t.Errorf("bea stating her job again made relation %s (ending %s), want a recite of %s", again.ID, first.ID, first.ID)
	}
	if got := edgesAt(t, r, memory.AxisValid, "2025-06-01"); len(got) != 2 {
		t.Errorf("held relations: %v, want Bob likes Acme and Alice works at Acme once", got)
	}
}

// restartWithAliases is r's store served again by a service with
// HYATLAS_USER_ALIASES set to aliases (as after a restart).
func restartWithAliases(t *testing.T, r *rig, aliases string) *rig {
	t.Helper()
	al, err := memory.ParseAliases(aliases)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embed.NewHash(64)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := memory.NewService(memory.Config{Mode: memory.ModeLite, MinScore: -1, Aliases: al},
		memory.Deps{Store: r.store, Index: r.index, Embedder: emb, Now: r.clock.Now, ExtractStore: r.store, GraphStore: r.store})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{svc: svc, store: r.store, index: r.index, clock: r.clock}
}
