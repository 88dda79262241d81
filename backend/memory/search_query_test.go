package memory

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestAsksWhen(t *testing.T) {
	cases := map[string]bool{
		"When did Caroline go to the support group?": true,
		"when is the dentist appointment":            true,
		"What year did Melanie start painting?":      true,
		"which month was the launch":                 true,
		"How long ago was the trip to Rome?":         true,
		"how long has Dana lived in Lisbon":          true,
		"What did Caroline research?":                false,
		"how many children does Melanie have":        false,
		"whenever the build breaks, who fixes it":    false,
		"what is the date format in the logs":        false,
		"":                                           false,
	}
	for q, want := range cases {
		if got := asksWhen(q); got != want {
			t.Errorf("asksWhen(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestQueryTerms_AtMostTheFirst64Distinct: the keyword legs read at most
// maxQueryTerms distinct terms of a query, the first ones after stop
// words, so a whole prompt pasted as a query costs the FTS5 index what 64
// words do; a repeated word is one term.
func TestQueryTerms_AtMostTheFirst64Distinct(t *testing.T) {
	var b strings.Builder
	b.WriteString("the the lunch lunch ")
	for i := range 30000 {
		fmt.Fprintf(&b, "w%dx ", i)
	}
	got := queryTerms(b.String())
	if len(got) != maxQueryTerms || maxQueryTerms != 64 {
		t.Fatalf("%d terms (cap %d), want 64", len(got), maxQueryTerms)
	}
	if got[0] != "lunch" || got[1] != "w0x" || got[63] != "w62x" {
		t.Errorf("kept %q … %q, want the first distinct terms in order", got[:2], got[63])
	}
	if short := queryTerms("what did Alice eat for lunch"); !slices.Equal(short, []string{"alice", "eat", "lunch"}) {
		t.Errorf("a short query's terms: %q", short)
	}
}

// TestAckSound: the sounds an acknowledgement is made of, as the Hermes
// plugin's _ACK_SOUND reads them (m*hm+|(ha)+).
func TestAckSound(t *testing.T) {
	for w, want := range map[string]bool{"hm": true, "hmm": true, "hmmmm": true, "mhm": true, "mmhmm": true, "ha": true,
		"hahaha": true, "h": false, "mh": false, "hmh": false, "hah": false, "ham": false, "m": false, "": false} {
		if got := ackSound(w); got != want {
			t.Errorf("ackSound(%q) = %v, want %v", w, got, want)
		}
	}
}
