package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
)

func TestDo_ErrorsAndAuth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case api.ProofPath:
			_, _ = w.Write([]byte(`{"proof":"` + api.Proof("tok", r.URL.Query().Get("nonce")) + `"}`))
		case "/api/v1/status":
			if r.Header.Get("Authorization") != "Bearer tok" {
				w.WriteHeader(401)
				_, _ = w.Write([]byte(`{"error":"missing or wrong token","code":"unauthorized"}`))
				return
			}
			_, _ = w.Write([]byte(`{"status":"ok","version":"9.9","total":3}`))
		case "/api/v1/search":
			w.WriteHeader(409)
			_, _ = w.Write([]byte(`{"error":"a conflict","code":"conflict"}`))
		default:
			w.WriteHeader(502)
			_, _ = w.Write([]byte("bad gateway from a proxy"))
		}
	}))
	defer srv.Close()
	ctx := context.Background()

	st, err := New(srv.URL, "tok").Status(ctx)
	if err != nil || st.Version != "9.9" || st.Total != 3 {
		t.Fatalf("status = %+v, %v", st, err)
	}
	var apiErr *Error
	// No token (no HyAtlas of this configuration has started): nothing
	// but the liveness checks is sent.
	if _, err = New(srv.URL, "").Status(ctx); !errors.Is(err, ErrNotHyAtlas) {
		t.Errorf("a client without a token: %v", err)
	}
	_, err = New(srv.URL, "tok").Search(ctx, api.SearchRequest{Query: "x"})
	if !errors.As(err, &apiErr) || apiErr.Status != 409 || apiErr.Code != "conflict" || apiErr.Message != "a conflict" {
		t.Errorf("409 = %#v", err)
	}
	// A token the server cannot prove it holds (it changed since) is not sent.
	if _, err = New(srv.URL, "wrong").Status(ctx); !errors.Is(err, ErrNotHyAtlas) {
		t.Errorf("a token the server does not hold: %v", err)
	}
	err = New(srv.URL, "tok").Health(ctx)
	if !errors.As(err, &apiErr) || apiErr.Status != 502 || apiErr.Message != "bad gateway from a proxy" {
		t.Errorf("non-JSON error = %#v", err)
	}
	if apiErr.Code != memory.Code("") {
		t.Errorf("code of a non-JSON error = %q", apiErr.Code)
	}
}

func TestDo_Unreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	err = New("http://"+addr, "").Health(context.Background())
	if !errors.Is(err, ErrUnreachable) {
		t.Errorf("closed port: %v, want ErrUnreachable", err)
	}
}

// A program that took HyAtlas's port while HyAtlas was not running (it
// cannot answer the proof) gets neither the token nor the request: only a
// nonce. One proof serves a client's later requests.
func TestTokenGoesOnlyToAServerThatProvesItHoldsIt(t *testing.T) {
	const token = "the-api-token"
	tests := []struct {
		name     string
		proof    func(nonce string) (int, string)
		wantErr  error
		requests int // requests that reach the server past the proof
	}{
		{"a squatter without the proof", func(string) (int, string) { return 404, `{}` }, ErrNotHyAtlas, 0},
		{"a squatter answering anything", func(string) (int, string) { return 200, `{"proof":"00"}` }, ErrNotHyAtlas, 0},
		{"a squatter replaying another proof", func(string) (int, string) {
			return 200, `{"proof":"` + api.Proof(token, "00000000000000000000000000000000") + `"}`
		}, ErrNotHyAtlas, 0},
		{"HyAtlas", func(n string) (int, string) { return 200, `{"proof":"` + api.Proof(token, n) + `"}` }, nil, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var leaked []string
			proofs, requests := 0, 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if a := r.Header.Get("Authorization"); a != "" {
					leaked = append(leaked, a)
				}
				if r.URL.Path == api.ProofPath {
					proofs++
					code, body := tc.proof(r.URL.Query().Get("nonce"))
					w.WriteHeader(code)
					_, _ = w.Write([]byte(body))
					return
				}
				requests++
				_, _ = w.Write([]byte(`{"is_set":true}`))
			}))
			defer srv.Close()
			c := New(srv.URL, token)
			for range 2 {
				if err := c.Do(context.Background(), "PUT", "/api/v1/settings/llm-key", map[string]string{"key": "sk-secret"}, nil); !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			}
			if requests != tc.requests {
				t.Errorf("%d requests reached the server, want %d", requests, tc.requests)
			}
			if tc.wantErr != nil && len(leaked) != 0 {
				t.Errorf("the token went to a program that is not HyAtlas: %q", leaked)
			}
			if tc.wantErr == nil && proofs != 1 {
				t.Errorf("%d proofs asked for, want 1", proofs)
			}
		})
	}
}

// TestDo_AnAnswerLostSaysTheWriteMayHaveBeenDone: a connection that ends
// after a write was sent and before its answer says the write may have
// been done, not a bare EOF; a read says what it is.
func TestDo_AnAnswerLostSaysTheWriteMayHaveBeenDone(t *testing.T) {
	const token = "the-api-token"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == api.ProofPath {
			_, _ = w.Write([]byte(`{"proof":"` + api.Proof(token, r.URL.Query().Get("nonce")) + `"}`))
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack() // dies before it answers
		if err == nil {
			_ = conn.Close()
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	text := "Erin likes pears"
	if _, err := New(srv.URL, token).Add(ctx, api.AddRequest{Text: &text}); !errors.Is(err, ErrAnswerLost) {
		t.Errorf("a write whose answer was lost: %v", err)
	}
	if _, err := New(srv.URL, token).Import(ctx, strings.NewReader("{}\n")); !errors.Is(err, ErrAnswerLost) {
		t.Errorf("an import whose answer was lost: %v", err)
	}
	if _, err := New(srv.URL, token).Status(ctx); err == nil || errors.Is(err, ErrAnswerLost) {
		t.Errorf("a read whose answer was lost: %v", err)
	}
}
