package memory

import "strings"

// Layer is one of the eight memory layers. Every memory row lives in exactly
// one layer; the layer says what the row is and who writes it.
//
// Only L2 (raw) is written by every write. L1, L3, L7 and L8 come from
// extraction, L4 from episodes and consolidation, L5 and L6 from the ultra
// slow path. The identifiers are the wire names of the public HyAtlas
// contract and must not change.
type Layer string

// The eight layers, in order.
const (
	LayerProfile   Layer = "l1_profile"
	LayerRaw       Layer = "l2_raw"
	LayerFact      Layer = "l3_fact"
	LayerSummary   Layer = "l4_summary"
	LayerKnowledge Layer = "l5_knowledge"
	LayerSchema    Layer = "l6_schema"
	LayerIntention Layer = "l7_intention"
	LayerEntity    Layer = "l8_entity"
)

// Layers lists every layer in order, L1 first.
var Layers = []Layer{
	LayerProfile, LayerRaw, LayerFact, LayerSummary,
	LayerKnowledge, LayerSchema, LayerIntention, LayerEntity,
}

var layerTitles = map[Layer]string{
	LayerProfile:   "Profile",
	LayerRaw:       "Raw",
	LayerFact:      "Fact",
	LayerSummary:   "Summary",
	LayerKnowledge: "Knowledge",
	LayerSchema:    "Schema",
	LayerIntention: "Intention",
	LayerEntity:    "Entity",
}

// Valid reports whether l is one of the eight layers.
func (l Layer) Valid() bool {
	_, ok := layerTitles[l]
	return ok
}

// Title is the human name of the layer ("Profile", "Raw", ...).
func (l Layer) Title() string { return layerTitles[l] }

// ParseLayer turns a wire name into a Layer. The empty string and "all" mean
// "no layer filter" and return "" without error; anything else that is not one
// of the eight names is an EINVALID error that lists the valid names.
func ParseLayer(s string) (Layer, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "" || s == "all" || s == "*" {
		return "", nil
	}
	l := Layer(s)
	if !l.Valid() {
		return "", Errorf(EINVALID, "unknown layer %q (valid: %s)", s, layerNames())
	}
	return l, nil
}

func layerNames() string {
	names := make([]string, len(Layers))
	for i, l := range Layers {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

// Channel is a group of search results, shown in the order given by
// ChannelOrder. Channels are part of the public wire contract.
type Channel string

// The result channels.
const (
	ChannelPages       Channel = "pages"
	ChannelProfile     Channel = "profile"
	ChannelProactive   Channel = "proactive"
	ChannelExperiences Channel = "experiences"
	ChannelNormal      Channel = "normal"
)

// ChannelOrder is the order in which a client shows the channels.
var ChannelOrder = []Channel{
	ChannelPages, ChannelProfile, ChannelProactive, ChannelExperiences, ChannelNormal,
}

// CategoryExperience marks a memory as a reusable task experience.
const CategoryExperience = "experience"

// ChannelOf says which channel a memory is reported in: entity pages under
// pages; profile rows and schemas under profile; intentions under proactive;
// task experiences under experiences; everything else under normal.
func ChannelOf(m Memory) Channel {
	switch {
	case m.Layer == LayerEntity:
		return ChannelPages
	case m.Layer == LayerProfile || m.Layer == LayerSchema:
		return ChannelProfile
	case m.Layer == LayerIntention:
		return ChannelProactive
	case m.Category == CategoryExperience:
		return ChannelExperiences
	default:
		return ChannelNormal
	}
}
