package cli_test

// Changes that must survive a kill (SIGKILL) of the real binary whole or
// not at all.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"
)

// exportOfRaw builds a version-2 JSON Lines export of n raw memories
// (no vectors) and the three workspace files of each of agents agents.
func exportOfRaw(n, agents int) []byte {
	var b bytes.Buffer
	line := func(v any) {
		j, _ := json.Marshal(v)
		b.Write(j)
		b.WriteByte('\n')
	}
	line(map[string]any{"type": "header", "format": "hyatlas-export", "version": 2, "exported_at": "2026-01-01T00:00:00Z", "embedder": "none"})
	for i := range n {
		line(map[string]any{"type": "memory", "memory": map[string]any{
			"id": fmt.Sprintf("m20260101000000imp%08d", i), "layer": "l2_raw",
			"content": fmt.Sprintf("imported memory number %d about gardening", i),
			"owner":   map[string]any{"user_id": "imp", "agent_id": ""}, "strength": 0.5, "source": "api",
			"event_at": "2026-01-01T00:00:00Z", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
			"extraction": "skipped"}})
	}
	for a := range agents {
		for _, f := range []string{"SOUL.md", "MEMORY.md", "USER.md"} {
			line(map[string]any{"type": "workspace", "agent": fmt.Sprintf("agent%04d", a), "file": f,
				"content": fmt.Sprintf("%s of agent %d\n", f, a)})
		}
	}
	line(map[string]any{"type": "end", "memories": n, "files": agents * 3, "nodes": 0, "relations": 0, "links": 0})
	return b.Bytes()
}

// A forget is one change: killed (SIGKILL) while it runs over 3,000
// matching memories, HyAtlas comes back with all of them retired or none,
// never some forgotten and the rest still recalled.
func TestForgetIsAllOrNothingAcrossAKill(t *testing.T) {
	const memories = 3000
	in := newInstance(t, "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local")
	in.Start("serve")
	c := in.Client()
	req, _ := http.NewRequest("POST", in.Base()+"/api/v1/import", bytes.NewReader(exportOfRaw(memories, 0)))
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("import: %v %v", resp, err)
	}
	resp.Body.Close()
	go func() {
		_ = c.Do(context.Background(), "POST", "/api/v1/forget",
			map[string]any{"text": "about gardening", "contains": true, "user_id": "imp"}, nil)
	}()
	// Kill once the forget is under way.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := c.Status(context.Background())
		if err == nil && st.Retired > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the forget never started: %+v %v", st, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := in.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = in.Cmd.Wait()

	in.Start("serve")
	st, err := in.Client().Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Retired != 0 && st.Retired != memories {
		t.Errorf("half a forget after SIGKILL: %d of %d matching memories retired, %d still live", st.Retired, memories, st.Total)
	}
}
