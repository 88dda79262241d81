package cli

import (
	"os"
	"sync"

	"hyatlas/backend/config"
)

// withheld holds the key variables serve took out of the process
// environment (see withholdSecretEnv), to hand them to a restart.
var withheld struct {
	sync.Mutex
	env map[string]string
}

// withholdSecretEnv takes the keys' variables (config.SecretEnv) out of
// this process's environment once serve has read its configuration, which
// keeps their values: every program HyAtlas starts would inherit them
// otherwise (the browser the tray opens and all it launches, the window's
// web processes). A restart gets them back (restartEnv).
func withholdSecretEnv() {
	withheld.Lock()
	defer withheld.Unlock()
	for _, k := range config.SecretEnv {
		if v, ok := os.LookupEnv(k); ok {
			if withheld.env == nil {
				withheld.env = map[string]string{}
			}
			withheld.env[k] = v
			_ = os.Unsetenv(k)
		}
	}
}

// restartEnv is the environment a restart runs with: this process's, the
// variables serve withheld, and extra.
func restartEnv(extra ...string) []string {
	env := os.Environ()
	withheld.Lock()
	for k, v := range withheld.env {
		env = append(env, k+"="+v)
	}
	withheld.Unlock()
	return append(env, extra...)
}
