package engine

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"hyatlas/backend/api"
	"hyatlas/backend/config"
	"hyatlas/backend/hermes"
	"hyatlas/backend/memory"
)

// NewHermesInstaller is the Hermes plugin installer for cfg: its records
// and the discovery file live in the app's config directory, and the
// discovery file it writes before the app first runs names cfg's address.
func NewHermesInstaller(cfg config.Config) *hermes.Installer {
	return &hermes.Installer{ConfigDir: cfg.Paths.Config, Discovery: discoveryFor(cfg, loopbackAddr(cfg.Host, cfg.Port), 0)}
}

// discoveryFor is the discovery record of an instance reachable at addr.
func discoveryFor(cfg config.Config, addr string, pid int) hermes.Discovery {
	bin, _ := os.Executable()
	return hermes.Discovery{Address: "http://" + addr, TokenFile: filepath.Join(cfg.Paths.Config, api.TokenFile),
		Auth: cfg.Auth, DataDir: cfg.Paths.Data, Snapshots: cfg.Snapshot.Dir, Binary: bin, Version: Version, PID: pid, Written: time.Now().UTC()}
}

// loopbackAddr is how a local client reaches a server bound to host:port
// (a wildcard bind is reached on 127.0.0.1).
func loopbackAddr(host string, port int) string {
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// writeDiscovery records where this instance listens, for the Hermes
// plugin (and any local agent): address and the token file's path.
func (e *Engine) writeDiscovery(ln net.Listener) error {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return fmt.Errorf("write discovery file: not a TCP listener")
	}
	return hermes.WriteDiscovery(e.Config.Paths.Config,
		discoveryFor(e.Config, loopbackAddr(e.Config.Host, tcp.Port), os.Getpid()))
}

// hermesAPI serves /api/v1/hermes with the installer; the Hermes home is
// resolved from this process's environment on each call.
type hermesAPI struct{ inst *hermes.Installer }

func (h hermesAPI) verb(profile string, f func(string) (hermes.Status, error)) (api.HermesState, error) {
	home, err := hermes.ResolveHome(os.Getenv, profile)
	if err != nil {
		return api.HermesState{}, memory.Errorf(memory.EINVALID, "%v", err) // a bad profile name
	}
	st, err := f(home)
	if errors.Is(err, hermes.ErrReservedProfile) {
		return api.HermesState{}, memory.Errorf(memory.EINVALID, "%v", err)
	}
	if errors.Is(err, hermes.ErrNoProfile) {
		return api.HermesState{}, memory.Errorf(memory.ENOTFOUND, "%v", err)
	}
	if errors.Is(err, hermes.ErrBusy) {
		return api.HermesState{}, memory.Errorf(memory.ECONFLICT, "%v", err)
	}
	if err != nil {
		return api.HermesState{}, err
	}
	return api.HermesState{HermesHome: st.HermesHome, HomeExists: st.HomeExists, Installed: st.Installed,
		Active: st.Active, Provider: st.Provider, PluginVersion: st.PluginVersion, BundledVersion: st.BundledVersion,
		Outdated: st.Outdated, PreviousProvider: st.PreviousProvider, PreviousSet: st.PreviousSet, Message: st.Message}, nil
}

func (h hermesAPI) Status(profile string) (api.HermesState, error) {
	return h.verb(profile, h.inst.Status)
}
func (h hermesAPI) Install(profile string) (api.HermesState, error) {
	return h.verb(profile, h.inst.Install)
}
func (h hermesAPI) Uninstall(profile string) (api.HermesState, error) {
	return h.verb(profile, h.inst.Uninstall)
}
