package api_test

// Compatibility with the public HyAtlas wire contract, from the point of
// view of a client of the public server (its Hermes plugin's client.py and
// desktop pane, its dashboard) talking to this server with
// HYATLAS_AUTH=off: no request carries a token. Sources:
// ../shared/design/API.md ("Compat surface") and
// ../shared/research/hyatlas.md sections 1-3 and 9.3.

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/embed"
	"hyatlas/backend/events"
	"hyatlas/backend/memory"
	"hyatlas/backend/store"
	"hyatlas/backend/vector"
	"hyatlas/backend/workspace"
)

// compatCall is one request as a public client sends it: no token (the
// public plugin cannot send one; HYATLAS_AUTH=off), JSON body.
func compatCall(a *apiRig, method, path, body string) resp {
	a.t.Helper()
	h := map[string]string{}
	if body != "" {
		h["Content-Type"] = "application/json"
	}
	return a.do(req{method: method, path: path, body: body, noAuth: true, headers: h})
}

// --- /api/v1/graph -----------------------------------------------------------

// A client loses, without it: the public Hermes plugin's desktop pane backend
// (plugins/hyatlas/dashboard/plugin_api.py, route /graph, "L5 knowledge graph
// counts (nodes/edges)") forwards a bare `GET /api/v1/graph` to read
// node_count/edge_count, and client.py's `graph(node="", user_id="")` sends
// the same. Here both get 400 "node required", which plugin_api turns into an
// HTTPException: the pane's graph counts break.
//
// Contract: API.md compat table, `GET/POST /api/v1/graph` (node, neighbours);
// hyatlas.md §1.2 "/api/v1/graph": input node, user_id, agent_id from the body
// or query, output 200 {node, neighbors, node_count, edge_count, extract_err};
// the v4.5.0 handler never refuses an empty node (neighbors [] and the
// scope's counts). README "The API" does not say an empty node is refused.
func TestPublicContract_GraphWithoutNodeAnswersCounts(t *testing.T) {
	a := newAPI(t, rigOpts{})
	for _, path := range []string{"/api/v1/graph", "/api/v1/graph?user_id=default"} {
		r := compatCall(a, "GET", path, "")
		if r.status != 200 {
			t.Errorf("GET %s: status %d, want 200 with the graph counts: %s", path, r.status, r.body)
			continue
		}
		m := r.json(t)
		for _, k := range []string{"node", "neighbors", "node_count", "edge_count", "extract_err"} {
			if _, ok := m[k]; !ok {
				t.Errorf("GET %s: reply lacks %q: %s", path, k, r.body)
			}
		}
	}
}

// A client loses, without it: a client asking for a node that is not (yet) in the graph
// (an agent tool looking up an entity, the public dashboard) gets an error
// instead of "no neighbours"; and a client that prints or compares the reply's
// `node` (the public server echoes the string it was asked for) gets an
// object ({"id":"","label":"",...}) where it expects a string.
//
// Contract: hyatlas.md §1.2 "/api/v1/graph": 200 {node, neighbors:[{label,
// relation, incoming}], ...}; in v4.5.0 `node` is the requested label or id
// (a string) and an unmatched node gives 200 with neighbors [] (Graph
// NeighborsScoped returns nil, mapped to []). API.md marks the route compat.
func TestPublicContract_GraphUnknownNodeIsEmptyAndNodeIsAString(t *testing.T) {
	a := newAPI(t, rigOpts{})
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/v1/graph?node=Foxtrot", ""},
		{"POST", "/api/v1/graph", `{"node":"Foxtrot","user_id":"default"}`},
	} {
		r := compatCall(a, c.method, c.path, c.body)
		if r.status != 200 {
			t.Errorf("%s %s: status %d, want 200 with no neighbours: %s", c.method, c.path, r.status, r.body)
			continue
		}
		m := r.json(t)
		if s, ok := m["node"].(string); !ok || s != "Foxtrot" {
			t.Errorf("%s %s: node = %#v, want the string asked for (\"Foxtrot\")", c.method, c.path, m["node"])
		}
		if nb, ok := m["neighbors"].([]any); !ok || len(nb) != 0 {
			t.Errorf("%s %s: neighbors = %#v, want []", c.method, c.path, m["neighbors"])
		}
	}
}

// --- /api/v1/search ----------------------------------------------------------

// A client loses, without it: the public web dashboard's Explore "Hybrid" tab sends
// reader "hybrid_v2" (hyatlas.md §8 item 3; fusion.go's comment: the tabs
// send "legacy", "hybrid_tag" and "hybrid_v2"). Here that search is a 422
// "unknown reader", so a client's hybrid search returns nothing at all.
//
// Contract: hyatlas.md §3 step 4, `reader` values: legacy/semantic/vector ->
// vector only; hybrid_tag/keyword -> keyword only; "anything else, or none ->
// hybrid" (fusion.go parseReader: "Anything it does not name, including an
// empty value, is hybrid"). API.md lists `reader` among the compat search
// fields. README "The API" lists the known values but does not say others
// are refused.
func TestPublicContract_SearchUnknownReaderIsHybrid(t *testing.T) {
	a := newAPI(t, rigOpts{})
	a.post("/api/v1/add", map[string]any{"text": "Foxtrot uses Postgres 16", "user_id": "u1"}, 200)
	for _, reader := range []string{"hybrid_v2", "rrf"} {
		r := compatCall(a, "POST", "/api/v1/search", `{"query":"Foxtrot Postgres","user_id":"u1","reader":"`+reader+`"}`)
		if r.status != 200 {
			t.Errorf("reader %q: status %d, want 200 (hybrid): %s", reader, r.status, r.body)
			continue
		}
		if got := r.json(t)["ranked"].([]any); len(got) != 1 {
			t.Errorf("reader %q: ranked = %v, want the one memory", reader, got)
		}
	}
}

// --- /api/v1/status ----------------------------------------------------------

// A client loses, without it: the public plugin's desktop pane Overview labels its health
// dots `VDB (${status.vdb_provider})` and `Embedder ${status.embed_dims}d`
// and shows an "embed dims" stat card; against this server it shows "VDB
// (—)"/"VDB (undefined)" and "Embedder undefinedd". Scripts that read
// embed_dims to size vectors get nothing.
//
// Contract: hyatlas.md §9.3 item 1 (part of API.md's floor): "the 17 keys of
// version_test.go" - status, version, vdb, embed, llm, llm_model, llm_base,
// vdb_provider, vdb_collection, vdb_points, embed_dims, write_pipeline,
// writes, searches, layers, graph_nodes, graph_edges - plus mode, mode_detail,
// uses_llm, extract_sync, consolidations. The v4.5.0 Status struct marshals
// all of them. API.md's compat list and README ("the public contract's keys
// (...)") both leave out vdb_provider, vdb_collection and embed_dims, so
// README's claim to carry the public contract's keys is not true.
func TestPublicContract_StatusHasVDBProviderCollectionAndEmbedDims(t *testing.T) {
	a := newAPI(t, rigOpts{})
	r := compatCall(a, "GET", "/api/v1/status", "")
	if r.status != 200 {
		t.Fatalf("status: %d %s", r.status, r.body)
	}
	st := r.json(t)
	for _, k := range []string{"status", "version", "vdb", "embed", "llm", "llm_model", "llm_base",
		"vdb_provider", "vdb_collection", "vdb_points", "embed_dims", "write_pipeline", "writes", "searches",
		"layers", "graph_nodes", "graph_edges", "mode", "mode_detail", "uses_llm", "extract_sync", "consolidations"} {
		if _, ok := st[k]; !ok {
			t.Errorf("status lacks the public contract key %q", k)
		}
	}
	if d, ok := st["embed_dims"].(float64); !ok || d <= 0 {
		t.Errorf("embed_dims = %#v, want the embedder's dimension (a positive number)", st["embed_dims"])
	}
}

// --- /api/v1/admin/* -----------------------------------------------------------

// A client loses, without it: maintenance scripts written for the public server
// (POST /api/v1/admin/compact_raw and /api/v1/admin/dedupe_facts, dry run by
// default) get a 404 "no such endpoint" whatever HYATLAS_ADMIN says, so they
// cannot tell "switched off" from "wrong server"; with HYATLAS_ADMIN=on they
// still do not work.
//
// Contract: API.md compat table: `POST /api/v1/admin/*` "maintenance, only
// with HYATLAS_ADMIN=on"; hyatlas.md §1.4 (POST-only, 405 with Allow: POST on
// other methods, 403 unless HYATLAS_ADMIN=on, body {dry_run (default true),
// threshold, layer}) and §9.3 item 10 ("Admin gating: 403 without admin, 405
// on GET, dry-run by default"). backend/config says HYATLAS_ADMIN covers
// "/api/v1/admin/*", but README neither lists these routes nor says they are
// left out.
func TestPublicContract_AdminEndpointsExistAndAreGated(t *testing.T) {
	a := newAPI(t, rigOpts{})
	for _, p := range []string{"/api/v1/admin/compact_raw", "/api/v1/admin/dedupe_facts"} {
		if r := compatCall(a, "POST", p, `{}`); r.status != 403 {
			t.Errorf("POST %s without HYATLAS_ADMIN: status %d, want 403: %s", p, r.status, r.body)
		}
		if r := compatCall(a, "GET", p, ""); r.status != 405 {
			t.Errorf("GET %s: status %d, want 405: %s", p, r.status, r.body)
		}
	}
	admin := newAPI(t, rigOpts{admin: true})
	admin.post("/api/v1/add", map[string]any{"text": "USER: hi\n\nTOOL: {\"big\": true}\n\nASSISTANT: hello", "user_id": "u1"}, 200)
	for _, p := range []string{"/api/v1/admin/compact_raw", "/api/v1/admin/dedupe_facts"} {
		// Not offered here (consolidation and raw retention do their work):
		// said as such, never a 404 a script takes for the wrong server.
		r := compatCall(admin, "POST", p, `{}`)
		if r.status != 501 || !strings.Contains(string(r.body), "HYATLAS_RAW_RETENTION") {
			t.Errorf("POST %s with HYATLAS_ADMIN=on: %d %s, want 501 saying what does its work", p, r.status, r.body)
		}
	}
}

// --- error shapes of compat endpoints --------------------------------------------

// A client loses, without it: a client that reads the reply of a refused delete_all or add
// as it does a success (`resp["deleted_count"]`, `resp["success"]`) finds the
// key missing: Python's `resp["deleted_count"]` raises KeyError and a JS
// `resp.success === false` check is false. The public plugin's own
// client.py only reads `error`, so it is unaffected; third-party clients and
// the public FakeV4Server-style tests are not.
//
// Contract: hyatlas.md §1.2: delete_all "Other methods -> 405
// {deleted_count:0,error} with Allow: POST, DELETE"; "An unscoped call
// without all -> 400 {"deleted_count":0,"error":"unscoped delete refused: ..."}";
// add "Missing text -> 400 {"error":"text required","success":false}. Bad JSON
// -> 400 {"error":"bad body","success":false}". API.md's general error shape
// ({error, code}) is a superset only if these fields are kept on these routes.
func TestPublicContract_RefusalBodiesKeepCompatFields(t *testing.T) {
	a := newAPI(t, rigOpts{})
	for _, c := range []struct{ method, path, body, key string }{
		{"POST", "/api/v1/delete_all", `{"user_id":"","agent_id":""}`, "deleted_count"},
		{"GET", "/api/v1/delete_all", "", "deleted_count"},
		{"POST", "/api/v1/add", `{"user_id":"u1"}`, "success"},
		{"POST", "/api/v1/add", `{"text":`, "success"},
	} {
		r := compatCall(a, c.method, c.path, c.body)
		if r.status < 400 {
			t.Errorf("%s %s %s: status %d, want a refusal", c.method, c.path, c.body, r.status)
			continue
		}
		m := r.json(t)
		if _, ok := m["error"]; !ok {
			t.Errorf("%s %s: no error: %s", c.method, c.path, r.body)
		}
		if _, ok := m[c.key]; !ok {
			t.Errorf("%s %s %s: refusal (%d) lacks %q: %s", c.method, c.path, c.body, r.status, c.key, r.body)
		}
	}
}

// --- /api/v1/digest ------------------------------------------------------------

// emptyConsolidator is a model that finds nothing to change.
type emptyConsolidator struct{}

func (emptyConsolidator) Consolidate(context.Context, memory.ConsolidateRequest) (memory.ConsolidatePlan, error) {
	return memory.ConsolidatePlan{}, nil
}

func (emptyConsolidator) CrossSchemas(context.Context, memory.CrossSchemaRequest) ([]memory.PlannedSchema, error) {
	return nil, nil
}

// newUltraAPI is newAPI with a slow path (ultra, a consolidator, the store
// as the consolidation store) and /api/v1/digest wired as the engine does.
func newUltraAPI(t *testing.T) *apiRig {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	emb, _ := embed.NewHash(64)
	bus := events.New()
	mem, err := memory.NewService(memory.Config{Mode: memory.ModeUltra, MinScore: -1},
		memory.Deps{Store: st, Index: vector.New(64), Embedder: emb, Events: bus, GraphStore: st, Graph: st,
			ExtractStore: st, Workspace: workspace.New(t.TempDir()),
			Consolidator: emptyConsolidator{}, ConsolidationStore: st})
	if err != nil {
		t.Fatal(err)
	}
	s := api.New(api.Config{BindHost: "127.0.0.1", Token: testToken, Version: "test", DataDir: "/data",
		Started: time.Now(), Subscribe: bus.Subscribe, Digest: mem.Consolidate}, mem, mem.Flush)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &apiRig{srv: srv, api: s, mem: mem, t: t}
}

// A client loses, without it: a client of the public digest/status reply that walks the
// owners a pass could not reach (`for o in report.get("skipped_owners", [])`,
// `report.skipped_owners.join(", ")`) crashes here, because skipped_owners is
// a number; one that tests `report["arc"] is True` / `=== true` never sees an
// arc, because arc is a count; and `GET /api/v1/digest` has no `last_at`, so
// "when did the slow path last run" cannot be read from it.
//
// Contract: API.md compat table, `POST /api/v1/digest`: "*compat* report
// fields"; hyatlas.md §5.5 Report: "skipped_owners[]" (a list of owner keys,
// omitted when empty) and "arc (bool)"; §1.2 /api/v1/digest: GET -> {digest_ok,
// runs, last, last_at, graph_nodes, graph_edges}. The same Report is
// status.last_consolidated. README lists the report's names only, not that
// two of them changed type.
func TestPublicContract_DigestReportTypesAndLastAt(t *testing.T) {
	a := newUltraAPI(t)
	for _, text := range []string{"Foxtrot uses Postgres 16", "Foxtrot moved to Postgres 17"} {
		a.post("/api/v1/add", map[string]any{"text": text, "user_id": "u1"}, 200)
	}
	r := compatCall(a, "POST", "/api/v1/digest", `{"user_id":"u1"}`)
	if r.status != 200 {
		t.Fatalf("POST digest: %d %s", r.status, r.body)
	}
	d := r.json(t)
	if d["digest_ok"] != true {
		t.Fatalf("POST digest did not run a pass: %s", r.body)
	}
	rep, _ := d["report"].(map[string]any)
	if v, ok := rep["skipped_owners"]; ok {
		if _, isList := v.([]any); !isList {
			t.Errorf("report.skipped_owners = %#v (%T), want a list of owners (or absent)", v, v)
		}
	}
	if _, ok := rep["arc"].(bool); !ok {
		t.Errorf("report.arc = %#v (%T), want a bool", rep["arc"], rep["arc"])
	}
	g := compatCall(a, "GET", "/api/v1/digest", "").json(t)
	if _, ok := g["last_at"]; !ok {
		t.Errorf("GET digest lacks last_at: %v", g)
	}
	st := compatCall(a, "GET", "/api/v1/status", "").json(t)
	if last, ok := st["last_consolidated"].(map[string]any); !ok {
		t.Errorf("status.last_consolidated missing after a pass: %v", st["last_consolidated"])
	} else if _, ok := last["arc"].(bool); !ok {
		t.Errorf("status.last_consolidated.arc = %#v, want a bool", last["arc"])
	}
}
