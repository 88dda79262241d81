package engine

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"hyatlas/backend/memory"
	"hyatlas/backend/snapshot"
)

// A snapshot's verify, restore and delete refuse a junk body with 400
// before they act: the restore used to run all the same, taking back
// what was written after the snapshot.
func TestSnapshot_AJunkBodyChangesNothing(t *testing.T) {
	ctx := context.Background()
	eng := openSnapEngine(t)
	if _, err := eng.Listen(); err != nil {
		t.Fatal(err)
	}
	snap, err := eng.CreateSnapshot(ctx, snapshot.ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Memory.Add(ctx, memory.AddInput{Text: "written after the snapshot"}); err != nil {
		t.Fatal(err)
	}
	before := stateOf(t, eng)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/api/v1/snapshots/" + snap.ID + "/restore", `{"oops":`},
		{"POST", "/api/v1/snapshots/" + snap.ID + "/restore", `[1]`},
		{"POST", "/api/v1/snapshots/" + snap.ID + "/verify", `[1,2`},
		{"DELETE", "/api/v1/snapshots/" + snap.ID, `{"a":`},
		{"POST", "/api/v1/snapshots", `"now"`},
	} {
		req, _ := http.NewRequest(c.method, eng.BaseURL()+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+eng.Token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s %s %s: %d, want 400", c.method, c.path, c.body, res.StatusCode)
		}
	}
	if got := stateOf(t, eng); !reflect.DeepEqual(got, before) {
		t.Error("a refused request changed the data")
	}
	list, err := eng.Snapshots()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != snap.ID {
		t.Errorf("snapshots after refused requests: %+v, want the one made", list)
	}
}
