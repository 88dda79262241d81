package hermes

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"hyatlas/backend/atomicfile"
)

// DiscoveryFile is the name of the discovery file in the app's config
// directory: how the plugin finds the running app.
const DiscoveryFile = "discovery.json"

// Discovery is what the plugin reads on each call. It names the token
// file; the token itself is never in it.
type Discovery struct {
	Address   string    `json:"address"`    // http://127.0.0.1:19528
	TokenFile string    `json:"token_file"` // absolute; mode 0600
	Auth      bool      `json:"auth"`       // whether the API wants the token
	DataDir   string    `json:"data_dir"`   // absolute
	Snapshots string    `json:"snapshots"`  // absolute; the snapshot folder, what Hermes's backups copy
	Binary    string    `json:"binary"`     // the hyatlas executable, for the plugin's optional auto_start
	Version   string    `json:"version"`
	PID       int       `json:"pid"`     // 0 when written by the installer
	Written   time.Time `json:"written"` // when
}

// WriteDiscovery writes d to dir/discovery.json (mode 0600, atomically).
func WriteDiscovery(dir string, d Discovery) error {
	if d.Address == "" || !filepath.IsAbs(d.TokenFile) {
		return fmt.Errorf("write discovery file: address and an absolute token file are required")
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("write discovery file: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write discovery file: %w", err)
	}
	return atomicfile.Write(filepath.Join(dir, DiscoveryFile), append(b, '\n'), 0o600)
}

// ReadDiscovery reads dir/discovery.json.
func ReadDiscovery(dir string) (Discovery, error) {
	var d Discovery
	b, err := os.ReadFile(filepath.Join(dir, DiscoveryFile))
	if err != nil {
		return d, fmt.Errorf("read discovery file: %w", err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("read discovery file: %w", err)
	}
	return d, nil
}
