//go:build keyring

package engine

import (
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
	"hyatlas/backend/secrets"
)

// TestRealKeyring_KeySurvivesARestart runs against a real Secret Service
// (make test starts a throw-away gnome-keyring on a private session bus):
// a key saved in the settings is in the OS keyring, is used after a
// restart, and is gone after delete.
func TestRealKeyring_KeySurvivesARestart(t *testing.T) {
	if err := secrets.KeyringAvailable(secrets.OSKeyring()); err != nil {
		t.Fatalf("no usable keyring (run through make test): %v", err)
	}
	const key = "sk-real-keyring-test-7"
	r := newLLMRigWith(t, secrets.OSKeyring(), nil)
	t.Cleanup(func() { _ = secrets.OSKeyring().Delete(secrets.Service, secrets.LLMKeyUser) })
	var st api.KeyStatus
	if err := r.do(t, "PUT", "/api/v1/settings/llm-key", map[string]string{"key": key}, &st); err != nil {
		t.Fatal(err)
	}
	if !st.IsSet || st.Origin != "keyring" || !st.KeyringAvailable {
		t.Fatalf("after save: %+v", st)
	}
	if v, err := secrets.OSKeyring().Get(secrets.Service, secrets.LLMKeyUser); err != nil || v != key {
		t.Fatalf("the OS keyring holds %q, %v", v, err)
	}
	if err := r.eng.Close(); err != nil {
		t.Fatal(err)
	}

	r2 := openLLMRig(t, r.cfg, r.fake, secrets.OSKeyring(), &testClock{now: today})
	r2.fake.setReply(func(llmRequest) (int, string) { return 200, planJSON(nil, nil) })
	if s := r2.eng.Memory.LLMState(); s != memory.LLMOK {
		t.Fatalf("after a restart the state is %s", s)
	}
	res := r2.add(t, "written after the restart")
	reqs := r2.fake.requests()
	if res.ExtractionStatus != memory.StatusDone || len(reqs) == 0 || reqs[len(reqs)-1].Auth != "Bearer "+key {
		t.Fatalf("write after restart: %+v, requests %+v", res, reqs)
	}
	if err := r2.do(t, "DELETE", "/api/v1/settings/llm-key", nil, &st); err != nil || st.IsSet {
		t.Fatalf("after delete: %+v %v", st, err)
	}
	if _, err := secrets.OSKeyring().Get(secrets.Service, secrets.LLMKeyUser); err == nil {
		t.Error("the key is still in the OS keyring")
	}
}
