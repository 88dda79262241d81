package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"hyatlas/backend/memory"
)

// Neighbours answers for every id asked, in either direction of a link,
// however many ids a call holds (they are asked ten at a time), and the
// same again on a second call (its statements are prepared once).
func TestNeighbours_LinksInBatches(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var rows []memory.NewRow
	var links []memory.Link
	at := t0.Add(time.Minute)
	for i := range 25 {
		rows = append(rows, row(fmt.Sprintf("a%02d", i), "a fact", inLayer(memory.LayerFact)),
			row(fmt.Sprintf("b%02d", i), "its neighbour", inLayer(memory.LayerFact)))
		links = append(links, memory.Link{A: fmt.Sprintf("a%02d", i), B: fmt.Sprintf("b%02d", i), Kind: "related", At: at})
	}
	insert(t, s, rows...)
	if _, err := s.Apply(ctx, memory.Changes{Links: links}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ids  []string
		want map[string][]string
	}{
		{"none", nil, map[string][]string{}},
		{"unknown", []string{"nope", ""}, map[string][]string{}},
		{"both directions", []string{"a00", "b01"}, map[string][]string{"a00": {"b00"}, "b01": {"a01"}}},
		{"more than a batch", func() []string {
			var ids []string
			for i := range 23 {
				ids = append(ids, fmt.Sprintf("a%02d", i))
			}
			return ids
		}(), func() map[string][]string {
			m := map[string][]string{}
			for i := range 23 {
				m[fmt.Sprintf("a%02d", i)] = []string{fmt.Sprintf("b%02d", i)}
			}
			return m
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 2 {
				got, err := s.Neighbours(ctx, tc.ids)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("Neighbours = %v, want %v", got, tc.want)
				}
				for id, w := range tc.want {
					if !slices.Equal(got[id], w) {
						t.Errorf("Neighbours[%s] = %v, want %v", id, got[id], w)
					}
				}
			}
		})
	}
}
