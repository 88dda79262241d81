package engine

import (
	"net/http"
	"strings"
	"testing"

	"hyatlas/backend/api"
)

// A key handed over with a trailing space (pasted, or `echo "sk-... " |
// hyatlas key set --memory-only`) goes out trimmed (a header drops the
// space), so an endpoint echoing it echoes it without the space: it is
// redacted all the same, and reaches no answer, status, log or file.
func TestKey_HandedWithASpaceIsRedactedWhereEchoed(t *testing.T) {
	const secret = "sk-LEAKCHECK-space-0123456789"
	r := newLLMRig(t, nil)
	r.fake.setReply(func(q llmRequest) (int, string) {
		return http.StatusUnauthorized, "Incorrect API key provided: " + strings.TrimSpace(strings.TrimPrefix(q.Auth, "Bearer ")) + "."
	})
	var st api.KeyStatus
	if err := r.do(t, "POST", "/api/v1/llm/key", map[string]any{"key": secret + " "}, &st); err != nil {
		t.Fatalf("hand: %v", err)
	}
	var res api.ConnectionTest
	if err := r.do(t, "POST", "/api/v1/settings/test", map[string]any{"llm_base": remoteBase, "llm_model": "test-model"}, &res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Error, secret) {
		t.Errorf("connection test answer carries the key: %q", res.Error)
	}
	var add map[string]any
	_ = r.do(t, "POST", "/api/v1/add", map[string]any{"text": "written with the spaced key"}, &add)
	r.waitIdle(t)
	var status map[string]any
	_ = r.do(t, "GET", "/api/v1/status", nil, &status)
	if wp, _ := status["write_pipeline"].(string); strings.Contains(wp, secret) {
		t.Errorf("status write_pipeline carries the key: %q", wp)
	}
	if strings.Contains(r.logs.String(), secret) {
		t.Errorf("log carries the key")
	}
	_ = r.eng.Close()
	for _, dir := range []string{r.cfg.Paths.Data, r.cfg.Paths.Config} {
		if f := fileContaining(t, dir, secret); f != "" {
			t.Errorf("%s holds the key", f)
		}
	}
}
