// Package backend holds no code: this test enforces the dependency rule of
// ARCHITECTURE.md over every package under backend/.
package backend

import (
	"os/exec"
	"strings"
	"testing"
)

// adapters are the packages that implement the domain's seams; none may
// import another (only engine and the command layer know them all).
var adapters = []string{"store", "vector", "embed", "api", "config", "events", "models", "llm", "secrets", "extract", "workspace", "snapshot", "autostart", "hermes"}

func TestDependencyRule(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{join .Deps \" \"}}", "hyatlas/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, list, _ := strings.Cut(line, "\t")
		deps[pkg] = strings.Fields(list)
	}
	if len(deps["hyatlas/backend/memory"]) == 0 {
		t.Fatalf("go list did not report backend/memory: %v", deps)
	}
	for pkg, ds := range deps {
		if !strings.HasPrefix(pkg, "hyatlas/backend/") {
			continue
		}
		for _, d := range ds {
			if d == "hyatlas/app" || strings.HasPrefix(d, "hyatlas/app/") || strings.HasPrefix(d, "github.com/wailsapp/") {
				t.Errorf("%s depends on %s: nothing under backend/ may import app/ or Wails", pkg, d)
			}
		}
	}
	for _, d := range deps["hyatlas/backend/memory"] {
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") || first == "hyatlas" {
			t.Errorf("backend/memory depends on %s: the domain may use the standard library only", d)
		}
	}
	for _, a := range adapters {
		pkg := "hyatlas/backend/" + a
		for _, d := range deps[pkg] {
			for _, other := range adapters {
				if other != a && (d == "hyatlas/backend/"+other || strings.HasPrefix(d, "hyatlas/backend/"+other+"/")) {
					t.Errorf("adapter %s imports adapter %s: adapters never import each other", pkg, d)
				}
			}
		}
	}
}
