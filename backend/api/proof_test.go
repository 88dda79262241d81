package api_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hyatlas/backend/api"
)

// GET /proof answers a nonce with the HMAC of the token in force, with no
// token needed (a client checks it before sending the token), and never
// the token itself; the guard still applies.
func TestProof(t *testing.T) {
	dir := t.TempDir()
	a := newAPI(t, rigOpts{auth: true, tokenDir: dir})
	nonce := strings.Repeat("ab", 24)
	proofOf := func() string {
		r := a.do(req{path: api.ProofPath + "?nonce=" + nonce, noAuth: true})
		var got struct{ Proof string }
		if r.status != 200 || json.Unmarshal(r.body, &got) != nil {
			t.Fatalf("proof: %d %s", r.status, r.body)
		}
		if strings.Contains(string(r.body), testToken) {
			t.Fatalf("the proof answer holds the token: %s", r.body)
		}
		return got.Proof
	}
	if got := proofOf(); got != api.Proof(testToken, nonce) || got == api.Proof(testToken, strings.Repeat("cd", 24)) {
		t.Fatalf("proof %q", got)
	}
	// A new token (hyatlas token --new) is what the proof is made with.
	const newer = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	if err := os.WriteFile(filepath.Join(dir, api.TokenFile), []byte(newer+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := proofOf(); got != api.Proof(newer, nonce) {
		t.Errorf("after a new token: %q", got)
	}
	for _, bad := range []string{"", "abc", strings.Repeat("ab", 65), strings.Repeat("AB", 24), strings.Repeat("zz", 24)} {
		if r := a.do(req{path: api.ProofPath + "?nonce=" + bad, noAuth: true}); r.status != 400 {
			t.Errorf("nonce %q: %d", bad, r.status)
		}
	}
	if r := a.do(req{path: api.ProofPath + "?nonce=" + nonce, noAuth: true, headers: map[string]string{"Host": "evil.example"}}); r.status != 403 {
		t.Errorf("the guard does not apply: %d", r.status)
	}
}
