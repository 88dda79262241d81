package memory

import "testing"

func TestSpeakerOf(t *testing.T) {
	for _, tc := range []struct {
		text, want string
	}{
		{"Melanie: I just signed up for a pottery class", "melanie"},
		{"USER: where did I put the key", ""}, // a role, not a person
		{"ASSISTANT: in the drawer", ""},
		{"Ada: USER: nested", "ada"},
		{"Dr. Ada Lovelace: the engine computes", "dr. ada lovelace"},
		{"Jean-Luc: make it so", "jean-luc"},
		{"O'Brien: the transporter is fixed", "o'brien"},
		{"Zoë: on my way", "zoë"},
		{"no speaker here", ""},
		{": empty name", ""},
		{"Decision 3: ship the release", ""},                   // a digit is no name
		{"https://example.org/a: a link", ""},                  // punctuation
		{"The four of us went to see: the lake, the hill", ""}, // more than three words
		{"A very long name that goes on and on past forty: x", ""},
		{"Melanie  Smith: two spaces", ""},
		{" Melanie: leading space", ""},
		{"-Melanie: dash first", ""},
		{"", ""},
	} {
		if got := speakerOf(tc.text); got != tc.want {
			t.Errorf("speakerOf(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
