package memory

import "testing"

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
