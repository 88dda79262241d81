package memory

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// sourceManual marks a memory a person added by hand.
const sourceManual = "manual"

// RememberInput is a memory added by hand (the Atlas's "add manually"):
// no LLM round trip, stored as is.
type RememberInput struct {
	Content  string
	Layer    string // "" is l3_fact; l1_profile, l3_fact, l6_schema or l7_intention
	Category string // "" is the layer's default: fact, preference, style or goal
	Strength *float64
	Owner    Owner
	Metadata map[string]string
	Source   string // "" is "manual"
	// RequestID names the write, as AddInput.RequestID does: the same
	// owner's write to the same layer with the same id, sent again because
	// its answer was lost, gets the row the first stored, and stores
	// nothing; another text under it is an ECONFLICT error.
	RequestID string
}

// manualLayers are the layers a person may add to by hand, with the
// category a row gets when none is given. Entity pages (L8) are built by
// extraction from their state; raw rows come through Add.
var manualLayers = map[Layer]string{
	LayerProfile:   CategoryPreference,
	LayerFact:      CategoryFact,
	LayerSchema:    CategoryStyle,
	LayerIntention: CategoryGoal,
}

// ManualLayer reads the layer of a memory added by hand: "" is l3_fact;
// only the layers of manualLayers are taken (EINVALID otherwise).
func ManualLayer(s string) (Layer, error) {
	if s == "" {
		return LayerFact, nil
	}
	l, err := ParseLayer(s)
	if err != nil {
		return "", err
	}
	if _, ok := manualLayers[l]; !ok {
		return "", Errorf(EINVALID, "a memory added by hand goes to l1_profile, l3_fact, l6_schema or l7_intention, not %s", l)
	}
	return l, nil
}

// Remember stores a memory added by hand, embedded and searchable at once,
// with source "manual" and the given strength (DefaultStrength if none).
func (s *Service) Remember(ctx context.Context, in RememberInput) (Memory, error) {
	text := strings.TrimSpace(in.Content)
	if text == "" {
		return Memory{}, Errorf(EBADREQUEST, "content required")
	}
	if !utf8.ValidString(text) {
		return Memory{}, Errorf(EINVALID, "content is not valid UTF-8")
	}
	layer, err := ManualLayer(in.Layer)
	if err != nil {
		return Memory{}, err
	}
	def := manualLayers[layer]
	category := strings.TrimSpace(in.Category)
	if category == "" {
		category = def
	}
	if err := checkLabel("category", category); err != nil || len(category) > maxCategoryLen {
		return Memory{}, Errorf(EINVALID, "category must be at most %d bytes of plain text", maxCategoryLen)
	}
	strength := DefaultStrength
	if in.Strength != nil {
		if st := *in.Strength; math.IsNaN(st) || st < 0 || st > 1 {
			return Memory{}, Errorf(EINVALID, "strength must be between 0 and 1")
		}
		strength = clampStrength(*in.Strength)
	}
	owner, err := cleanOwner(in.Owner)
	if err != nil {
		return Memory{}, err
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return Memory{}, err
	}
	if err := checkRequestID(in.Metadata, in.RequestID); err != nil {
		return Memory{}, err
	}
	if in.RequestID != "" {
		if prev, ok, err := s.store.RememberedByRequest(ctx, owner, layer, in.RequestID); err != nil || ok {
			return s.rememberedBefore(ctx, prev, text, in.RequestID, err)
		}
		in.Metadata = withRequestID(in.Metadata, in.RequestID)
	}
	source := strings.TrimSpace(in.Source)
	if source == "" {
		source = sourceManual
	}
	if err := checkLabel("source", source); err != nil {
		return Memory{}, err
	}
	now := s.now().UTC()
	m := Memory{ID: NewID(now), Layer: layer, Content: text, Owner: owner, Category: category, Strength: strength,
		Source: source, Metadata: in.Metadata, EventAt: now, CreatedAt: now, UpdatedAt: now, Extraction: ExtractSkipped}
	vec, err := s.embedOne(ctx, text, PurposeDocument)
	if err != nil {
		return Memory{}, err
	}
	if in.RequestID != "" {
		// The same request sent twice at once: one of them writes.
		s.requests.Lock()
		defer s.requests.Unlock()
		if prev, ok, err := s.store.RememberedByRequest(ctx, owner, layer, in.RequestID); err != nil || ok {
			return s.rememberedBefore(ctx, prev, text, in.RequestID, err)
		}
	}
	s.indexSync.RLock()
	defer s.indexSync.RUnlock()
	if vec, err = s.currentVector(ctx, vec, text); err != nil {
		return Memory{}, err
	}
	if err := s.store.Insert(ctx, NewRow{Memory: m, Vector: vec}); err != nil {
		return Memory{}, fmt.Errorf("store a memory added by hand: %w", err)
	}
	s.indexRow(m, vec)
	s.publish("memory.added", m)
	return m, nil
}

// rememberedBefore answers a Remember whose request id the owner sent
// before with the row it stored (as it is now), storing nothing; err is
// the lookup's. Another text than the one first stored is ECONFLICT.
func (s *Service) rememberedBefore(ctx context.Context, prev Memory, text, req string, err error) (Memory, error) {
	if err == nil {
		err = s.sameRequest(ctx, prev, text, req)
	}
	if err != nil {
		return Memory{}, err
	}
	return prev, nil
}
