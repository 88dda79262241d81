package wordpiece

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Character classes of the cleaning step.
const (
	cWord  uint8 = iota // part of a word (letters, marks, digits, symbols, punctuation)
	cDrop               // removed: NUL, U+FFFD, Unicode C* except \t \n \r
	cSpace              // word separator
	cCJK                // CJK ideograph: a word of its own
)

var (
	asciiClass [utf8.RuneSelf]uint8
	asciiLower [utf8.RuneSelf]byte
	asciiPunct [utf8.RuneSelf]bool
)

func init() {
	for c := range utf8.RuneSelf {
		b := byte(c)
		asciiLower[c] = b
		if 'A' <= b && b <= 'Z' {
			asciiLower[c] = b + 'a' - 'A'
		}
		switch {
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			asciiClass[c] = cSpace
		case b < 0x20 || b == 0x7f: // Cc, including NUL, \v and \f
			asciiClass[c] = cDrop
		default:
			asciiClass[c] = cWord
		}
		// The reference's _is_punctuation counts every ASCII non-alphanumeric
		// printable as punctuation ($ + < = > ^ ` | ~ are S* in Unicode).
		asciiPunct[c] = (33 <= c && c <= 47) || (58 <= c && c <= 64) ||
			(91 <= c && c <= 96) || (123 <= c && c <= 126)
	}
}

// isCJK is the reference BasicTokenizer._is_chinese_char (Python ranges).
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// runeClass classifies a non-ASCII rune. The categories L M N P S Z C
// partition the assigned code points, so what falls through is C* or an
// unassigned code point (Cn), which the reference's _is_control
// (category starts with "C") also removes.
func runeClass(r rune) uint8 {
	switch {
	case isCJK(r):
		return cCJK
	case r == utf8.RuneError: // U+FFFD, and invalid UTF-8 bytes
		return cDrop
	case unicode.IsLetter(r), unicode.IsMark(r), unicode.IsNumber(r):
		return cWord
	case unicode.Is(unicode.Zs, r):
		return cSpace // _is_whitespace
	case r == 0x2028 || r == 0x2029:
		// Zl/Zp: kept by _clean_text but split on by str.split() in the
		// slow tokenizer; char::is_whitespace in the fast one.
		return cSpace
	case unicode.IsPunct(r), unicode.IsSymbol(r):
		return cWord
	}
	return cDrop
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiPunct[r]
	}
	return unicode.IsPunct(r)
}

// state is the per-call scratch space, pooled.
type state struct {
	word []byte  // current word, cleaned and lower-cased
	nfd  []byte  // its NFD without Mn
	ids  []int32 // piece ids, of several rows in EncodeBatch
	ends []int   // EncodeBatch: end of each row in ids
	it   norm.Iter
}

// run appends the piece ids of text to st.ids, without [CLS]/[SEP]. It
// stops early, after the word that reaches limit pieces, so it may append
// more than limit ids: the caller truncates.
func (v *Vocab) run(st *state, text string, limit int) {
	stop := len(st.ids) + limit
	if limit > maxInt-len(st.ids) {
		stop = maxInt
	}
	for text != "" {
		i, id, n := v.nextSpecial(text)
		seg := text
		if i >= 0 {
			seg = text[:i]
		}
		if !v.basic(st, seg, stop) || i < 0 {
			return
		}
		st.ids = append(st.ids, id)
		if len(st.ids) >= stop {
			return
		}
		text = text[i+n:]
	}
}

const maxInt = int(^uint(0) >> 1)

// basic runs the BasicTokenizer on a text segment (no special tokens in
// it) and WordPiece on every word. It returns false once st.ids reaches
// stop.
func (v *Vocab) basic(st *state, seg string, stop int) bool {
	w := st.word[:0]
	defer func() { st.word = w[:0] }()
	ascii := true
	flush := func() bool {
		if len(w) == 0 {
			return true
		}
		more := v.word(st, w, ascii, stop)
		w, ascii = w[:0], true
		return more
	}
	for i := 0; i < len(seg); {
		if c := seg[i]; c < utf8.RuneSelf {
			i++
			switch asciiClass[c] {
			case cWord:
				w = append(w, asciiLower[c])
			case cSpace:
				if !flush() {
					return false
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(seg[i:])
		i += size
		switch runeClass(r) {
		case cWord:
			// Per-rune lower-casing, as both references do in effect: the
			// slow one lower-cases the text one character at a time before
			// BasicTokenizer (so Σ never becomes final ς), the fast one
			// uses char::to_lowercase. Python's only multi-rune mapping,
			// İ -> i + U+0307, ends as "i" after accent stripping, like Go's.
			w = utf8.AppendRune(w, unicode.ToLower(r))
			ascii = false
		case cSpace:
			if !flush() {
				return false
			}
		case cCJK:
			if !flush() {
				return false
			}
			w, ascii = utf8.AppendRune(w, r), false
			if !flush() {
				return false
			}
		}
	}
	return flush()
}

// word finishes one whitespace-delimited word (already cleaned and
// lower-cased): accent stripping, punctuation split, WordPiece.
func (v *Vocab) word(st *state, w []byte, ascii bool, stop int) bool {
	if !ascii {
		// norm.Iter lives in the pooled state: NFD.Append would allocate.
		n := st.nfd[:0]
		st.it.Init(norm.NFD, w)
		for !st.it.Done() {
			n = append(n, st.it.Next()...)
		}
		j := 0
		for i := 0; i < len(n); {
			r, size := rune(n[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRune(n[i:])
			}
			if r < utf8.RuneSelf || !unicode.Is(unicode.Mn, r) {
				j += copy(n[j:], n[i:i+size])
			}
			i += size
		}
		st.nfd = n
		w = n[:j]
	}
	start := 0
	for i := 0; i < len(w); {
		r, size := rune(w[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(w[i:])
		}
		if isPunct(r) {
			v.piece(st, w[start:i])
			v.piece(st, w[i:i+size])
			start = i + size
		}
		i += size
	}
	v.piece(st, w[start:])
	return len(st.ids) < stop
}

// piece is the reference WordpieceTokenizer on one word: greedy longest
// match first, "##" continuations, [UNK] for the whole word if any
// position has no match or the word has more than 100 runes. Lookups index
// the maps with string(p[a:b]), which does not allocate.
func (v *Vocab) piece(st *state, p []byte) {
	if len(p) == 0 {
		return
	}
	if len(p) > MaxInputCharsPerWord && utf8.RuneCount(p) > MaxInputCharsPerWord {
		st.ids = append(st.ids, v.unk)
		return
	}
	mark := len(st.ids)
	m, longest := v.whole, v.maxWhole
	for start := 0; start < len(p); {
		end := len(p)
		if end-start > longest { // no token is longer: skip hopeless lookups
			end = start + longest
			for end > start && !utf8.RuneStart(p[end]) {
				end--
			}
		}
		id := int32(-1)
		for end > start {
			if x, ok := m[string(p[start:end])]; ok {
				id = x
				break
			}
			end--
			for end > start && !utf8.RuneStart(p[end]) {
				end--
			}
		}
		if id < 0 {
			st.ids = append(st.ids[:mark], v.unk)
			return
		}
		st.ids = append(st.ids, id)
		start = end
		m, longest = v.cont, v.maxCont
	}
}
