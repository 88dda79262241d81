package memory

import (
	"reflect"
	"testing"
	"time"
)

func TestParseLayer(t *testing.T) {
	tests := []struct {
		in      string
		want    Layer
		wantErr bool
	}{
		{"", "", false},
		{"all", "", false},
		{"*", "", false},
		{"l2_raw", LayerRaw, false},
		{" L8_Entity ", LayerEntity, false},
		{"l9_dream", "", true},
		{"raw", "", true},
	}
	for _, tt := range tests {
		got, err := ParseLayer(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseLayer(%q) = %q, %v; want %q, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && ErrorCode(err) != EINVALID {
			t.Errorf("ParseLayer(%q) code = %s, want invalid", tt.in, ErrorCode(err))
		}
	}
	if len(Layers) != 8 {
		t.Fatalf("want 8 layers, have %d", len(Layers))
	}
}

func TestParseAliases(t *testing.T) {
	tests := []struct {
		in      string
		expand  []string
		want    []string
		wantErr bool
	}{
		{"", []string{"a"}, []string{"a"}, false},
		{"a,b;c,d", []string{"a"}, []string{"a", "b"}, false},
		{"a, b ; c,d", []string{"d"}, []string{"c", "d"}, false},
		{"a,b;b,c", []string{"a"}, []string{"a", "b", "c"}, false}, // groups sharing an id are one
		{"a,b;c,d;d,a", []string{"b"}, []string{"a", "b", "c", "d"}, false},
		{"a,b;c,d", []string{"c"}, []string{"c", "d"}, false},
		{"a,b;b,c", []string{"b"}, []string{"a", "b", "c"}, false},
		{"a,b", []string{"a", "x"}, []string{"a", "b", "x"}, false},
		{"a,b", []string{"", " "}, nil, false},
		{"a;b,c", nil, nil, true},
	}
	for _, tt := range tests {
		a, err := ParseAliases(tt.in)
		if (err != nil) != tt.wantErr {
			t.Fatalf("ParseAliases(%q) err = %v, want error %v", tt.in, err, tt.wantErr)
		}
		if err != nil {
			continue
		}
		if got := a.Expand(tt.expand...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseAliases(%q).Expand(%q) = %q, want %q", tt.in, tt.expand, got, tt.want)
		}
	}
}

func TestKeywordTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"HYATLAS_SYNC_EXTRACT", []string{"hyatlas", "sync", "extract"}},
		{"What is the database of Foxtrot?", []string{"database", "foxtrot"}},
		{"ok thanks", nil},
		{"a b c x", nil},
		{"Postgres postgres POSTGRES 16", []string{"postgres", "16"}},
		{"café naïve", []string{"café", "naïve"}},
	}
	for _, tt := range tests {
		if got := KeywordTerms(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("KeywordTerms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestChannelOf(t *testing.T) {
	tests := []struct {
		m    Memory
		want Channel
	}{
		{Memory{Layer: LayerEntity}, ChannelPages},
		{Memory{Layer: LayerProfile}, ChannelProfile},
		{Memory{Layer: LayerSchema}, ChannelProfile},
		{Memory{Layer: LayerIntention}, ChannelProactive},
		{Memory{Layer: LayerFact, Category: CategoryExperience}, ChannelExperiences},
		{Memory{Layer: LayerFact}, ChannelNormal},
		{Memory{Layer: LayerRaw}, ChannelNormal},
		{Memory{Layer: LayerKnowledge}, ChannelNormal},
	}
	for _, tt := range tests {
		if got := ChannelOf(tt.m); got != tt.want {
			t.Errorf("ChannelOf(%s/%q) = %s, want %s", tt.m.Layer, tt.m.Category, got, tt.want)
		}
	}
}

func TestParseModeReaderHow(t *testing.T) {
	if m, err := ParseMode("", ModeUltra); err != nil || m != ModeUltra {
		t.Errorf("empty mode = %s, %v", m, err)
	}
	if m, err := ParseMode(" PRO ", ModeUltra); err != nil || m != ModePro {
		t.Errorf("PRO = %s, %v", m, err)
	}
	if _, err := ParseMode("turbo", ModeUltra); ErrorCode(err) != EINVALID {
		t.Errorf("turbo: err = %v", err)
	}
	readers := map[string]Reader{"": ReaderHybrid, "hybrid": ReaderHybrid, "legacy": ReaderVector,
		"semantic": ReaderVector, "vector": ReaderVector, "hybrid_tag": ReaderKeyword, "keyword": ReaderKeyword}
	for in, want := range readers {
		if got, err := ParseReader(in); err != nil || got != want {
			t.Errorf("ParseReader(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	if got, err := ParseReader("hybrid_v2"); err != nil || got != ReaderHybrid { // the public contract: any other value is hybrid
		t.Errorf("ParseReader(hybrid_v2) = %s, %v", got, err)
	}
	if h, err := ParseRetireHow("", RetiredDropped); err != nil || h != RetiredDropped {
		t.Errorf("default how = %s, %v", h, err)
	}
	if _, err := ParseRetireHow("vanished", RetiredDropped); ErrorCode(err) != EINVALID {
		t.Errorf("unknown how err = %v", err)
	}
}

func TestNewIDFormat(t *testing.T) {
	now := time.Date(2026, 11, 30, 6, 15, 0, 0, time.UTC)
	a, b := NewID(now), NewID(now)
	if len(a) != 23 || a[:15] != "m20261130061500" {
		t.Errorf("NewID = %q, want m20261130061500 + 8 hex", a)
	}
	if a == b {
		t.Errorf("two ids in the same second are equal: %q", a)
	}
}

func TestScopeCovers(t *testing.T) {
	o := Owner{UserID: "u1", AgentID: "hermes"}
	tests := []struct {
		s    Scope
		want bool
	}{
		{Scope{}, true},
		{Scope{UserIDs: []string{"u1", "u2"}}, true},
		{Scope{UserIDs: []string{"u2"}}, false},
		{Scope{AgentID: "hermes"}, true},
		{Scope{AgentID: "other"}, false},
		{Scope{UserIDs: []string{"u1"}, AgentID: "other"}, false},
	}
	for _, tt := range tests {
		if got := tt.s.Covers(o); got != tt.want {
			t.Errorf("%+v.Covers(%+v) = %v, want %v", tt.s, o, got, tt.want)
		}
	}
}
