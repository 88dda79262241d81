package cli

import (
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParse_FlagsAnywhereAndDoubleDash(t *testing.T) {
	tests := []struct {
		args    []string
		user    string
		pos     []string
		wantErr bool
	}{
		{[]string{"hello", "world"}, "", []string{"hello", "world"}, false},
		{[]string{"--user", "bob", "hello"}, "bob", []string{"hello"}, false},
		{[]string{"hello", "--user", "bob", "world"}, "bob", []string{"hello", "world"}, false},
		{[]string{"--", "use", "-h", "for", "help"}, "", []string{"use", "-h", "for", "help"}, false},
		{[]string{"x", "--", "--user", "bob"}, "", []string{"x", "--user", "bob"}, false},
		{[]string{"--user", "amy", "--", "-"}, "amy", []string{"-"}, false},
		{[]string{"--bogus"}, "", nil, true},
		{[]string{}, "", nil, true}, // needs one argument
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("add", flag.ContinueOnError)
		user := fs.String("user", "", "")
		pos, err := parse(fs, tt.args, 1, -1)
		if (err != nil) != tt.wantErr {
			t.Fatalf("parse(%q) err = %v", tt.args, err)
		}
		if err == nil && (*user != tt.user || !reflect.DeepEqual(pos, tt.pos)) {
			t.Errorf("parse(%q) = %q user %q; want %q user %q", tt.args, pos, *user, tt.pos, tt.user)
		}
	}
}

// TestRun_RefusesBadArgumentsBeforeAnyRequest: arguments that would name
// another endpoint or could not be sent are usage errors (exit 2) with a
// clear message; none of these needs, or reaches, a running instance.
func TestRun_RefusesBadArgumentsBeforeAnyRequest(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"delete", ""}, `"" is not a memory id`},
		{[]string{"delete", ".."}, `".." is not a memory id`},
		{[]string{"delete", "."}, `"." is not a memory id`},
		{[]string{"retire", " "}, `" " is not a memory id`},
		{[]string{"restore", "a/b"}, `"a/b" is not a memory id`},
		{[]string{"edit", "--content", "x", ""}, `"" is not a memory id`},
		{[]string{"promote", "a\nb"}, `is not a memory id`},
		{[]string{"reprocess", "ok-id", ".."}, `".." is not a memory id`},
		{[]string{"snapshot", "restore", ""}, `"" is not a snapshot id`},
		{[]string{"snapshot", "delete", "../x"}, `"../x" is not a snapshot id`},
		{[]string{"promote", "--steps", "11", "m1"}, "--steps must be from 1 to 10, not 11"},
		{[]string{"demote", "--steps", "-1", "m1"}, "--steps must be from 1 to 10, not -1"},
		{[]string{"egress", "--limit", "-1"}, "--limit must be from 1 to 1000, not -1"},
		{[]string{"egress", "--limit", "0"}, "--limit must be from 1 to 1000, not 0"},
		{[]string{"list", "--min-strength", "NaN"}, `"NaN" is not a number`},
		{[]string{"remember", "--strength", "Inf", "x"}, `"Inf" is not a number`},
		{[]string{"edit", "--strength", "-Inf", "m1"}, `"-Inf" is not a number`},
		{[]string{"export", "-o", ""}, "-o needs a file name"},
		{[]string{"export", "-o", os.TempDir()}, "is a directory"},
		{[]string{"add", "caf\xe9 au lait"}, "argument 1 is not UTF-8 text"},
		{[]string{"edit", "--content", "na\xefve", "m1"}, "argument 2 is not UTF-8 text"},
	}
	for _, tt := range tests {
		code, out, errOut := runArgs(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

// TestRun_Help: `hyatlas help CMD`, `CMD -h` and `CMD --help` print the
// command's usage and flags on stdout and exit 0.
func TestRun_Help(t *testing.T) {
	for _, args := range [][]string{{"help", "add"}, {"add", "-h"}, {"add", "--help"}} {
		code, out, errOut := runArgs(t, args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errOut)
		}
		for _, want := range []string{"usage: hyatlas add [--user ID]", "remember a text", "-session", "session id"} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: the help lacks %q:\n%s", args, want, out)
			}
		}
	}
	if code, _, errOut := runArgs(t, "help", "nosuch"); code != 2 || !strings.Contains(errOut, `unknown command "nosuch"`) {
		t.Errorf("help nosuch: exit %d, %q", code, errOut)
	}
	if code, out, _ := runArgs(t, "help"); code != 0 || !strings.Contains(out, "commands:") {
		t.Errorf("help: exit %d, %q", code, out)
	}
}

// TestRun_FileNamesNeedNotBeUTF8: a path is bytes on Unix; only text and
// ids that are stored must be UTF-8.
func TestRun_FileNamesNeedNotBeUTF8(t *testing.T) {
	for _, args := range [][]string{
		{"import", "/nonexistent/caf\xe9.jsonl"},
		{"export", "-o", "/nonexistent/caf\xe9.jsonl"},
	} {
		_, _, errOut := runArgs(t, args...)
		if strings.Contains(errOut, "not UTF-8") {
			t.Errorf("%q: %s", args, errOut)
		}
	}
}
