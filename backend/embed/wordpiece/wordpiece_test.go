package wordpiece

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

// smallVocab: ids are the indices, written next to each row.
var smallVocab = []string{
	"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", // 0-4
	"hello", "world", ",", "!", "'", // 5-9
	"don", "t", "un", "##aff", "##able", // 10-14
	"cafe", "café", "na", "##ive", "中", // 15-19 ("café" is a trap: accents must go)
	"the", "a", ".", "?", "run", // 20-24
	"##ning", "##s", "cat", "is", "u", // 25-29 ("u" is a trap for longest match)
	"##a", "##ff", "x", "##x", "$", // 30-34
	"[", "]", "cls", "good", "-", // 35-39
	"日", "##本", // 40-41 ("##本" must not be used: CJK chars are words of their own)
}

func loadVocab(t testing.TB, toks []string) *Vocab {
	t.Helper()
	v, err := Load(strings.NewReader(strings.Join(toks, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEncode(t *testing.T) {
	v := loadVocab(t, smallVocab)
	x100 := strings.Repeat("x", 100)
	want100 := append([]int64{2, 32}, slices.Repeat([]int64{33}, 99)...)
	want100 = append(want100, 3)
	cases := []struct {
		name   string
		text   string
		maxLen int
		want   []int64
	}{
		{"accents", "Café naïve", 0, []int64{2, 15, 17, 18, 3}},
		{"accents upper", "CAFÉ NAÏVE", 0, []int64{2, 15, 17, 18, 3}},
		{"accents decomposed", "Cafe\u0301 nai\u0308ve", 0, []int64{2, 15, 17, 18, 3}},
		{"cjk unknown char", "中文", 0, []int64{2, 19, 1, 3}},
		{"cjk no continuation", "日本", 0, []int64{2, 40, 1, 3}},
		{"cjk inside word", "hello中world", 0, []int64{2, 5, 19, 6, 3}},
		{"punct", "hello,world!", 0, []int64{2, 5, 7, 6, 8, 3}},
		{"apostrophe", "don't", 0, []int64{2, 10, 9, 11, 3}},
		{"ascii symbol is punct", "a$cat-", 0, []int64{2, 21, 34, 27, 39, 3}},
		{"unicode punct", "hello…world", 0, []int64{2, 5, 1, 6, 3}},
		{"pieces", "unaffable", 0, []int64{2, 12, 13, 14, 3}},
		{"pieces 2", "Running cats", 0, []int64{2, 24, 25, 27, 26, 3}},
		{"repeated piece", "xxx", 0, []int64{2, 32, 33, 33, 3}},
		{"unknown word", "zebra", 0, []int64{2, 1, 3}},
		{"partly known word", "unaffablez the", 0, []int64{2, 1, 20, 3}},
		{"100 runes", x100, 0, want100},
		{"101 runes", x100 + "x", 0, []int64{2, 1, 3}},
		{"100 runes after accent strip", x100 + "\u0301", 0, want100},
		{"nul and controls", "hel\x00lo wor\x07ld\x1b", 0, []int64{2, 5, 6, 3}},
		{"format chars, fffd", "hel\u200blo\ufffd \u00adworld", 0, []int64{2, 5, 6, 3}},
		{"invalid utf8", "hel\xfflo", 0, []int64{2, 5, 3}},
		{"vt and ff are controls", "hel\vlo\fworld", 0, []int64{2, 1, 3}},
		{"whitespace", "\thello\nworld\r\nthe\u00a0cat\u2028is\u3000good ", 0,
			[]int64{2, 5, 6, 20, 27, 28, 38, 3}},
		{"empty", "", 0, []int64{2, 3}},
		{"blank", " \t\n\x00", 0, []int64{2, 3}},
		{"truncate", "the cat is good .", 5, []int64{2, 20, 27, 28, 3}},
		{"truncate inside word", "unaffable", 4, []int64{2, 12, 13, 3}},
		{"truncate exact fit", "the cat is", 5, []int64{2, 20, 27, 28, 3}},
		{"maxLen 2", "the cat", 2, []int64{2, 3}},
		{"maxLen 1", "the cat", 1, []int64{2, 3}},
		{"special in text", "hello [MASK] world", 0, []int64{2, 5, 4, 6, 3}},
		{"special glued", "hello[SEP]world[UNK]", 0, []int64{2, 5, 3, 6, 1, 3}},
		{"special lower case is text", "[cls]", 0, []int64{2, 35, 37, 36, 3}},
		{"broken special", "[CL\x00S]", 0, []int64{2, 35, 37, 36, 3}},
		{"special truncated", "[SEP] the cat", 4, []int64{2, 3, 20, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := v.Encode(c.text, c.maxLen)
			if !slices.Equal(got, c.want) {
				t.Errorf("Encode(%q, %d) = %v, want %v (pieces %q)", c.text, c.maxLen, got, c.want, v.Tokenize(c.text))
			}
		})
	}
}

func TestEncodeBatch(t *testing.T) {
	v := loadVocab(t, smallVocab)
	texts := []string{"hello world", "", "unaffable cat"}
	ids, mask, types, b, n := v.EncodeBatch(texts, 0)
	wantIDs := []int64{
		2, 5, 6, 3, 0, 0,
		2, 3, 0, 0, 0, 0,
		2, 12, 13, 14, 27, 3,
	}
	wantMask := []int64{
		1, 1, 1, 1, 0, 0,
		1, 1, 0, 0, 0, 0,
		1, 1, 1, 1, 1, 1,
	}
	if b != 3 || n != 6 || !slices.Equal(ids, wantIDs) || !slices.Equal(mask, wantMask) ||
		!slices.Equal(types, make([]int64, 18)) {
		t.Fatalf("EncodeBatch = %v %v %v %d %d", ids, mask, types, b, n)
	}
	for i, s := range texts { // each row agrees with Encode
		row := v.Encode(s, 0)
		if !slices.Equal(ids[i*n:i*n+len(row)], row) {
			t.Errorf("row %d = %v, Encode = %v", i, ids[i*n:(i+1)*n], row)
		}
	}

	ids, mask, _, b, n = v.EncodeBatch(texts, 4)
	wantIDs = []int64{2, 5, 6, 3, 2, 3, 0, 0, 2, 12, 13, 3}
	wantMask = []int64{1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1}
	if b != 3 || n != 4 || !slices.Equal(ids, wantIDs) || !slices.Equal(mask, wantMask) {
		t.Fatalf("EncodeBatch(4) = %v %v %d %d", ids, mask, b, n)
	}

	ids, _, _, b, n = v.EncodeBatch([]string{"", ""}, 512)
	if b != 2 || n != 2 || !slices.Equal(ids, []int64{2, 3, 2, 3}) {
		t.Fatalf("EncodeBatch(empty texts) = %v %d %d", ids, b, n)
	}
	if ids, _, _, b, n := v.EncodeBatch(nil, 512); ids != nil || b != 0 || n != 0 {
		t.Fatalf("EncodeBatch(nil) = %v %d %d", ids, b, n)
	}
}

func TestLoad(t *testing.T) {
	v, err := Load(strings.NewReader("[PAD]\r\n\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\nhi\r\n##hi\r\nhi"))
	if err != nil {
		t.Fatal(err)
	}
	if v.Size() != 8 || v.PadID() != 0 || v.UnkID() != 2 || v.ClsID() != 3 || v.SepID() != 4 {
		t.Fatalf("size %d pad %d unk %d cls %d sep %d", v.Size(), v.PadID(), v.UnkID(), v.ClsID(), v.SepID())
	}
	if id, ok := v.ID("hi"); !ok || id != 7 { // duplicate: the later line wins
		t.Fatalf("ID(hi) = %d %v", id, ok)
	}
	if v.Token(6) != "##hi" || v.Token(1) != "" || v.Token(99) != "" {
		t.Fatal("Token")
	}
	if got := v.Encode("hihi", 0); !slices.Equal(got, []int64{3, 7, 6, 4}) {
		t.Fatalf("Encode = %v", got)
	}
	for _, missing := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]"} {
		var toks []string
		for _, s := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "a"} {
			if s != missing {
				toks = append(toks, s)
			}
		}
		if _, err := Load(strings.NewReader(strings.Join(toks, "\n"))); err == nil ||
			!strings.Contains(err.Error(), missing) {
			t.Errorf("without %s: err = %v", missing, err)
		}
	}
}

func TestConcurrent(t *testing.T) {
	v := loadVocab(t, smallVocab)
	texts := []string{"Café naïve", "hello,world!", "unaffable cats", strings.Repeat("the cat ", 300)}
	want := make([][]int64, len(texts))
	for i, s := range texts {
		want[i] = v.Encode(s, 512)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(texts)
				if got := v.Encode(texts[k], 512); !slices.Equal(got, want[k]) {
					t.Errorf("concurrent Encode(%d) differs", k)
					return
				}
				v.EncodeBatch(texts, 512)
			}
		})
	}
	wg.Wait()
	if len(want[3]) != 512 {
		t.Fatalf("long text: %d ids", len(want[3]))
	}
}

func TestCharClasses(t *testing.T) {
	// From HF test_tokenization_bert.py: test_is_whitespace, test_is_control,
	// test_is_punctuation, mapped onto this package's classes.
	for _, r := range " \t\r\n\u00a0" {
		if c := class(r); c != cSpace {
			t.Errorf("%U: class %d, want space", r, c)
		}
	}
	for _, r := range "\u0005\u00ad\u200b\ue000\U000e0001\u0378" { // Cc Cf Cf Co Cf Cn
		if c := class(r); c != cDrop {
			t.Errorf("%U: class %d, want drop", r, c)
		}
	}
	for _, r := range "A-é" {
		if c := class(r); c != cWord {
			t.Errorf("%U: class %d, want word", r, c)
		}
	}
	for _, r := range "-$`.^~«»¿、" {
		if !isPunct(r) {
			t.Errorf("%U should be punctuation", r)
		}
	}
	for _, r := range "A 5é€©中" {
		if isPunct(r) {
			t.Errorf("%U should not be punctuation", r)
		}
	}
	for _, r := range []rune{0x4E00, 0x9FFF, 0x3400, 0x20000, 0x2B820, 0x2CEAF, 0xF900, 0x2FA1F} {
		if !isCJK(r) {
			t.Errorf("%U should be CJK", r)
		}
	}
	for _, r := range []rune{0x3042, 0xAC00, 0x2E80, 0x4DC0, 0x2CEB0} { // kana, hangul, radicals, hexagrams
		if isCJK(r) {
			t.Errorf("%U should not be CJK", r)
		}
	}
}

func class(r rune) uint8 {
	if r < 0x80 {
		return asciiClass[r]
	}
	return runeClass(r)
}
