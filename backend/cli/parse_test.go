package cli

import (
	"flag"
	"reflect"
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
