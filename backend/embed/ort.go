package embed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ORTVersion is the ONNX Runtime release the build scripts ship.
const ORTVersion = "1.30.0"

// ORTOptions say where to look for the ONNX Runtime shared library and
// where ORT may write its own files.
type ORTOptions struct {
	Lib      string // HYATLAS_ORT_LIB: when set, the only place looked at
	ExeDir   string // the directory of the running binary
	DataDir  string // the app's data directory (<data>/lib/ is searched)
	CacheDir string // the app's cache directory: ORT's device-id files go here
}

// ORTRuntime is the loaded library.
type ORTRuntime struct {
	Lib     string
	Version string
}

var (
	ortOnce sync.Once
	ortRT   *ORTRuntime
	ortErr  error
)

// libNames are the file names of the library on this platform, preferred
// first.
func libNames() []string {
	switch runtime.GOOS {
	case "windows":
		return []string{"onnxruntime.dll"}
	case "darwin":
		return []string{"libonnxruntime.1.dylib", "libonnxruntime.dylib"}
	default:
		return []string{"libonnxruntime.so.1", "libonnxruntime.so"}
	}
}

// InitORT loads ONNX Runtime once per process. The library is looked for
// at HYATLAS_ORT_LIB if set, else next to the binary, else in
// <data>/lib/, else (in a build with the embedort tag) the copy carried in
// the binary is written to the cache dir. The error for a missing library
// names every place looked at and how to fix it.
//
// ORT writes a device-id file and a telemetry database under the user's
// cache directory when it starts ($XDG_CACHE_HOME on Linux). InitORT
// points that at the app's own cache directory for the duration of the
// start and disables telemetry, so nothing lands outside the app's dirs.
func InitORT(o ORTOptions) (*ORTRuntime, error) {
	ortOnce.Do(func() { ortRT, ortErr = initORT(o) })
	return ortRT, ortErr
}

// ortTelemetryEnv, set to 1, keeps ONNX Runtime from starting its
// telemetry (which sends to the vendor's collector when it can).
const ortTelemetryEnv = "ORT_DISABLE_TELEMETRY"

func initORT(o ORTOptions) (*ORTRuntime, error) {
	lib, err := findORT(o)
	if err != nil {
		return nil, err
	}
	ort.SetSharedLibraryPath(lib)
	restore, err := redirectUserCache(o.CacheDir)
	if err != nil {
		return nil, err
	}
	// DisableTelemetry below comes after the environment starts, and by
	// then ONNX Runtime's telemetry has begun looking up its collector;
	// this variable stops it before the start.
	if err := os.Setenv(ortTelemetryEnv, "1"); err != nil {
		restore()
		return nil, fmt.Errorf("disable ONNX Runtime telemetry: %w", err)
	}
	err = ort.InitializeEnvironment(ort.WithLogLevelError())
	restore()
	if err != nil {
		return nil, fmt.Errorf("start ONNX Runtime from %s: %w", lib, err)
	}
	if err := ort.DisableTelemetry(); err != nil {
		return nil, fmt.Errorf("disable ONNX Runtime telemetry: %w", err)
	}
	return &ORTRuntime{Lib: lib, Version: ort.GetVersion()}, nil
}

// findORT returns the first library that exists among the candidates.
func findORT(o ORTOptions) (string, error) {
	var looked []string
	try := func(path string) bool {
		looked = append(looked, path)
		fi, err := os.Stat(path)
		return err == nil && !fi.IsDir()
	}
	if o.Lib != "" {
		if try(o.Lib) {
			return o.Lib, nil
		}
		return "", fmt.Errorf("ONNX Runtime library not found at HYATLAS_ORT_LIB=%s: point it at %s from onnxruntime %s, or unset it",
			o.Lib, libNames()[0], ORTVersion)
	}
	var dirs []string
	if o.ExeDir != "" {
		dirs = append(dirs, o.ExeDir)
	}
	if o.DataDir != "" {
		dirs = append(dirs, filepath.Join(o.DataDir, "lib"))
	}
	for _, dir := range dirs {
		for _, name := range libNames() {
			if p := filepath.Join(dir, name); try(p) {
				return p, nil
			}
		}
	}
	if p, ok, err := extractEmbeddedORT(o.CacheDir); err != nil {
		return "", err
	} else if ok {
		return p, nil
	}
	return "", errors.New("ONNX Runtime " + ORTVersion + " library not found; looked at:\n  " +
		strings.Join(looked, "\n  ") + "\nTo fix: build with `make build` (it puts " + libNames()[0] +
		" next to the binary), or copy that file into " + filepath.Join(o.DataDir, "lib") +
		", or set HYATLAS_ORT_LIB to its path, or build with -tags embedort to carry it inside the binary")
}

// redirectUserCache points the user cache directory at dir while ORT
// starts (Linux and the BSDs read XDG_CACHE_HOME), and returns a func that
// restores it.
func redirectUserCache(dir string) (func(), error) {
	if dir == "" || runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return func() {}, nil
	}
	ortCache := filepath.Join(dir, "onnxruntime")
	if err := os.MkdirAll(ortCache, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", ortCache, err)
	}
	old, had := os.LookupEnv("XDG_CACHE_HOME")
	if err := os.Setenv("XDG_CACHE_HOME", ortCache); err != nil {
		return nil, err
	}
	return func() {
		if had {
			_ = os.Setenv("XDG_CACHE_HOME", old)
		} else {
			_ = os.Unsetenv("XDG_CACHE_HOME")
		}
	}, nil
}
