package llm

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// redacted stands for the key wherever an endpoint echoed it.
const redacted = "[redacted]"

// minSecretKey is the shortest key scrubbed from replies: hosted keys are
// far longer, and a shorter one is a placeholder such as "ollama".
const minSecretKey = 16

// redactor returns a function that replaces the key in a text an endpoint
// sent (an error body, a reply), written as it is or escaped as JSON
// (`\/`, `\u002d`, either case of hex digits) or as a URL (`%2D`), one
// character at a time: an error body is quoted raw when it is not shaped
// as OpenAI's, and a server that escapes one character of an echoed key
// must not get the rest of it into a log, the status or the database.
func redactor(key string) func(string) string {
	key = strings.TrimSpace(key) // what a request header carries
	if key == "" {
		return func(s string) string { return s }
	}
	var b strings.Builder
	for _, r := range key {
		b.WriteString("(?:")
		b.WriteString(regexp.QuoteMeta(string(r)))
		if r < 0x10000 {
			fmt.Fprintf(&b, `|\\u%s`, hexAnyCase(fmt.Sprintf("%04x", r)))
		} else { // a JSON escape writes it as a surrogate pair
			hi, lo := surrogates(r)
			fmt.Fprintf(&b, `|\\u%s\\u%s`, hexAnyCase(fmt.Sprintf("%04x", hi)), hexAnyCase(fmt.Sprintf("%04x", lo)))
		}
		switch r {
		case '/', '\\', '"':
			b.WriteString(`|\\` + regexp.QuoteMeta(string(r)))
		}
		var enc [utf8.UTFMax]byte
		n := utf8.EncodeRune(enc[:], r)
		b.WriteString("|")
		for _, c := range enc[:n] {
			b.WriteString("%" + hexAnyCase(fmt.Sprintf("%02x", c)))
		}
		b.WriteString(")")
	}
	re, err := regexp.Compile(b.String())
	if err != nil { // cannot happen: every part is quoted
		return func(s string) string { return strings.ReplaceAll(s, key, redacted) }
	}
	return func(s string) string { return re.ReplaceAllLiteralString(s, redacted) }
}

// hexAnyCase matches hex digits written in either case.
func hexAnyCase(h string) string {
	var b strings.Builder
	for _, c := range h {
		if c >= 'a' && c <= 'f' {
			b.WriteString("[" + string(c) + strings.ToUpper(string(c)) + "]")
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// surrogates splits a rune above the Basic Multilingual Plane into the
// UTF-16 pair a JSON escape writes.
func surrogates(r rune) (hi, lo rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
