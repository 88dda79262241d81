package embed

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const childEnv = "HYATLAS_EMBED_TEST_ORT_CHILD"

// runORTChild is the child process of TestORT_FilesStayInAppDirs: it
// starts ORT the way the app does, with the app cache given in the env.
func runORTChild() int {
	_, err := InitORT(ORTOptions{Lib: testORTLib(), CacheDir: os.Getenv("APP_CACHE")})
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 3
	}
	if os.Getenv("XDG_CACHE_HOME") != os.Getenv("USER_CACHE") {
		os.Stderr.WriteString("XDG_CACHE_HOME was not restored after start")
		return 4
	}
	return 0
}

// TestORT_FilesStayInAppDirs: ONNX Runtime's telemetry never starts (with
// it, ORT writes a device id and a telemetry database when it starts, and
// looks up the vendor's collector some seconds later); anything it writes
// lands in the app's cache directory, never in the user's cache, and the
// user's setting is restored.
func TestORT_FilesStayInAppDirs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatalf("this check is written for Linux's XDG cache; see README for %s", runtime.GOOS)
	}
	home, userCache, appCache := t.TempDir(), t.TempDir(), t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "HOME="+home, "XDG_CACHE_HOME="+userCache,
		"USER_CACHE="+userCache, "APP_CACHE="+appCache)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	outside := files(t, userCache)
	outside = append(outside, files(t, home)...)
	if len(outside) > 0 {
		t.Errorf("ONNX Runtime wrote outside the app's directories: %v", outside)
	}
	inside := files(t, appCache)
	if containsPath(inside, "onnxruntime.db") || containsPath(inside, "deviceid") {
		t.Errorf("ONNX Runtime's telemetry started (it wrote its files): %v", inside)
	}
	for _, f := range inside {
		if !strings.HasPrefix(f, appCache) {
			t.Errorf("%s is outside %s", f, appCache)
		}
	}
}

func files(t *testing.T, root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func containsPath(paths []string, part string) bool {
	for _, p := range paths {
		if strings.Contains(p, part) {
			return true
		}
	}
	return false
}

// TestFindORT_NamesEveryPlace: a missing library is reported with every
// place looked at and the ways to fix it.
func TestFindORT_NamesEveryPlace(t *testing.T) {
	exe, data := t.TempDir(), t.TempDir()
	_, err := findORT(ORTOptions{ExeDir: exe, DataDir: data})
	if err == nil {
		t.Fatal("found a library in empty directories")
	}
	for _, want := range []string{filepath.Join(exe, libNames()[0]), filepath.Join(data, "lib", libNames()[0]),
		"HYATLAS_ORT_LIB", "make build", "embedort"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := findORT(ORTOptions{Lib: filepath.Join(exe, "nope.so")}); err == nil || !strings.Contains(err.Error(), "HYATLAS_ORT_LIB") {
		t.Errorf("a wrong HYATLAS_ORT_LIB: %v", err)
	}
	// Found next to the binary, then in <data>/lib.
	lib := filepath.Join(data, "lib", libNames()[0])
	_ = os.MkdirAll(filepath.Dir(lib), 0o755)
	_ = os.WriteFile(lib, []byte("x"), 0o644)
	if got, err := findORT(ORTOptions{ExeDir: exe, DataDir: data}); err != nil || got != lib {
		t.Errorf("data dir library: %q %v", got, err)
	}
	next := filepath.Join(exe, libNames()[0])
	_ = os.WriteFile(next, []byte("x"), 0o644)
	if got, _ := findORT(ORTOptions{ExeDir: exe, DataDir: data}); got != next {
		t.Errorf("the library next to the binary should win: %q", got)
	}
}
