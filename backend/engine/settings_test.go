package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"hyatlas/backend/memory"
)

// TestConnectionHint: a failed connection test says what to do in plain
// words for the usual causes (the error itself is shown too).
func TestConnectionHint(t *testing.T) {
	cases := []struct {
		name, msg, base string
		local, keySent  bool
		want            string
	}{
		{"nothing listens here", "llm: 127.0.0.1:11434: the request could not be made: dial tcp 127.0.0.1:11434: connect: connection refused",
			"http://127.0.0.1:11434/v1", true, false, "is the model server"},
		{"nothing listens there", "dial tcp 10.0.0.9:80: connect: connection refused", "http://10.0.0.9/v1", false, false, "check the address"},
		{"a typo in the host", "dial tcp: lookup api.openai.cmo: no such host", "https://api.openai.cmo/v1", false, true, "api.openai.cmo cannot be found"},
		{"no key", "llm: api.example: HTTP 401: missing key", "https://api.example/v1", false, false, "wants a key"},
		{"a wrong key", "llm: api.example: HTTP 401: bad key", "https://api.example/v1", false, true, "refused the key"},
		{"no key sent to a local server", "llm: 127.0.0.1:8000: HTTP 401: missing key", "http://127.0.0.1:8000/v1", true, false, "none was sent"},
		{"a wrong key of a local server", "llm: 127.0.0.1:8000: HTTP 401: bad key", "http://127.0.0.1:8000/v1", true, true, "refused the key"},
		{"a wrong model", "llm: api.example: HTTP 404: model not found", "https://api.example/v1", false, true, "no such model"},
		{"rate limited", "HTTP 429: slow down", "https://api.example/v1", false, true, "limiting requests"},
		{"slow", "llm: context deadline exceeded", "http://127.0.0.1:8080/v1", true, false, "No answer within 30 seconds"},
		// The LLM client's own words for a call past its budget.
		{"slow, as the client says it", "llm: 10.0.0.5:8000 (model m): timed out", "http://10.0.0.5:8000/v1", false, true, "No answer within 30 seconds"},
		{"anything else", "llm: HTTP 500: boom", "https://api.example/v1", false, true, ""},
	}
	for _, c := range cases {
		got := connectionHint(c.msg, c.base, c.local, c.keySent)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, got, c.want)
		}
	}
}

// TestSettingsPut_ConcurrentSavesKeepBothKeys: two saves of different keys
// at once both land (each reads, merges and writes the file).
func TestSettingsPut_ConcurrentSavesKeepBothKeys(t *testing.T) {
	eng := openSnapEngine(t)
	s := settingsAPI{eng}
	for i := range 30 {
		keep, every := fmt.Sprint(2+i), fmt.Sprintf("%dm", 10+i)
		var wg sync.WaitGroup
		for _, kv := range []map[string]string{{"snapshot_keep": keep}, {"snapshot_every": every}} {
			wg.Go(func() {
				if _, err := s.Put(kv); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		st, err := s.Get()
		if err != nil {
			t.Fatal(err)
		}
		if st.Saved["snapshot_keep"] != keep || st.Saved["snapshot_every"] != every {
			t.Fatalf("round %d: saved %v, want snapshot_keep %s and snapshot_every %s", i, st.Saved, keep, every)
		}
	}
}

// An unknown key is refused even with an empty value (which clears a
// known one), and nothing sent with it is saved.
func TestSettingsPut_AnUnknownKeyClearedIsRefused(t *testing.T) {
	eng := openSnapEngine(t)
	s := settingsAPI{eng}
	for _, values := range []map[string]string{{"bogus": ""}, {"bogus": "", "snapshot_keep": "5"}, {"bogus": "x"}} {
		if _, err := s.Put(values); memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(memory.ErrorMessage(err), `"bogus" is not a setting`) {
			t.Errorf("Put(%v): %v, want a refusal naming the key", values, err)
		}
	}
	st, err := s.Get()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Saved) != 0 {
		t.Errorf("saved after refusals: %v", st.Saved)
	}
	if _, err := os.Stat(filepath.Join(eng.Config.Paths.Config, "settings.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("settings.json written by a refused save: %v", err)
	}
}

// Settings show what a start would apply: a saved value the start ignores
// is listed with why and is not in next; a settings file that cannot be
// read shows as empty with its problem, and a save puts it aside.
func TestSettings_WhatAStartIgnoresAndAnUnreadableFile(t *testing.T) {
	eng := openSnapEngine(t)
	s := settingsAPI{eng}
	file := filepath.Join(eng.Config.Paths.Config, "settings.json")
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"mode": "pro", "snapshot_keep": 0, "llm_model": "m1"}`)
	st, err := s.Get()
	if err != nil {
		t.Fatal(err)
	}
	if st.Next["mode"] != "pro" || st.Next["llm_model"] != "m1" || st.Next["snapshot_keep"] == "0" || st.Ignored["snapshot_keep"] == "" || st.FileError != "" {
		t.Errorf("next %v ignored %v file error %q: want mode pro and the model next, snapshot_keep 0 ignored", st.Next, st.Ignored, st.FileError)
	}
	st, err = s.Put(map[string]string{"llm_model": "m2"})
	if err != nil || st.Saved["llm_model"] != "m2" || st.Saved["mode"] != "pro" || st.Saved["snapshot_keep"] != "" || len(st.Ignored) != 0 {
		t.Fatalf("a save beside an ignored setting: %+v %v, want it saved and the ignored one dropped", st, err)
	}
	const broken = `{"mode": "pro",, typed by hand`
	write(broken)
	st, err = s.Get()
	if err != nil || st.FileError == "" || len(st.Saved) != 0 {
		t.Fatalf("an unreadable file: %+v %v, want its problem and nothing saved", st, err)
	}
	st, err = s.Put(map[string]string{"snapshot_keep": "5"})
	if err != nil || st.Saved["snapshot_keep"] != "5" || st.FileError != "" {
		t.Fatalf("a save over an unreadable file: %+v %v", st, err)
	}
	if b, err := os.ReadFile(file + ".unreadable"); err != nil || string(b) != broken {
		t.Errorf("the unreadable file was not kept aside: %q %v", b, err)
	}
}

// A key given for this run only goes with the process: the settings say
// so, for the page to warn before Restart now.
func TestSettings_AKeyForThisRunOnlyIsReported(t *testing.T) {
	eng := openSnapEngine(t)
	s := settingsAPI{eng}
	if st, err := s.Get(); err != nil || st.KeyOnlyThisRun {
		t.Fatalf("no key handed: %+v %v", st, err)
	}
	if err := eng.x.keys.Hand("sk-this-run-only-0123456789"); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Get(); err != nil || !st.KeyOnlyThisRun {
		t.Errorf("a handed key: key_only_this_run = %v (%v), want true", st.KeyOnlyThisRun, err)
	}
	if err := eng.x.keys.Delete(); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Get(); st.KeyOnlyThisRun {
		t.Error("a forgotten key is still reported as given for this run")
	}
}
