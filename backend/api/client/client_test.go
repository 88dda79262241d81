package client

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"hyatlas/backend/memory"
)

func TestDo_ErrorsAndAuth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/status":
			if r.Header.Get("Authorization") != "Bearer tok" {
				w.WriteHeader(401)
				_, _ = w.Write([]byte(`{"error":"missing or wrong token","code":"unauthorized"}`))
				return
			}
			_, _ = w.Write([]byte(`{"status":"ok","version":"9.9","total":3}`))
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
	_, err = New(srv.URL, "wrong").Status(ctx)
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.Code != "unauthorized" || apiErr.Message != "missing or wrong token" {
		t.Errorf("401 = %#v", err)
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
