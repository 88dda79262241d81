package cli_test

// The command line as a user meets it: texts that start with a dash,
// empty arguments, help, exports through links and pipes, messages for
// paths, the key with nothing running, raw turns in a list, errors of an
// offline download.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"hyatlas/backend/proctest"
)

// runSplit runs the binary of in with stdin and returns stdout, stderr and the
// exit code separately (proctest's Run merges the two streams).
func runSplit(t *testing.T, in *proctest.Instance, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(in.Binary, args...)
	cmd.Env = in.Env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errOut.String(), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

// An empty query, an empty new text and a strength range that can never
// match are bad usage (exit 2), found before anything is sent, with or
// without a running HyAtlas.
func TestCLIEmptyTextIsUsageEverywhere(t *testing.T) {
	in := newInstance(t) // no server: bad usage must be found without one
	for _, args := range [][]string{
		{"search", ""},
		{"search", "   "},
		{"edit", "--content", "", "m1"},
		{"edit", "--content", "  ", "m1"},
		{"list", "--min-strength", "0.8", "--max-strength", "0.2"},
	} {
		out, errOut, code := runSplit(t, in, "", args...)
		if code != 2 {
			t.Errorf("hyatlas %q: exit %d, want 2 (bad usage); stdout %q stderr %q", args, code, out, errOut)
		}
	}
}

// `hyatlas help help` is help, and the top-level help says how to see a
// command's flags.
func TestCLIHelpForHelp(t *testing.T) {
	in := newInstance(t)
	out, errOut, code := runSplit(t, in, "", "help", "help")
	if code != 0 || strings.Contains(errOut, "unknown command") {
		t.Errorf("hyatlas help help: exit %d, stderr %q; want exit 0 and help on stdout", code, firstLine(errOut))
	}
	out, _, _ = runSplit(t, in, "", "help")
	if !strings.Contains(out, "help COMMAND") && !strings.Contains(out, "COMMAND -h") {
		t.Errorf("hyatlas help does not say how to see a command's flags (help COMMAND / COMMAND -h):\n%s", out)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// A text that starts with a dash ("- buy milk", "-5 degrees tonight") is
// stored, not refused as an unknown flag (or the refusal says to put --
// before it).
func TestCLITextStartingWithDash(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	for _, text := range []string{"- buy milk", "-5 degrees tonight"} {
		out, errOut, code := runSplit(t, in, "", "add", text)
		if code == 0 {
			continue
		}
		if !strings.Contains(errOut, "--") || strings.Contains(errOut, "flag provided but not defined: "+text) {
			t.Errorf("hyatlas add %q: exit %d, stderr %q (stdout %q); want it stored, or told to put -- before it", text, code, strings.TrimSpace(errOut), out)
		}
	}
}

// `export -o PATH` through a symbolic link writes the file it points to
// and keeps the link; into a named pipe (a backup tool, gzip reading it)
// it writes into the pipe, never replacing it with a plain file.
func TestCLIExportThroughSymlinkAndPipe(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	if _, code := in.Run("add", "Foxtrot uses Postgres 16"); code != 0 {
		t.Fatal("add failed")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "backups", "memory.jsonl")
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "memory.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runSplit(t, in, "", "export", "-o", link); code != 0 {
		t.Fatalf("export -o symlink: exit %d %q %q", code, out, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("export -o %s replaced the symlink with a plain file (mode %v)", link, fi.Mode())
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), "Foxtrot") {
		t.Errorf("the file the symlink points to was not updated: %q", b)
	}

	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	got := make(chan string, 1)
	go func() { // a reader, as a backup tool or gzip would be
		f, err := os.Open(fifo)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(f)
		got <- b.String()
	}()
	out, errOut, code := runSplit(t, in, "", "export", "-o", fifo)
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("export -o FIFO (exit %d, %q %q) replaced the pipe with a plain file: the reader gets nothing", code, out, errOut)
		return // the reader waits on the old pipe forever; leave it
	}
	select {
	case s := <-got:
		if !strings.Contains(s, "Foxtrot") {
			t.Errorf("the pipe's reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Error("the pipe's reader got nothing")
	}
}

// An export into a folder that does not exist says so without naming an
// internal temporary file; importing a directory is bad usage (exit 2),
// found before HyAtlas is asked, as export -o DIR is.
func TestCLIExportImportPathMessages(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	missing := filepath.Join(t.TempDir(), "nodir", "x.jsonl")
	_, errOut, code := runSplit(t, in, "", "export", "-o", missing)
	if code != 1 || strings.Contains(errOut, ".x.jsonl.") || strings.Contains(errOut, "usage:") || !strings.Contains(errOut, "does not exist") {
		t.Errorf("export -o into a missing folder: exit %d, stderr %q; want exit 1 saying the folder does not exist, no usage line", code, strings.TrimSpace(errOut))
	}
	// A write this side fails (a full disk): the message says so, not
	// that HyAtlas failed.
	in.Run("remember", "an export needs something in it")
	_, errOut, code = runSplit(t, in, "", "export", "-o", "/dev/full")
	if code != 1 || !strings.Contains(errOut, "could not write the export") || strings.Contains(errOut, "HyAtlas failed") {
		t.Errorf("export -o /dev/full: exit %d, stderr %q; want the local write named", code, strings.TrimSpace(errOut))
	}
	dir := t.TempDir()
	_, errOut, code = runSplit(t, in, "", "import", dir)
	if code != 2 || strings.Contains(errOut, "/api/v1/import") {
		t.Errorf("import DIR: exit %d, stderr %q; want exit 2 and a plain 'is a directory' (as export -o DIR does)", code, strings.TrimSpace(errOut))
	}
}

// With nothing running and no OS keyring, `key set` names what works:
// HYATLAS_LLM_KEY_FILE, or starting HyAtlas before --memory-only (which
// alone would fail at once).
func TestCLIKeySetOfflineAdviceIsCircular(t *testing.T) {
	if _, err := os.Stat(fmt.Sprintf("/run/user/%d/bus", os.Getuid())); err == nil {
		t.Skip("a session bus exists here: key set could write into the real keyring")
	}
	in := newInstance(t) // nothing running, no DBUS_SESSION_BUS_ADDRESS
	out, errOut, code := runSplit(t, in, "sk-review-test\n", "key", "set")
	if code == 0 {
		t.Skip("a keyring took the key")
	}
	msg := out + errOut
	if strings.Contains(msg, "key set --memory-only") && !regexp.MustCompile(`(?i)start|running|hyatlas serve`).MatchString(msg) {
		t.Errorf("offline `key set` advises `hyatlas key set --memory-only` without saying HyAtlas must run first:\n%s", msg)
	}
	_, errOut2, _ := runSplit(t, in, "sk-review-test\n", "key", "set", "--memory-only")
	if strings.Contains(errOut2, "none runs") && !strings.Contains(msg, "HYATLAS_LLM_KEY_FILE") {
		t.Errorf("following the advice fails (%q) and the first message named no lasting way", strings.TrimSpace(errOut2))
	}
}

// With nothing running, `key status` reports the key the next start will
// use: from HYATLAS_LLM_KEY or HYATLAS_LLM_KEY_FILE too, not the keyring
// alone.
func TestCLIKeyStatusOfflineIgnoresEnvKey(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "llm-key")
	if err := os.WriteFile(keyFile, []byte("sk-review-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{"HYATLAS_LLM_KEY=sk-review-env", "HYATLAS_LLM_KEY_FILE=" + keyFile} {
		in := newInstance(t, env) // nothing running
		out, errOut, code := runSplit(t, in, "", "key", "status")
		if code != 0 || strings.Contains(out, "key: not set") {
			t.Errorf("%s, nothing running: `key status` says %q (exit %d, %q); the next start uses that key", strings.SplitN(env, "=", 2)[0], firstLine(out), code, errOut)
		}
	}
}

// `list` shows no strength for conversation turns, which have none (a
// promote of one is refused).
func TestCLIListShowsStrengthOfRawRows(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	out, code := in.Run("add", "--json", "a conversation turn")
	if code != 0 {
		t.Fatal(out)
	}
	out, _, code = runSplit(t, in, "", "list", "--layer", "l2_raw")
	if code != 0 {
		t.Fatal(out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "a conversation turn") && regexp.MustCompile(`\s0\.50\s`).MatchString(line) {
			t.Errorf("list shows a strength for a raw turn, which has none: %q", line)
		}
	}
}

// An offline model download that fails says why once, in words, without
// the machine code.
func TestCLIModelsOfflineErrorIsReadable(t *testing.T) {
	closed := fmt.Sprintf("http://127.0.0.1:%d/", proctest.FreePort(t))
	in := newInstance(t, "HYATLAS_MODELS_BASE="+closed) // nothing running
	_, errOut, code := runSplit(t, in, "", "models", "install", "bge-small")
	if code != 1 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if strings.HasPrefix(errOut, "hyatlas: unavailable:") {
		t.Errorf("the error shows the machine code: %q", firstLine(errOut))
	}
	if n := strings.Count(errOut, "connection refused"); n > 1 {
		t.Errorf("the same error is printed %d times:\n%s", n, errOut)
	}
}

// A memory's text reaches the terminal with its control characters shown,
// never run: an agent's text cannot retitle the terminal or fake output.
func TestCLIShowsControlCharactersInMemories(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	if out, errOut, code := runSplit(t, in, "tea\x1b]0;pwned\x07 at eight", "add", "-"); code != 0 {
		t.Fatal(out, errOut)
	}
	for _, args := range [][]string{{"list"}, {"search", "tea"}} {
		out, errOut, code := runSplit(t, in, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, errOut)
		}
		if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "tea␛]0;pwned␇ at eight") {
			t.Errorf("`hyatlas %s` shows the text as %q", strings.Join(args, " "), out)
		}
	}
}

// With nothing running, `key status` says why a key file it names is not
// used (missing, or another program's JSON), never just "not set".
func TestCLIKeyStatusOfflineSaysWhyAKeyFileIsNotUsed(t *testing.T) {
	dir := t.TempDir()
	jsonFile := filepath.Join(dir, "credentials.json")
	if err := os.WriteFile(jsonFile, []byte(`{"api_key":"sk-review-json"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, why := range map[string]string{filepath.Join(dir, "missing"): "cannot be read", jsonFile: "JSON credential file"} {
		in := newInstance(t, "HYATLAS_LLM_KEY_FILE="+file) // nothing running
		out, errOut, _ := runSplit(t, in, "", "key", "status")
		if !strings.Contains(errOut, file) || !strings.Contains(errOut, why) {
			t.Errorf("%s: `key status` says %q and %q; want why the file is not used (%s)", file, out, errOut, why)
		}
		if strings.Contains(out+errOut, "sk-review-json") {
			t.Errorf("`key status` shows the key: %q %q", out, errOut)
		}
	}
}

// A nudge at a bound says it changed nothing, and an edited conversation
// turn shows no strength (it has none).
func TestCLINudgeAtABoundAndEditOfARawRowSayWhatHappened(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	out, code := in.Run("remember", "--strength", "1", "Foxtrot ships on Fridays")
	id := regexp.MustCompile(`remembered (\S+)`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatal(out)
	}
	if out, code := in.Run("promote", id[1]); code != 0 || !strings.Contains(out, "strength 1.00 (the most it can be)") {
		t.Errorf("promote at 1.0: exit %d, %q", code, out)
	}
	out, code = in.Run("add", "--json", "a conversation turn")
	raw := regexp.MustCompile(`"memory_id":\s*"([^"]+)"`).FindStringSubmatch(out)
	if code != 0 || raw == nil {
		t.Fatal(out)
	}
	if out, code := in.Run("edit", "--content", "a conversation turn, corrected", raw[1]); code != 0 || strings.Contains(out, "strength") || strings.Contains(out, "(,") {
		t.Errorf("edit of a raw turn: exit %d, %q; want no strength", code, out)
	}
}
