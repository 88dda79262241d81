package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestBadInput_ClearErrorAndNoChange sends every kind of bad request and
// checks the status, the error shape, and that nothing changed.
func TestBadInput_ClearErrorAndNoChange(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	m := a.post("/api/v1/add", map[string]any{"text": "an existing memory", "user_id": "u1"}, 200)
	id := m["memory_id"].(string)
	huge := strings.Repeat("x", 9<<20)
	tests := []struct {
		name   string
		q      req
		status int
		code   string
	}{
		{"malformed JSON", req{method: "POST", path: "/api/v1/add", body: `{"text": "x"`}, 400, "bad_request"},
		{"not an object", req{method: "POST", path: "/api/v1/add", body: `["x"]`}, 400, "bad_request"},
		{"trailing data", req{method: "POST", path: "/api/v1/add", body: `{"text":"x"} {"text":"y"}`}, 400, "bad_request"},
		{"text of wrong type", req{method: "POST", path: "/api/v1/add", body: `{"text": 5}`}, 400, "bad_request"},
		{"user of wrong type", req{method: "POST", path: "/api/v1/add", body: `{"text": "x", "user_id": 7}`}, 400, "bad_request"},
		{"metadata of wrong type", req{method: "POST", path: "/api/v1/add", body: `{"text": "x", "metadata": {"a": 1}}`}, 400, "bad_request"},
		{"missing text", req{method: "POST", path: "/api/v1/add", body: `{"user_id": "u1"}`}, 400, "bad_request"},
		{"empty text", req{method: "POST", path: "/api/v1/add", body: `{"text": "  "}`}, 400, "bad_request"},
		{"empty body", req{method: "POST", path: "/api/v1/add"}, 400, "bad_request"},
		{"search without query", req{method: "POST", path: "/api/v1/search", body: `{}`}, 400, "bad_request"},
		{"search unknown layer", req{method: "POST", path: "/api/v1/search", body: `{"query":"x","layer":"l9_dreams"}`}, 422, "invalid"},
		{"search negative limit", req{method: "POST", path: "/api/v1/search", body: `{"query":"x","limit":-1}`}, 422, "invalid"},
		{"search huge limit", req{method: "POST", path: "/api/v1/search", body: `{"query":"x","limit":100000000}`}, 422, "invalid"},
		{"search limit not a number", req{method: "POST", path: "/api/v1/search", body: `{"query":"x","limit":"5"}`}, 400, "bad_request"},
		{"search min_score out of range", req{method: "POST", path: "/api/v1/search", body: `{"query":"x","min_score":3}`}, 422, "invalid"},
		{"list limit not a number", req{path: "/api/v1/list?limit=lots"}, 400, "bad_request"},
		{"list negative limit", req{path: "/api/v1/list?limit=-5"}, 422, "invalid"},
		{"list unknown layer", req{method: "POST", path: "/api/v1/list", body: `{"layer":"raw"}`}, 422, "invalid"},
		{"get unknown id", req{path: "/api/v1/memories/m-unknown"}, 404, "not_found"},
		{"patch unknown id", req{method: "PATCH", path: "/api/v1/memories/m-unknown", body: `{"strength":0.1}`}, 404, "not_found"},
		{"patch unknown field", req{method: "PATCH", path: "/api/v1/memories/" + id, body: `{"contnet":"typo"}`}, 400, "bad_request"},
		{"patch strength out of range", req{method: "PATCH", path: "/api/v1/memories/" + id, body: `{"strength":7}`}, 422, "invalid"},
		{"patch based on an older text", req{method: "PATCH", path: "/api/v1/memories/" + id, body: `{"content":"mine","if_content":"a memory as it was"}`}, 412, "stale"},
		{"delete unknown id", req{method: "DELETE", path: "/api/v1/memories/m-unknown"}, 404, "not_found"},
		{"retire unknown id", req{method: "POST", path: "/api/v1/memories/m-unknown/retire"}, 404, "not_found"},
		{"retire unknown kind", req{method: "POST", path: "/api/v1/memories/" + id + "/retire", body: `{"how":"vanished"}`}, 422, "invalid"},
		{"restore live row", req{method: "POST", path: "/api/v1/memories/" + id + "/restore"}, 409, "conflict"},
		{"wrong method", req{method: "GET", path: "/api/v1/add"}, 405, "method_not_allowed"},
		{"wrong method on search", req{method: "PUT", path: "/api/v1/search", body: `{"query":"x"}`}, 405, "method_not_allowed"},
		{"unknown endpoint", req{path: "/api/v1/nothing-here"}, 404, "not_found"},
		{"missing token", req{method: "POST", path: "/api/v1/add", body: `{"text":"x"}`, noAuth: true}, 401, "unauthorized"},
		{"wrong token", req{method: "POST", path: "/api/v1/add", body: `{"text":"x"}`, noAuth: true,
			headers: map[string]string{"Authorization": "Bearer nope"}}, 401, "unauthorized"},
		{"foreign Host", req{method: "POST", path: "/api/v1/add", body: `{"text":"x"}`,
			headers: map[string]string{"Host": "evil.example"}}, 403, "refused"},
		{"foreign Host on healthz", req{path: "/healthz", headers: map[string]string{"Host": "evil.example:19528"}}, 403, "refused"},
		{"bare LAN IP Host", req{path: "/api/v1/status", headers: map[string]string{"Host": "192.168.1.20:19528"}}, 403, "refused"},
		{"cross-site Origin", req{method: "POST", path: "/api/v1/add", body: `{"text":"x"}`,
			headers: map[string]string{"Origin": "https://evil.example"}}, 403, "refused"},
		{"Origin null", req{method: "POST", path: "/api/v1/add", body: `{"text":"x"}`,
			headers: map[string]string{"Origin": "null"}}, 403, "refused"},
		{"file Origin", req{method: "POST", path: "/api/v1/add", body: `{"text":"x"}`,
			headers: map[string]string{"Origin": "file://"}}, 403, "refused"},
		{"Sec-Fetch-Site cross-site", req{method: "POST", path: "/api/v1/add", body: `{"text":"x"}`,
			headers: map[string]string{"Sec-Fetch-Site": "cross-site"}}, 403, "refused"},
		{"9 MiB body", req{method: "POST", path: "/api/v1/add", body: `{"text":"` + huge + `"}`}, 413, "too_large"},
		{"unscoped delete_all", req{method: "POST", path: "/api/v1/delete_all", body: `{}`}, 400, "bad_request"},
		{"whole-store delete without admin", req{method: "POST", path: "/api/v1/delete_all?all=true"}, 403, "forbidden"},
		{"delete_all of a user with a line break", req{method: "POST", path: "/api/v1/delete_all", body: `{"user_id":"a\nb"}`}, 422, "invalid"},
		{"delete_all of a 1000-byte agent", req{method: "POST", path: "/api/v1/delete_all", body: `{"agent_id":"` + strings.Repeat("a", 1000) + `"}`}, 422, "invalid"},
		{"delete_all by GET", req{path: "/api/v1/delete_all?user_id=u1"}, 405, "method_not_allowed"},
		{"forget without text", req{method: "POST", path: "/api/v1/forget", body: `{"user_id":"u1"}`}, 400, "bad_request"},
		{"strength beyond any number", req{method: "PATCH", path: "/api/v1/memories/" + id, body: `{"strength":1e400}`}, 400, "bad_request"},
		{"malformed body on a new token", req{method: "POST", path: "/api/v1/token", body: `{"oops": [1,2,`}, 400, "bad_request"},
		{"a field on a new token", req{method: "POST", path: "/api/v1/token", body: `{"token":"mine"}`}, 400, "bad_request"},
		{"malformed body on a model install", req{method: "POST", path: "/api/v1/models/bge-small/install", body: `[]`}, 400, "bad_request"},
		{"malformed body on a model cancel", req{method: "POST", path: "/api/v1/models/bge-small/cancel", body: `"hi"`}, 400, "bad_request"},
		{"malformed body on restart", req{method: "POST", path: "/api/v1/restart", body: `{"a":`}, 400, "bad_request"},
		{"malformed body on a sign-in link", req{method: "POST", path: "/api/v1/dashboard/link", body: `42`}, 400, "bad_request"},
		{"malformed body on flush", req{method: "POST", path: "/api/v1/flush", body: `{"a":`}, 400, "bad_request"},
		{"9 MiB body on flush", req{method: "POST", path: "/api/v1/flush", body: `{"text":"` + huge + `"}`}, 413, "too_large"},
		// encoding/json matches names whatever their case; a strict route does not.
		{"a field in capitals", req{method: "PATCH", path: "/api/v1/memories/" + id, body: `{"STRENGTH":0.9}`}, 400, "bad_request"},
		{"a field with a capital beside its own", req{method: "PATCH", path: "/api/v1/memories/" + id, body: `{"strength":0.1,"Strength":0.95}`}, 400, "bad_request"},
		// Routes that take no body refuse a junk one before they act.
		{"malformed body on a delete", req{method: "DELETE", path: "/api/v1/memories/" + id, body: `{"a":`}, 400, "bad_request"},
		{"malformed body on a model verify", req{method: "POST", path: "/api/v1/models/bge-small/verify", body: `[1`}, 400, "bad_request"},
		{"malformed body on a model remove", req{method: "DELETE", path: "/api/v1/models/bge-small", body: `nope`}, 400, "bad_request"},
		{"malformed body on the key delete", req{method: "DELETE", path: "/api/v1/settings/llm-key", body: `{"key":`}, 400, "bad_request"},
		{"malformed body on window show", req{method: "POST", path: "/api/v1/window/show", body: `{"a":`}, 400, "bad_request"},
	}
	before := a.counts()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.do(tt.q)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			body := r.json(t)
			// {error, code}; add's and delete_all's refusals also carry what
			// the public contract's clients read there (success, deleted_count).
			extra := map[string]string{"/api/v1/add": "success", "/api/v1/delete_all": "deleted_count"}[strings.SplitN(tt.q.path, "?", 2)[0]]
			want := 2
			if _, ok := body[extra]; ok && extra != "" {
				want = 3
			}
			if body["code"] != tt.code || body["error"] == "" || len(body) != want {
				t.Errorf("error shape = %v, want code %q and a message", body, tt.code)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			if tt.status == http.StatusMethodNotAllowed && r.header.Get("Allow") == "" {
				t.Error("405 without Allow")
			}
			if after := a.counts(); after != before {
				t.Errorf("a refused request changed the store: %s -> %s", before, after)
			}
		})
	}
}

// TestBodyLimit_Chunked checks the limit also holds without Content-Length.
func TestBodyLimit_Chunked(t *testing.T) {
	a := newAPI(t, rigOpts{})
	pr := strings.NewReader(`{"text":"` + strings.Repeat("y", 9<<20) + `"}`)
	hr, _ := http.NewRequest("POST", a.srv.URL+"/api/v1/add", struct{ *strings.Reader }{pr})
	hr.ContentLength = -1
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked 9 MiB body: status %d, want 413", res.StatusCode)
	}
	if st, _ := a.mem.Stats(t.Context()); st.Writes != 0 {
		t.Errorf("write stored: %+v", st)
	}
}

// TestBadInput_Messages: what a refused body is told, and that the
// refusal changed nothing (a stray "]" after the object used to pass,
// and bad UTF-8 was stored with its bytes replaced).
func TestBadInput_Messages(t *testing.T) {
	a := newAPI(t, rigOpts{auth: true})
	m := a.post("/api/v1/add", map[string]any{"text": "an existing memory", "user_id": "u1"}, 200)
	id := m["memory_id"].(string)
	tests := []struct {
		name, method, path, body string
		status                   int
		msg                      string
	}{
		{"stray ] after the object", "POST", "/api/v1/add", `{"text":"x"} ]`, 400, "data after the JSON object"},
		{"stray } after the object", "POST", "/api/v1/memories", `{"content":"y"} }`, 400, "data after the JSON object"},
		{"stray } after a patch", "PATCH", "/api/v1/memories/" + id, `{"content":"z"}}`, 400, "data after the JSON object"},
		{"bad UTF-8 in the text", "POST", "/api/v1/add", "{\"text\":\"raw \xff bytes\"}", 400, "not valid UTF-8"},
		{"bad UTF-8 in a user id", "POST", "/api/v1/add", "{\"text\":\"x\",\"user_id\":\"u\xfe\"}", 400, "not valid UTF-8"},
		{"an array body", "POST", "/api/v1/add", `["x"]`, 400, "body must be a JSON object, not an array"},
		{"a number in the metadata", "POST", "/api/v1/add", `{"text":"x","metadata":{"k":1}}`, 400, `field "metadata" must be a string, not a number`},
		{"a fraction for a count", "POST", "/api/v1/search", `{"query":"x","limit":2.5}`, 400, `field "limit" must be a whole number, not 2.5`},
		{"an exponent for a count", "POST", "/api/v1/search", `{"query":"x","limit":1e9}`, 400, `field "limit" must be a whole number, not 1e9`},
		{"a string for a count", "POST", "/api/v1/search", `{"query":"x","limit":"5"}`, 400, `field "limit" must be a number, not a string`},
		{"a word for a true/false", "POST", "/api/v1/list", `{"include_raw":"maybe"}`, 400, `field "include_raw" must be a boolean, not a string`},
		{"a number for a true/false", "POST", "/api/v1/list", `{"include_superseded":5}`, 400, `field "include_superseded" must be a boolean, not a number`},
		{"a word for all", "POST", "/api/v1/delete_all", `{"all":"maybe","user_id":"u1"}`, 400, `field "all" must be a boolean, not a string`},
		{"the reserved user all", "POST", "/api/v1/add", `{"text":"x","user_id":"all"}`, 422, `"all" is reserved`},
		{"eleven steps", "POST", "/api/v1/memories/" + id + "/promote", `{"steps":11}`, 422, "steps must be from 1 to 10"},
		{"a strength beyond any number", "PATCH", "/api/v1/memories/" + id, `{"strength":1e400}`, 400, `field "strength" is out of range: 1e400`},
		{"a field for a route that takes none", "POST", "/api/v1/token", `{"token":"mine"}`, 400, `unknown field "token"`},
		{"replaced by itself", "POST", "/api/v1/memories/" + id + "/retire", `{"by":"` + id + `"}`, 422, "cannot be replaced by itself"},
		{"a strength for a raw turn", "PATCH", "/api/v1/memories/" + id, `{"strength":0.9}`, 422, "no strength to change"},
		{"an empty category", "PATCH", "/api/v1/memories/" + id, `{"category":" "}`, 422, "category must not be empty"},
		{"a huge forget reason", "POST", "/api/v1/forget", `{"text":"an existing memory","user_id":"u1","reason":"` + strings.Repeat("r", 5000) + `"}`, 422, "reason must be at most"},
	}
	before := a.counts()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := a.do(req{method: tt.method, path: tt.path, body: tt.body})
			if msg, _ := r.json(t)["error"].(string); r.status != tt.status || !strings.Contains(msg, tt.msg) {
				t.Fatalf("%d %s; want %d and %q", r.status, r.body, tt.status, tt.msg)
			}
			if after := a.counts(); after != before {
				t.Errorf("a refused request changed the store: %s -> %s", before, after)
			}
		})
	}
}
