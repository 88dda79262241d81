package bench

import (
	"math"
	"math/rand"
	"strings"
)

// corpus makes deterministic synthetic memories: words drawn from a Zipf
// distribution over a made-up vocabulary, with the most frequent ranks left
// out as English stop words would be, so that keyword queries touch a
// realistic share of rows (the commonest content word is in about 2-3% of
// rows, as in conversational text).
type corpus struct {
	rng   *rand.Rand
	words []string
	cdf   []float64
}

const (
	vocabSize    = 20000
	skippedRanks = 100
)

func newCorpus(seed int64) *corpus {
	rng := rand.New(rand.NewSource(seed))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "pe", "da", "gu", "zo", "fi", "ba", "te", "ri", "xo", "ly"}
	seen := map[string]bool{}
	var words []string
	for len(words) < vocabSize {
		n := 2 + rng.Intn(3)
		var b strings.Builder
		for range n {
			b.WriteString(syll[rng.Intn(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	c := &corpus{rng: rng, words: words[skippedRanks:], cdf: make([]float64, vocabSize-skippedRanks)}
	total := 0.0
	for i := range c.cdf {
		total += 1 / float64(i+skippedRanks+1)
		c.cdf[i] = total
	}
	for i := range c.cdf {
		c.cdf[i] /= total
	}
	return c
}

func (c *corpus) word() string {
	x := c.rng.Float64()
	lo, hi := 0, len(c.cdf)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if c.cdf[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return c.words[lo]
}

// text returns a memory of min..max words.
func (c *corpus) text(min, max int) string {
	n := min + c.rng.Intn(max-min+1)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = c.word()
	}
	return strings.Join(ws, " ")
}

// percentile returns the p-th percentile (0..100) of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
