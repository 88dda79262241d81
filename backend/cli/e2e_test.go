package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/memory"
	"hyatlas/backend/proctest"
)

func TestHeadless_PrintsAddress(t *testing.T) {
	in := newInstance(t)
	in.Start()
	for _, want := range []string{"running headless", "serving at " + in.Base(), "Dashboard: " + in.Base() + "/dashboard/?code="} {
		if !in.Out.WaitFor(want, 10*time.Second) {
			t.Errorf("output lacks %q:\n%s", want, in.Out.String())
		}
	}
}

// TestKill9_KeepsAcknowledgedWrites kills the server with SIGKILL while 8
// clients write; after a restart every acknowledged write is present,
// found by keyword and by vector, and the index agrees with the store.
func TestKill9_KeepsAcknowledgedWrites(t *testing.T) {
	// The lexical test embedder gives each unique token its own direction,
	// so every write can be found by its exact text.
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	c := in.Client()
	type ack struct{ id, text, token string }
	var (
		mu    sync.Mutex
		acked []ack
		total atomic.Int64
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	for w := range 8 {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				token := fmt.Sprintf("tok%dx%d", w, i)
				text := fmt.Sprintf("writer %d entry %d unique %s", w, i, token)
				res, err := c.Add(context.Background(), api.AddRequest{Text: &text, UserID: "kill9"})
				if err != nil {
					return // the server died mid-request: not acknowledged
				}
				mu.Lock()
				acked = append(acked, ack{res.MemoryID, text, token})
				mu.Unlock()
				total.Add(1)
			}
		}(w)
	}
	killWhenAcknowledged(t, in, &total, 400, &stop, &wg)

	in.Start("serve")
	c = in.Client()
	ctx := context.Background()
	for _, a := range acked {
		if _, err := c.Get(ctx, a.id); err != nil {
			t.Fatalf("acknowledged write %s lost: %v", a.id, err)
		}
		kw, err := c.Search(ctx, api.SearchRequest{Query: a.token, Reader: "keyword", UserID: "kill9"})
		if err != nil || len(kw.Ranked) == 0 || kw.Ranked[0] != a.id {
			t.Fatalf("%s not found by keyword %q: %v %v", a.id, a.token, kw.Ranked, err)
		}
	}
	// Vector search for a sample. The hash test embedder can put two
	// unique tokens in one bucket, so an exact twin may tie: require the
	// row among the perfect matches, not first.
	for i := 0; i < len(acked); i += 7 {
		a := acked[i]
		one := 0.99
		vs, err := c.Search(ctx, api.SearchRequest{Query: a.text, Reader: "vector", UserID: "kill9", MinScore: &one, Limit: 10})
		if err != nil || !slices.Contains(vs.Ranked, a.id) {
			t.Fatalf("%s not found by vector: %v %v", a.id, vs.Ranked, err)
		}
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.VDBPoints != st.Total || st.Total < len(acked) {
		t.Errorf("index holds %d, store %d live, %d acknowledged", st.VDBPoints, st.Total, len(acked))
	}
	if err := c.Ready(ctx); err != nil {
		t.Errorf("not ready after restart: %v", err)
	}
	t.Logf("%d acknowledged writes before SIGKILL, all present after restart", len(acked))
}

func TestSIGTERM_ShutsDownCleanly(t *testing.T) {
	in := newInstance(t)
	in.Start("serve")
	text := "remember me after a clean stop"
	if _, err := in.Client().Add(context.Background(), api.AddRequest{Text: &text}); err != nil {
		t.Fatal(err)
	}
	if err := in.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := in.Wait(15 * time.Second); code != 0 {
		t.Fatalf("exit code %d after SIGTERM; output:\n%s", code, in.Out.String())
	}
	if !strings.Contains(in.Out.String(), "stopping") {
		t.Errorf("no shutdown line:\n%s", in.Out.String())
	}
	// A clean stop checkpoints the WAL into the database file.
	if fi, err := os.Stat(filepath.Join(in.Home, "data", "hyatlas.db-wal")); err == nil && fi.Size() > 0 {
		t.Errorf("WAL not checkpointed: %d bytes left", fi.Size())
	}
	in.Start("serve")
	if out, code := in.Run("search", "--json", "clean stop"); code != 0 || !strings.Contains(out, "remember me after a clean stop") {
		t.Errorf("after restart: %d %s", code, out)
	}
	// The plain output is numbered in rank order, with falling scores.
	out, code := in.Run("search", "remember clean stop")
	if code != 0 || !strings.HasPrefix(out, " 1. ") || !strings.Contains(out, "remember me after a clean stop") {
		t.Errorf("plain search: %d %q", code, out)
	}
}

func TestSecondServerIsRefused(t *testing.T) {
	in := newInstance(t)
	in.Start("serve")
	out, code := in.Run("serve")
	if code != 1 || !strings.Contains(out, "already running") {
		t.Errorf("second serve: exit %d: %s", code, out)
	}
	// Another port, same data: the data directory's lock refuses it.
	other := *in
	other.Env = append(append([]string{}, in.Env...), fmt.Sprintf("HYATLAS_GO_PORT=%d", proctest.FreePort(t)))
	out, code = other.Run("serve")
	if code != 1 || !strings.Contains(out, "another HyAtlas is using this data directory") {
		t.Errorf("second serve on another port: exit %d: %s", code, out)
	}
}

func TestCLI_AgainstRunningServer(t *testing.T) {
	in := newInstance(t)
	in.Start("serve")
	out, code := in.Run("add", "--user", "u1", "--session", "s1", "Foxtrot", "uses", "Postgres", "16")
	m := regexp.MustCompile(`remembered (m\w+)`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("add: %d %s", code, out)
	}
	id := m[1]
	if out, code = in.Run("search", "postgres", "--user", "u1"); code != 0 || !strings.Contains(out, id) {
		t.Errorf("search (flag after query): %d %s", code, out)
	}
	if out, code = in.Run("list", "--user", "u1"); code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "1 of 1") {
		t.Errorf("list: %d %s", code, out)
	}
	if out, code = in.Run("retire", id, "--reason", "test"); code != 0 || !strings.Contains(out, "hyatlas restore "+id) {
		t.Errorf("retire: %d %s", code, out)
	}
	if out, _ = in.Run("search", "postgres"); !strings.Contains(out, "nothing relevant") {
		t.Errorf("retired row still recalled: %s", out)
	}
	if out, code = in.Run("restore", id); code != 0 || !strings.Contains(out, "restored "+id) {
		t.Errorf("restore: %d %s", code, out)
	}
	if out, code = in.Run("status"); code != 0 || !strings.Contains(out, "l2_raw") || !strings.Contains(out, "GloVe") || strings.Contains(out, "not semantic") {
		t.Errorf("status: %d %s", code, out)
	}
	if out, code = in.Run("retire", "m-unknown"); code != 1 || !strings.Contains(out, "not found") {
		t.Errorf("retire unknown: %d %s", code, out)
	}
	if out, code = in.Run("dashboard"); code != 0 || !strings.HasPrefix(out, in.Base()+"/dashboard/?code=") {
		t.Errorf("dashboard: %d %s", code, out)
	}
	echo := "piped text from stdin"
	if out, code = in.RunStdin(echo, "add", "-"); code != 0 || !strings.Contains(out, "remembered") {
		t.Errorf("add -: %d %s", code, out)
	}
}

// TestCLI_AtlasVerbs: add by hand, promote, demote, edit, filter, the
// prompt block and delete, against a running server.
func TestCLI_AtlasVerbs(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite")
	in.Start("serve")
	if out, code := in.Run("prompt", "--user", "u1"); code != 0 || !strings.Contains(out, "prompt block is empty") {
		t.Fatalf("empty prompt: %d %s", code, out)
	}
	out, code := in.Run("remember", "--user", "u1", "--category", "style", "--strength", "0.7", "Likes", "lowercase", "commits")
	m := regexp.MustCompile(`remembered (m\w+) \(l3_fact, style, strength 0.70\)`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("remember: %d %s", code, out)
	}
	id := m[1]
	if out, code = in.Run("promote", id); code != 0 || !strings.Contains(out, "strength 0.80") {
		t.Fatalf("promote: %d %s", code, out)
	}
	if out, code = in.Run("prompt", "--user", "u1"); code != 0 || out != "## Persistent Memory\n<persistent-memory>\n"+memory.PromptDataNote+"\n- (style) Likes lowercase commits\n</persistent-memory>\n" {
		t.Fatalf("prompt: %d %q", code, out)
	}
	if out, code = in.Run("demote", "--steps", "2", id); code != 0 || !strings.Contains(out, "strength 0.60") {
		t.Fatalf("demote: %d %s", code, out)
	}
	if out, code = in.Run("edit", id, "--content", "Writes lowercase commit messages", "--category", "preference"); code != 0 ||
		!strings.Contains(out, "preference") {
		t.Fatalf("edit: %d %s", code, out)
	}
	if out, code = in.Run("list", "--user", "u1", "--category", "preference", "--min-strength", "0.5", "--sort", "strength"); code != 0 ||
		!strings.Contains(out, id) || !strings.Contains(out, "0.60") {
		t.Fatalf("list: %d %s", code, out)
	}
	if out, code = in.Run("list", "--user", "u1", "--text", "tabs"); code != 0 || !strings.Contains(out, "0 of 0") {
		t.Fatalf("list --text: %d %s", code, out)
	}
	if out, code = in.Run("promote", "--steps", "20", id); code != 2 || !strings.Contains(out, "--steps must be from 1 to 10") {
		t.Fatalf("promote 20: %d %s", code, out)
	}
	if out, code = in.Run("delete", id); code != 0 || !strings.Contains(out, "deleted "+id) {
		t.Fatalf("delete: %d %s", code, out)
	}
	if out, code = in.Run("delete", id); code != 1 || !strings.Contains(out, "not found") {
		t.Fatalf("delete again: %d %s", code, out)
	}
}

func TestCLI_BadUsageStartsNothing(t *testing.T) {
	in := newInstance(t)
	for _, args := range [][]string{{"serve", "--bogus"}, {"serve", "extra"}, {"frobnicate"}, {"add"}, {"retire"},
		{"list", "--limit", "many"}, {"hyatlas"}, {"remember"}, {"promote"}, {"demote", "a", "b"}, {"edit", "m1"},
		{"remember", "--strength", "high", "x"}, {"list", "--min-strength", "x"}, {"delete"}, {"prompt", "extra"}} {
		out, code := in.Run(args...)
		if code != 2 || !strings.Contains(out, "usage") {
			t.Errorf("%v: exit %d, output %q", args, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(in.Home, "data")); err == nil {
		t.Error("bad usage created the data dir (started a server?)")
	}
}

func TestCLI_NoServer(t *testing.T) {
	in := newInstance(t)
	out, code := in.Run("status")
	if code != 1 || !strings.Contains(out, "not running") || !strings.Contains(out, "hyatlas serve") {
		t.Errorf("status with no server: %d %s", code, out)
	}
}

func TestCLI_TokenVersionHelp(t *testing.T) {
	in := newInstance(t)
	out, code := in.Run("token")
	tok := strings.TrimSpace(out)
	if code != 0 || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(tok) {
		t.Fatalf("token: %d %q", code, out)
	}
	fi, err := os.Stat(filepath.Join(in.Home, "config", api.TokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode: %v %v", fi.Mode(), err)
	}
	if again, _ := in.Run("token"); strings.TrimSpace(again) != tok {
		t.Error("token changed between runs")
	}
	if out, code := in.Run("version"); code != 0 || !strings.HasPrefix(out, "hyatlas ") {
		t.Errorf("version: %d %s", code, out)
	}
	if out, code := in.Run("help"); code != 0 || !strings.Contains(out, "serve") {
		t.Errorf("help: %d %s", code, out)
	}
}

// A new token from the command line is in force in the running instance
// at once: the old one gets 401, the commands (which read the file) go on.
func TestCLI_NewToken(t *testing.T) {
	in := newInstance(t, "HYATLAS_MODE=lite")
	in.Start("serve")
	old, _ := in.Run("token")
	out, code := in.Run("token", "--new")
	fresh := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	if code != 0 || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(fresh) || fresh == strings.TrimSpace(old) || !strings.Contains(out, "no longer works") {
		t.Fatalf("token --new: %d %q", code, out)
	}
	if again, _ := in.Run("token"); strings.TrimSpace(again) != fresh {
		t.Errorf("token after --new: %q, want %q", again, fresh)
	}
	for _, tc := range []struct {
		token string
		want  int
	}{{strings.TrimSpace(old), 401}, {fresh, 200}} {
		hr, _ := http.NewRequest("GET", in.Base()+"/api/v1/status", nil)
		hr.Header.Set("Authorization", "Bearer "+tc.token)
		res, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("status with the %s token: %d, want %d", map[int]string{401: "old", 200: "new"}[tc.want], res.StatusCode, tc.want)
		}
	}
	if out, code := in.Run("status"); code != 0 {
		t.Errorf("status after a new token: %d %s", code, out)
	}
	if out, code := in.Run("token", "extra"); code != 2 || !strings.Contains(out, "wrong number of arguments") {
		t.Errorf("token with an argument: %d %s", code, out)
	}
}

// TestCLI_ExportImport: export from one instance, import into a fresh one
// (ids, times and search kept), import again (nothing doubled), a
// Markdown export, and a refused import.
func TestCLI_ExportImport(t *testing.T) {
	a := newInstance(t, "HYATLAS_MODE=lite")
	a.Start("serve")
	for _, text := range []string{"Foxtrot uses Postgres 16", "The standup moved to 10:00"} {
		if out, code := a.Run("add", "--user", "u1", text); code != 0 {
			t.Fatalf("add: %s", out)
		}
	}
	if out, code := a.Run("remember", "--user", "u1", "--strength", "0.9", "Prefers short answers"); code != 0 {
		t.Fatalf("remember: %s", out)
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if out, code := a.Run("export", "-o", file, "--vectors"); code != 0 || !strings.Contains(out, "exported to "+file) {
		t.Fatalf("export: %d %s", code, out)
	}
	md, code := a.Run("export", "--markdown")
	if code != 0 || !strings.Contains(md, "# HyAtlas memory") || !strings.Contains(md, "(fact, 0.90) Prefers short answers") {
		t.Fatalf("markdown export: %d %s", code, md)
	}
	listA, _ := a.Run("list", "--user", "u1", "--json")

	b := newInstance(t, "HYATLAS_MODE=lite")
	b.Start("serve")
	if out, code := b.Run("import", file); code != 0 || !strings.Contains(out, "imported 3 memories (0 were already here") {
		t.Fatalf("import: %d %s", code, out)
	}
	if out, code := b.Run("import", file); code != 0 || !strings.Contains(out, "imported 0 memories (3 were already here") {
		t.Fatalf("import again: %d %s", code, out)
	}
	listB, _ := b.Run("list", "--user", "u1", "--json")
	var la, lb struct {
		Total    int `json:"total"`
		Memories []struct {
			ID      string `json:"memory_id"`
			Content string `json:"content"`
			TS      string `json:"ts"`
		} `json:"memories"`
	}
	if json.Unmarshal([]byte(listA), &la) != nil || json.Unmarshal([]byte(listB), &lb) != nil || la.Total != 3 || lb.Total != 3 {
		t.Fatalf("lists:\n%s\n%s", listA, listB)
	}
	if !reflect.DeepEqual(la, lb) {
		t.Errorf("the lists differ after the round trip:\n%s\n%s", listA, listB)
	}
	searchA, _ := a.Run("search", "--user", "u1", "--json", "which database does Foxtrot use")
	searchB, _ := b.Run("search", "--user", "u1", "--json", "which database does Foxtrot use")
	if !strings.Contains(searchB, "Postgres 16") || idsOf(searchA) != idsOf(searchB) {
		t.Errorf("search differs:\n%s\n%s", searchA, searchB)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"type\":\"memory\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := b.Run("import", bad); code != 1 || !strings.Contains(out, "line 1") {
		t.Fatalf("bad import: %d %s", code, out)
	}
}

// idsOf lists the memory ids in a JSON answer, in order.
func idsOf(s string) string {
	return strings.Join(regexp.MustCompile(`"memory_id":"(m\w+)"`).FindAllString(s, -1), ",")
}
