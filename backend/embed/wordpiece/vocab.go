// Package wordpiece is a BERT WordPiece tokenizer that reproduces
// HuggingFace's BertTokenizer / BertTokenizerFast with do_lower_case=True
// (the tokenizer of BAAI/bge-small-en-v1.5 and bert-base-uncased):
//
//   - special tokens written in the text ("[CLS]", "[SEP]", "[PAD]", "[UNK]",
//     "[MASK]", exact case) are matched first and emitted as themselves;
//   - BasicTokenizer: drop NUL, U+FFFD and every Unicode C* character except
//     \t \n \r; split on whitespace (\t \n \r, Zs, U+2028, U+2029); put
//     spaces around CJK ideographs; lower-case; NFD and drop Mn; split on
//     punctuation (ASCII symbols and Unicode P*);
//   - WordPiece: greedy longest match, "##" continuations, a word of more
//     than 100 runes or one that cannot be fully covered is one [UNK].
//
// A *Vocab is immutable after Load and safe for concurrent use.
package wordpiece

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// MaxInputCharsPerWord is the reference max_input_chars_per_word: longer
// words (counted in runes, after basic tokenization) become [UNK].
const MaxInputCharsPerWord = 100

// Vocab is a loaded vocab.txt plus the lookup tables of the tokenizer.
type Vocab struct {
	tokens []string         // id -> token (line text)
	whole  map[string]int32 // every token: pieces that start a word
	cont   map[string]int32 // "##x" tokens keyed by "x": continuation pieces
	// longest key of each map in bytes: bounds the greedy search.
	maxWhole, maxCont int

	pad, unk, cls, sep int32
	specials           []special // matched in the raw text, before cleaning
}

type special struct {
	text string
	id   int32
}

// Load reads a vocab.txt: one token per line, the 0-based line number is
// the id. A trailing "\r" is dropped (CRLF files); empty lines keep their
// id. If a token occurs twice the later line wins, as in the reference.
// [PAD], [UNK], [CLS] and [SEP] must be present; [MASK] is optional.
func Load(r io.Reader) (*Vocab, error) {
	v := &Vocab{
		whole: make(map[string]int32, 32768),
		cont:  make(map[string]int32, 8192),
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() { // ScanLines strips "\n" and a "\r" before it
		if len(v.tokens) == math.MaxInt32 {
			return nil, errors.New("wordpiece: vocabulary too large")
		}
		tok := sc.Text()
		id := int32(len(v.tokens))
		v.tokens = append(v.tokens, tok)
		v.whole[tok] = id
		v.maxWhole = max(v.maxWhole, len(tok))
		if rest, ok := strings.CutPrefix(tok, "##"); ok {
			v.cont[rest] = id
			v.maxCont = max(v.maxCont, len(rest))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordpiece: reading vocabulary: %w", err)
	}
	for _, s := range []struct {
		name string
		dst  *int32
	}{{"[PAD]", &v.pad}, {"[UNK]", &v.unk}, {"[CLS]", &v.cls}, {"[SEP]", &v.sep}} {
		id, ok := v.whole[s.name]
		if !ok {
			return nil, fmt.Errorf("wordpiece: vocabulary has no %s token", s.name)
		}
		*s.dst = id
	}
	for _, name := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		if id, ok := v.whole[name]; ok {
			v.specials = append(v.specials, special{name, id})
		}
	}
	return v, nil
}

// LoadFile is Load on the named file.
func LoadFile(path string) (*Vocab, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f)
}

// Size is the number of lines (ids) in the vocabulary.
func (v *Vocab) Size() int { return len(v.tokens) }

// ID returns the id of a token, as in the vocabulary file.
func (v *Vocab) ID(token string) (int32, bool) {
	id, ok := v.whole[token]
	return id, ok
}

// Token returns the token of an id, or "" if out of range.
func (v *Vocab) Token(id int) string {
	if id < 0 || id >= len(v.tokens) {
		return ""
	}
	return v.tokens[id]
}

// PadID is the id of [PAD], used to pad batches.
func (v *Vocab) PadID() int32 { return v.pad }

// UnkID is the id of [UNK].
func (v *Vocab) UnkID() int32 { return v.unk }

// ClsID is the id of [CLS].
func (v *Vocab) ClsID() int32 { return v.cls }

// SepID is the id of [SEP].
func (v *Vocab) SepID() int32 { return v.sep }

// nextSpecial finds the leftmost special token in s: its byte offset, id
// and length, or -1. No special token is a prefix of another, so the first
// match at the leftmost '[' is also the longest.
func (v *Vocab) nextSpecial(s string) (int, int32, int) {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '[')
		if i < 0 {
			return -1, 0, 0
		}
		off += i
		for _, sp := range v.specials {
			if strings.HasPrefix(s[off:], sp.text) {
				return off, sp.id, len(sp.text)
			}
		}
		off++
	}
}
