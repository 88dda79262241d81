package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"

	"hyatlas/backend/memory"
)

// ProofPath answers a nonce with proof that this server holds the API
// token, without the token: a client checks it before it sends the token
// (and, from the CLI, the LLM key), so a program that took HyAtlas's port
// while HyAtlas was not running learns neither.
const ProofPath = "/proof"

// Proof is HMAC-SHA256 of the nonce under the token, in hex: what the
// server answers and what a client holding the token expects. The label
// keeps the proof from being a MAC of anything else.
func Proof(token, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("hyatlas proof\x00" + nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// nonceShape is a nonce the server answers: 32 to 128 hex digits.
var nonceShape = regexp.MustCompile(`^[0-9a-f]{32,128}$`)

// proof: GET /proof?nonce=N, no token needed (the guard applies).
func (s *Server) proof(w http.ResponseWriter, r *http.Request) error {
	nonce := r.URL.Query().Get("nonce")
	if !nonceShape.MatchString(nonce) {
		return memory.Errorf(memory.EBADREQUEST, "nonce must be 32 to 128 lower-case hex digits")
	}
	writeJSON(w, http.StatusOK, map[string]string{"proof": Proof(s.currentToken(), nonce)})
	return nil
}
