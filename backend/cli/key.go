package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
	"hyatlas/backend/secrets"
)

// runKey manages the extraction key: through the running instance when
// there is one (it starts extracting at once), else directly in the OS
// keyring (the next start uses it). The key is read from stdin, without
// echo on a terminal; it is never printed.
func runKey(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("key", flag.ContinueOnError)
	memoryOnly := fs.Bool("memory-only", false, "set: keep the key in the running instance's memory only (no keyring)")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	verb := pos[0]
	if verb != "set" && verb != "delete" && verb != "status" {
		return usageError{"key: say set, delete or status"}
	}
	if *memoryOnly && verb != "set" {
		return usageError{"key: --memory-only goes with set"}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	online := !errors.Is(c.Health(ctx), client.ErrUnreachable)
	var st api.KeyStatus
	switch verb {
	case "set":
		key, err := readKey(e)
		if err != nil {
			return err
		}
		switch {
		case *memoryOnly && !online:
			return errors.New("--memory-only hands the key to a running instance, and none runs: start it with `hyatlas` first")
		case *memoryOnly:
			st, err = c.HandKey(ctx, key)
		case online:
			st, err = c.SaveKey(ctx, key)
		default:
			err = offlineKeys(e).Save(key)
			st = api.KeyStatus{IsSet: err == nil, Origin: string(secrets.OriginKeyring), KeyringAvailable: err == nil}
		}
		if err != nil {
			return keyAdvice(err, online)
		}
	case "delete":
		if online {
			st, err = c.DeleteKey(ctx)
		} else {
			err = offlineKeys(e).Delete()
		}
		if err != nil {
			return err
		}
		if !online {
			st, err = offlineStatus(ctx, e)
		}
	default:
		if online {
			st, err = c.KeyStatus(ctx)
		} else {
			st, err = offlineStatus(ctx, e)
		}
	}
	if err != nil {
		return err
	}
	printKeyStatus(e.Stdout, st, online)
	return nil
}

// readKey reads one key from stdin: from a terminal without echo, else the
// first line of what is piped in.
func readKey(e Env) (string, error) {
	if f, ok := e.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(e.Stderr, "Extraction key (not shown): ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.Stderr)
		if err != nil {
			return "", fmt.Errorf("read the key: %w", err)
		}
		return checkKeyInput(string(b))
	}
	line, err := bufio.NewReader(io.LimitReader(e.Stdin, secrets.MaxKeyBytes+2)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the key from stdin: %w", err)
	}
	return checkKeyInput(strings.TrimRight(line, "\r\n"))
}

// checkKeyInput refuses an empty key, and one that is not UTF-8: sent to
// a running instance as JSON, each bad byte would become U+FFFD, and the
// key kept would not be the one given.
func checkKeyInput(key string) (string, error) {
	switch {
	case strings.TrimSpace(key) == "":
		return "", usageError{"key set: give the key on stdin (e.g. `hyatlas key set < keyfile`)"}
	case !utf8.ValidString(key):
		return "", usageError{"key set: the key is not UTF-8 text; check the file it came from"}
	}
	return key, nil
}

// keyAdvice adds what to do when no keyring can hold the key: hand it to
// the running instance for this run, or keep it in a file.
func keyAdvice(err error, online bool) error {
	if !strings.Contains(err.Error(), "keyring") {
		return err
	}
	if online {
		return fmt.Errorf("%s\nTo use the key for this run only: hyatlas key set --memory-only\n"+
			"To keep it without a keyring: put it in a file (mode 0600) and set HYATLAS_LLM_KEY_FILE to its path", humanError(err))
	}
	return fmt.Errorf("%s\nTo keep it without a keyring: put it in a file (mode 0600) and set HYATLAS_LLM_KEY_FILE to its path\n"+
		"Or start HyAtlas (`hyatlas`) and run `hyatlas key set --memory-only` to use it until it stops", humanError(err))
}

// offlineKeys is the key source without a running instance, as the next
// start will see it: the OS keyring, HYATLAS_LLM_KEY_FILE and
// HYATLAS_LLM_KEY (a configuration that does not load: the keyring only).
func offlineKeys(e Env) *secrets.KeySource {
	// What a start would warn of (a key file it cannot read, or refuses)
	// is said here too, so "not set" is never the whole story.
	c := secrets.KeySourceConfig{Keyring: secrets.OSKeyring(), Warn: func(msg string) { fmt.Fprintln(e.Stderr, msg) }}
	if cfg, err := loadConfig(e); err == nil {
		c.File, c.Env = cfg.LLM.KeyFile, cfg.LLM.Key
	}
	return secrets.NewKeySource(c)
}

func offlineStatus(ctx context.Context, e Env) (api.KeyStatus, error) {
	isSet, origin, ok, err := offlineKeys(e).Status(ctx)
	return api.KeyStatus{IsSet: isSet, Origin: string(origin), KeyringAvailable: ok}, err
}

func printKeyStatus(w io.Writer, st api.KeyStatus, online bool) {
	where := map[string]string{"handed": "handed to the running instance, kept in memory only", "keyring": "from the OS keyring",
		"file": "from HYATLAS_LLM_KEY_FILE", "env": "from HYATLAS_LLM_KEY"}[st.Origin]
	switch {
	case st.IsSet:
		fmt.Fprintf(w, "key: set, %s\n", where)
	default:
		fmt.Fprintln(w, "key: not set")
	}
	if !st.KeyringAvailable {
		fmt.Fprintln(w, "OS keyring: not available here (use HYATLAS_LLM_KEY_FILE, or --memory-only while HyAtlas runs)")
	}
	if !online {
		fmt.Fprintln(w, "(no instance is running: this is the key its next start will use)")
	}
}
