package memory

import "testing"

// A new fact retires a near one as restated only when they share most of
// their words, not just a shape an embedder scores alike.
func TestSameWords(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Alice drinks green tea every morning", "Alice drinks green tea each morning", true},
		{"Alice drinks green tea every morning", "alice DRINKS green tea, every morning!", true},
		{"Alice drinks tea in the afternoon", "Alice drinks coffee every morning at home", false},
		{"Likes tea", "Likes coffee", false},
		{"User likes tea", "User likes coffee", false},
		{"User has a cat", "User has a dog", false},
		{"User likes green tea", "User really likes green tea", true},
		{"用户住在柏林", "用户住在柏林。", true},
		{"用户住在柏林", "用户在巴黎工作", false},
	} {
		if got := sameWords(tc.a, tc.b); got != tc.want {
			t.Errorf("sameWords(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
