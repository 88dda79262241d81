package bench

import (
	"context"
	"fmt"
	"math/rand"

	"hyatlas/backend/memory"
)

// Off-topic queries ask about things the synthetic memories never
// mention: their words hold letters (c, h, w, q, j) that the synthetic
// vocabulary's syllables cannot make, and none is in the English list
// the memories draw from.
var (
	offTopicNouns = words(`chloroplast wrench quasar cathedral archipelago chromosome thermocouple hydraulics
		jurisprudence checksum ethanol quartz chess whale cheque architecture photosynthesis equinox hockey jazz
		chimney scaffolding orchestra chemistry hieroglyph jukebox trench torch switchboard mechanic chef watch`)
	offTopicVerbs = words(`calibrate synthesize charge catch weigh quench hatch switch fetch stitch`)
	offTopicForms = []string{
		"How does the %[1]s affect the %[2]s?",
		"Which %[1]s works best for a %[2]s?",
		"What is the %[1]s of a %[2]s?",
		"Why would anyone %[3]s the %[1]s near the %[2]s?",
		"How do I %[3]s a %[1]s?",
	}
)

func words(s string) []string {
	var out []string
	word := ""
	for _, r := range s + " " {
		if r == ' ' || r == '\n' || r == '\t' {
			if word != "" {
				out = append(out, word)
			}
			word = ""
			continue
		}
		word += string(r)
	}
	return out
}

// offTopicQueries makes n off-topic questions, deterministic for seed.
func offTopicQueries(n int, seed int64) []string {
	rng := rand.New(rand.NewSource(seed))
	out := make([]string, n)
	for i := range out {
		form := offTopicForms[rng.Intn(len(offTopicForms))]
		a := offTopicNouns[rng.Intn(len(offTopicNouns))]
		b := offTopicNouns[rng.Intn(len(offTopicNouns))]
		out[i] = fmt.Sprintf(form, a, b, offTopicVerbs[rng.Intn(len(offTopicVerbs))])
	}
	return out
}

// offTopicEmpty is the share of n off-topic queries that the default
// relevance gate answers with nothing.
func offTopicEmpty(ctx context.Context, svc *memory.Service, n int) (float64, error) {
	empty := 0
	for _, q := range offTopicQueries(n, 11) {
		res, err := svc.Search(ctx, memory.SearchInput{Query: q, Limit: 10})
		if err != nil {
			return 0, fmt.Errorf("off-topic search: %w", err)
		}
		if len(res.Hits) == 0 {
			empty++
		}
	}
	return float64(empty) / float64(n), nil
}
