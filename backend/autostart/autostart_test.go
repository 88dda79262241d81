package autostart

import (
	"os"
	"strings"
	"testing"
)

func TestSetAndEnabled(t *testing.T) {
	if !Supported() {
		t.Skip("autostart is written on Linux and the BSDs only")
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	e := New(func(k string) string { return env[k] }, "/opt/Hy Atlas/hyatlas")
	if on, err := e.Enabled(); err != nil || on {
		t.Fatalf("before: %v %v", on, err)
	}
	if err := e.Set(true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(e.Path())
	if err != nil || !strings.Contains(string(b), "Exec=\"/opt/Hy Atlas/hyatlas\"\n") || !strings.HasPrefix(e.Path(), home+"/.config/autostart/") {
		t.Fatalf("entry %s:\n%s (%v)", e.Path(), b, err)
	}
	if on, _ := e.Enabled(); !on {
		t.Fatal("not enabled after Set(true)")
	}
	if err := e.Set(false); err != nil {
		t.Fatal(err)
	}
	if on, _ := e.Enabled(); on {
		t.Fatal("still enabled after Set(false)")
	}
	if err := e.Set(false); err != nil {
		t.Fatalf("removing twice: %v", err)
	}
	env["XDG_CONFIG_HOME"] = home + "/xdg"
	if p := New(func(k string) string { return env[k] }, "/usr/bin/hyatlas").Path(); p != home+"/xdg/autostart/hyatlas.desktop" {
		t.Fatalf("XDG_CONFIG_HOME: %s", p)
	}
}
