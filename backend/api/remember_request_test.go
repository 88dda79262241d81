package api_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// A memory added with a request id and sent again (its answer was lost)
// is stored once: the repeat gets the first row. Another text under the
// same id is a 409; another owner or layer is another request.
func TestRemember_ARequestSentTwiceIsStoredOnce(t *testing.T) {
	a := newAPI(t, rigOpts{})
	body := map[string]any{"content": "Prefers dark roast coffee", "layer": "l1_profile", "user_id": "u1", "agent_id": "hermes",
		"source": "hermes:memory_tool", "request_id": "w-1"}
	first := a.post("/api/v1/memories", body, 201)
	again := a.post("/api/v1/memories", body, 201)
	if first["id"] != again["id"] {
		t.Fatalf("the repeat made another row: %v, then %v", first["id"], again["id"])
	}
	before := a.counts()
	other := map[string]any{"content": "Prefers green tea", "layer": "l1_profile", "user_id": "u1", "agent_id": "hermes", "request_id": "w-1"}
	if r := a.do(req{method: "POST", path: "/api/v1/memories", body: jsonOf(other)}); r.status != 409 || !strings.Contains(string(r.body), "another text") {
		t.Errorf("another text under the same request id: %d %s", r.status, r.body)
	}
	if a.counts() != before {
		t.Error("a refused repeat changed the store")
	}
	// The same id from another agent, or to another layer, is its own write.
	for _, o := range []map[string]any{
		{"content": "Prefers dark roast coffee", "layer": "l1_profile", "user_id": "u1", "agent_id": "other", "request_id": "w-1"},
		{"content": "Prefers dark roast coffee", "layer": "l3_fact", "user_id": "u1", "agent_id": "hermes", "request_id": "w-1"},
	} {
		if got := a.post("/api/v1/memories", o, 201); got["id"] == first["id"] {
			t.Errorf("%v was taken for the first write", o)
		}
	}
	// The id is HyAtlas's own key in the metadata, never the client's.
	bad := map[string]any{"content": "x", "metadata": map[string]string{"hyatlas_request_id": "w-2"}}
	if r := a.do(req{method: "POST", path: "/api/v1/memories", body: jsonOf(bad)}); r.status != 422 {
		t.Errorf("metadata with the request id key: %d %s", r.status, r.body)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRemember_TheAnswerShowsTheTimesAReadShows: the answer to a write and a
// later read of the row give the same times (the store keeps milliseconds).
func TestRemember_TheAnswerShowsTheTimesAReadShows(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	made := a.post("/api/v1/memories", map[string]any{"content": "Prefers window seats", "user_id": "u1"}, 201)
	read := a.do(req{path: "/api/v1/memories/" + made["memory_id"].(string)}).json(t)
	for _, k := range []string{"created_at", "updated_at", "event_at"} {
		if made[k] != read[k] {
			t.Errorf("%s: the write answered %v, a read gives %v", k, made[k], read[k])
		}
	}
}
