package hermes

import (
	"strings"
	"testing"
)

func TestSetMemoryProvider(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"empty file", "", "memory:\n  provider: hyatlas\n"},
		{"no memory block",
			"# my settings\nmodel: gpt-x # the model\n",
			"# my settings\nmodel: gpt-x # the model\nmemory:\n  provider: hyatlas\n"},
		{"block without provider keeps its indent",
			"memory:\n    memory_enabled: true   # on\nother: 1\n",
			"memory:\n    provider: hyatlas\n    memory_enabled: true   # on\nother: 1\n"},
		{"provider replaced, comment kept",
			"a: 1\nmemory:\n  # which provider\n  provider: honcho  # cloud one\n  user_char_limit: 2000\nb:\n  provider: keep\n",
			"a: 1\nmemory:\n  # which provider\n  provider: hyatlas  # cloud one\n  user_char_limit: 2000\nb:\n  provider: keep\n"},
		{"quoted value with a hash",
			"memory:\n  provider: \"a#b\" # note\n",
			"memory:\n  provider: hyatlas # note\n"},
		{"nested provider key is not ours",
			"memory:\n  nested:\n    provider: x\n",
			"memory:\n  provider: hyatlas\n  nested:\n    provider: x\n"},
		{"CRLF kept", "memory:\r\n  provider: ''\r\n", "memory:\r\n  provider: hyatlas\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := SetMemoryProvider([]byte(c.in), "hyatlas")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
			if p, ok, err := MemoryProvider(got); err != nil || !ok || p != "hyatlas" {
				t.Errorf("read back %q %v %v", p, ok, err)
			}
		})
	}
}

func TestSetMemoryProvider_Refuses(t *testing.T) {
	for name, in := range map[string]string{
		"not yaml":       "memory: [unclosed\n",
		"flow style":     "memory: {provider: honcho}\n",
		"scalar memory":  "memory: 3\n",
		"tab indented":   "memory:\n\tprovider: x\n",
		"list top level": "- a\n- b\n",
	} {
		t.Run(name, func(t *testing.T) {
			if out, err := SetMemoryProvider([]byte(in), "hyatlas"); err == nil {
				t.Errorf("edited %q into %q; want an error", in, out)
			}
		})
	}
}

func TestRemoveMemoryProvider(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"block we added goes", "model: x\nmemory:\n  provider: hyatlas\n", "model: x\n"},
		{"other keys stay", "memory:\n  provider: hyatlas\n  memory_enabled: false\nz: 1\n",
			"memory:\n  memory_enabled: false\nz: 1\n"},
		{"nothing to remove", "a: 1\n", "a: 1\n"},
		// Comments stay: the emptied block keeps its line when a comment is
		// on it or in it (it used to go, leaving its comment dangling).
		{"a comment on memory: keeps it", "memory: # mine\n  provider: hyatlas\n  # provider: honcho\nmodel: x\n",
			"memory: # mine\n  # provider: honcho\nmodel: x\n"},
		{"a comment in the block keeps it", "memory:\n  # provider: honcho\n  provider: hyatlas\nmodel: x\n",
			"memory:\n  # provider: honcho\nmodel: x\n"},
		{"a top-level comment after it does not", "memory:\n  provider: hyatlas\n# about models\nmodel: x\n",
			"# about models\nmodel: x\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := RemoveMemoryProvider([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got %q want %q", got, c.want)
			}
		})
	}
}

func TestYAMLScalarQuotesWhatPlainWouldChange(t *testing.T) {
	for in, want := range map[string]string{"honcho": "honcho", "": `""`, "true": `"true"`, "1.5": `"1.5"`,
		"a b": `"a b"`, "mem0": "mem0"} {
		if got := yamlScalar(in); got != want {
			t.Errorf("yamlScalar(%q) = %s, want %s", in, got, want)
		}
		out, err := SetMemoryProvider(nil, in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if p, _, _ := MemoryProvider(out); p != in {
			t.Errorf("%q read back as %q (%s)", in, p, strings.TrimSpace(string(out)))
		}
	}
}
