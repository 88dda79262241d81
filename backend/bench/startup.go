package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"hyatlas/backend/api/client"
)

// benchStartup starts `hyatlas serve` as a separate process on a store of
// n memories and measures the time until /readyz answers and the process's
// peak resident memory (VmHWM) at that point.
func benchStartup(ctx context.Context, dir, binary string, n int) ([]row, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.CommandContext(ctx, binary, "serve")
	cmd.Env = append(os.Environ(), "HYATLAS_DATA="+dir, "HYATLAS_CONFIG_DIR="+dir+"-config",
		"HYATLAS_CACHE_DIR="+dir+"-cache", "HYATLAS_MODE=lite", "HYATLAS_EMBED_BASE=local", "HYATLAS_GO_PORT="+strconv.Itoa(port))
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	c := client.New(fmt.Sprintf("http://127.0.0.1:%d", port), "")
	for c.Ready(ctx) != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if time.Since(start) > 60*time.Second {
			return nil, fmt.Errorf("the server was not ready after 60 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	ready := time.Since(start)
	peak, err := peakRSS(cmd.Process.Pid)
	rss := "n/a (no /proc)"
	ok := true
	if err == nil {
		rss = fmt.Sprintf("%.0f MB", float64(peak)/1e6)
		ok = peak <= 400e6
	}
	return []row{
		{measure: fmt.Sprintf("start-up with %s memories: process start to ready", thousands(n)),
			result: fmt.Sprintf("%.2f s", ready.Seconds()), target: "≤ 2 s", ok: ready <= 2*time.Second},
		{measure: fmt.Sprintf("start-up with %s memories: peak RSS", thousands(n)),
			result: rss, target: "≤ 400 MB", ok: ok},
	}, nil
}

// peakRSS reads a process's peak resident set size in bytes (Linux).
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
}
