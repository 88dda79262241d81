// Package cli is the hyatlas command line: it parses the subcommand, runs
// the server (headless or with the desktop window, which the caller injects
// so that nothing under backend/ imports Wails), or talks to a running
// instance through the typed API client.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hyatlas/backend/api"
	"hyatlas/backend/api/client"
	"hyatlas/backend/engine"
	"hyatlas/backend/hermes"
	"hyatlas/backend/memory"
)

// GUI runs the desktop window over a running engine and returns when the
// user quits. main.go supplies it in desktop builds.
type GUI func(ctx context.Context, eng *engine.Engine, log *slog.Logger) error

// Env is what the CLI needs from the process.
type Env struct {
	Args   []string // without the program name
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	GUI    GUI   // nil in builds without the desktop window
	Assets fs.FS // the built frontend
	// StartFailed shows a person why the desktop app could not start (its
	// window never opened), in a window of its own: launched from a menu,
	// no one reads stderr. It returns when they close it. nil in builds
	// without the desktop window.
	StartFailed func(message string) error
}

// command is one subcommand.
type command struct {
	name    string
	args    string // usage of the positional arguments
	summary string
	run     func(ctx context.Context, e Env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "", "run the memory server headless (no window)", runServe},
		{"status", "[--json]", "show the running instance's status", runStatus},
		{"add", "[--user ID] [--agent ID] [--session ID] [--json] TEXT|-", "remember a text (- reads stdin)", runAdd},
		{"search", "[--limit N] [--layer L] [--user ID] [--agent ID] [--json] QUERY", "recall memories", runSearch},
		{"list", "[--layer L] [--user ID] [--agent ID] [--category C] [--text T] [--min-strength S] [--max-strength S] [--sort date|oldest|strength] [--limit N] [--offset N] [--retired] [--json]", "list memories, newest first", runList},
		{"remember", "[--layer L] [--category C] [--strength S] [--user ID] [--agent ID] [--json] TEXT|-", "add a memory by hand, as is (no LLM call)", runRemember},
		{"edit", "[--content TEXT] [--category C] [--strength S] [--json] ID", "change a memory's text, category or strength", runEdit},
		{"promote", "[--steps N] [--json] ID", "raise a memory's strength by a step (HYATLAS_STRENGTH_STEP, 0.1 by default)", runNudge(1)},
		{"demote", "[--steps N] [--json] ID", "lower a memory's strength by a step (HYATLAS_STRENGTH_STEP, 0.1 by default)", runNudge(-1)},
		{"retire", "[--reason TEXT] [--how KIND] [--json] ID", "retire a memory (reversible)", runRetire},
		{"restore", "[--json] ID", "restore a retired memory", runRestore},
		{"delete", "ID", "delete a memory for good (not reversible)", runDelete},
		{"prompt", "[--user ID] [--agent ID] [--limit N] [--json]", "print the Persistent Memory block agents fold into their prompt", runPrompt},
		{"dashboard", "", "print a one-time link that opens the dashboard in a browser", runDashboard},
		{"models", "[list | install NAME | cancel NAME | remove NAME | verify NAME]", "manage downloadable embedding models (bge-small)", runModels},
		{"key", "[--memory-only] set | delete | status", "manage the extraction key (set reads it from stdin, unechoed)", runKey},
		{"egress", "[--limit N] [--json]", "show the ledger of every LLM call (what left this machine)", runEgress},
		{"reprocess", "[ID...]", "queue memories for extraction again (all not extracted when no ID)", runReprocess},
		{"export", "[-o FILE] [--markdown] [--vectors] [--user ID] [--agent ID]", "export memories and workspace files (JSON Lines; Markdown to read)", runExport},
		{"import", "[--json] FILE|-", "merge an export into this instance (ids already here are kept)", runImport},
		{"snapshot", "[--json] create | list | verify ID | restore ID | delete ID", "snapshots of the data: make, list, check, restore (undo: restore the before-restore one), delete", runSnapshot},
		{"digest", "[--json]", "run a consolidation pass now (ultra) and print its report", runDigest},
		{"hermes", "[--profile NAME | --home DIR] [--json] install | uninstall | status", "connect the Hermes agent: install its memory plugin and make it Hermes's memory provider, or undo that", runHermes},
		{"token", "[--new]", "print the API token (for Authorization: Bearer); --new replaces it, and the old one stops working", runToken},
		{"bench", "[--quick] | recall --locomo FILE [--embed glove|hash] [--conversations N] [--questions N] [--json] | search [--n N]... [--embed glove|hash] [--queries N] [--json] | graph [--n N] [--queries N] [--json] | export [--n N] [--embed glove|hash] [--json] | snapshot [--n N] [--embed glove|hash] [--json]",
			"measure performance targets; recall: LoCoMo recall; search: search latency; graph: knowledge-graph views; export: export and import; snapshot: snapshot and restore (temp data)", runBench},
		{"version", "", "print the version", runVersion},
		{"help", "", "show this help", nil},
	}
}

// usageError is bad usage: the CLI prints it with the command's usage
// line and exits 2.
type usageError struct{ msg string }

// reported is an error the user was already shown: Run exits 1 without
// printing it again.
type reported struct{ err error }

func (r reported) Error() string { return r.err.Error() }
func (r reported) Unwrap() error { return r.err }

func (u usageError) Error() string { return u.msg }

// helpRequested is -h or --help given to a command: the CLI prints the
// command's usage and flags and exits 0.
type helpRequested struct{ fs *flag.FlagSet }

func (helpRequested) Error() string { return "help requested" }

// printCommandHelp prints a command's usage line, summary and flags.
func printCommandHelp(w io.Writer, c command, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage:", strings.TrimSpace("hyatlas "+c.name+" "+c.args))
	if c.summary != "" {
		fmt.Fprintf(w, "\n%s\n", c.summary)
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// Run runs the command line and returns the exit code: 0 ok, 1 failed,
// 2 bad usage.
func Run(ctx context.Context, e Env) int {
	out := &outputWriter{w: e.Stdout}
	e.Stdout = out
	code := run(ctx, e)
	if code == 0 && out.err != nil {
		fmt.Fprintln(e.Stderr, "hyatlas: the output could not be written:", out.err)
		return 1
	}
	return code
}

// outputWriter keeps the first failed write to the output: a command
// whose output could not be written (a full disk, a file that cannot
// grow) fails, though its printing went on as if it had been.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err != nil {
		o.err = err
	}
	return n, err
}

func run(ctx context.Context, e Env) int {
	args := e.Args
	cmd := command{name: "hyatlas", run: runApp}
	if len(args) > 0 {
		name := args[0]
		args = args[1:]
		switch name {
		case "help", "-h", "--help":
			if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
				printUsage(e.Stdout)
				return 0
			}
			name, args = args[0], []string{"-h"} // help CMD: that command's own help
		case "--version", "-version":
			name = "version"
		}
		c, ok := find(name)
		if !ok {
			fmt.Fprintf(e.Stderr, "hyatlas: unknown command %q\n\n", name)
			printUsage(e.Stderr)
			return 2
		}
		cmd = c
	}
	var err error
	if !pathCommands[cmd.name] {
		err = checkUTF8(args)
	}
	if err == nil {
		err = cmd.run(ctx, e, args)
	}
	var ue usageError
	var help helpRequested
	var told reported
	var sig signalled
	switch {
	case err == nil:
		return 0
	case errors.As(err, &told):
		return 1
	case errors.As(err, &sig):
		fmt.Fprintln(e.Stderr, "hyatlas:", cmd.name, sig.Error())
		return sig.code()
	case errors.As(err, &help):
		printCommandHelp(e.Stdout, cmd, help.fs)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(e.Stderr, "hyatlas:", ue.msg)
		fmt.Fprintln(e.Stderr, "usage:", strings.TrimSpace("hyatlas "+cmd.name+" "+cmd.args))
		return 2
	default:
		fmt.Fprintln(e.Stderr, "hyatlas:", humanError(err))
		return 1
	}
}

// pathCommands take file or folder names, which are bytes on Unix and
// need not be UTF-8; nothing they are given is stored as text.
var pathCommands = map[string]bool{"import": true, "export": true, "bench": true, "hermes": true}

// checkUTF8 refuses an argument that is not UTF-8 text (text in another
// encoding): JSON would carry each bad byte as U+FFFD, and the text or id
// stored would not be the one given.
func checkUTF8(args []string) error {
	for i, a := range args {
		if !utf8.ValidString(a) {
			return usageError{fmt.Sprintf("argument %d is not UTF-8 text: convert it first (iconv -t UTF-8)", i+1)}
		}
	}
	return nil
}

// humanError is err for a person: a domain error's message without its
// machine code.
func humanError(err error) string {
	// The user's message, without its code, wherever it is in the chain (a
	// download error joins it with its cause, which the message names).
	var me *memory.Error
	if errors.As(err, &me) {
		return me.Message
	}
	return err.Error()
}

func find(name string) (command, bool) {
	if name == "hyatlas" {
		return command{}, false // only the no-argument form opens the app
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return c, true
		}
	}
	return command{}, false
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "HyAtlas %s: local memory for AI agents.\n\n", engine.Version)
	fmt.Fprintln(w, "usage: hyatlas [command]")
	fmt.Fprintln(w, "\nWith no command, HyAtlas opens its window (or, with no display, runs headless).")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\n`hyatlas help COMMAND` (or `hyatlas COMMAND -h`) shows a command's flags.")
	fmt.Fprintln(w, "Settings come from HYATLAS_* environment variables; see the README.")
}

// parse parses flags that may appear before, between or after positional
// arguments, and checks the number of positional arguments. A text that
// starts with a dash but holds a space or is a number ("- buy milk", "-5
// degrees") is an argument, not an unknown flag, unless it is a flag's
// value.
func parse(fs *flag.FlagSet, args []string, minPos, maxPos int) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for len(args) > 0 {
		if looksLikeText(args[0]) {
			pos, args = append(pos, args[0]), args[1:]
			continue
		}
		k := nextText(fs, args)
		if err := fs.Parse(args[:k]); errors.Is(err, flag.ErrHelp) {
			return nil, helpRequested{fs}
		} else if err != nil {
			msg := err.Error()
			if maxPos != 0 && strings.HasPrefix(msg, "flag provided but not defined") {
				// An unknown "flag" may be a text meant as an argument.
				msg += " (a text that starts with - goes after --: hyatlas " + fs.Name() + ` -- "-text")`
			}
			return nil, usageError{msg}
		}
		rest := fs.Args()
		if consumed := k - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(append(pos, rest...), args[k:]...) // everything after -- is an argument
			break
		}
		if len(rest) == 0 {
			args = args[k:]
			continue
		}
		pos, args = append(pos, rest[0]), append(rest[1:], args[k:]...)
	}
	if len(pos) < minPos || (maxPos >= 0 && len(pos) > maxPos) {
		return nil, usageError{fmt.Sprintf("%s: wrong number of arguments", fs.Name())}
	}
	return pos, nil
}

// looksLikeText reports whether a, which may start with a dash, is text
// rather than a flag: it holds white space, or is a number.
func looksLikeText(a string) bool {
	if len(a) < 2 || a[0] != '-' || a[1] == '-' && len(a) == 2 {
		return false
	}
	if strings.ContainsFunc(a, unicode.IsSpace) {
		return true
	}
	_, err := strconv.ParseFloat(a, 64)
	return err == nil
}

// nextText is the index of the first argument of args that is text (see
// looksLikeText) and not a flag's value, or len(args): what fs.Parse may
// be given in one go.
func nextText(fs *flag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return len(args)
		case looksLikeText(a):
			return i
		case strings.HasPrefix(a, "-") && !strings.Contains(a, "="):
			if f := fs.Lookup(strings.TrimLeft(a, "-")); f != nil {
				if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
					i++ // its value follows, whatever it looks like
				}
			}
		}
	}
	return len(args)
}

// idArg checks a memory or snapshot id given on the command line before it
// goes into a URL path: an empty id, "." or "..", or one holding a slash,
// a backslash or a control character would name another endpoint.
func idArg(kind, id string) (string, error) {
	bad := strings.TrimSpace(id) == "" || id == "." || id == ".." ||
		strings.ContainsFunc(id, func(r rune) bool { return r == '/' || r == '\\' || unicode.IsControl(r) })
	if bad {
		return "", usageError{fmt.Sprintf("%q is not a %s id", id, kind)}
	}
	return id, nil
}

// connect returns a client for the running instance of the config
// directory: where its discovery file says it listens while that process
// runs (so HYATLAS_GO_PORT=0, or another port in this shell, still finds
// it), else the address the config names.
func connect(e Env) (*client.Client, error) {
	cfg, err := loadConfig(e)
	if err != nil {
		return nil, err
	}
	host := cfg.Host
	if host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	addr := "http://" + joinHostPort(host, cfg.Port)
	if d, err := hermes.ReadDiscovery(cfg.Paths.Config); err == nil && d.PID > 0 && processAlive(d.PID) &&
		strings.HasPrefix(d.Address, "http://") {
		addr = d.Address
	}
	// No token yet: no HyAtlas of this configuration has started, and the
	// client sends nothing but liveness checks (client.Client.Token). A
	// damaged token file says so.
	token, err := api.ReadToken(cfg.Paths.Config)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return client.New(addr, token), nil
}

// explain turns a connection failure, or a request too large, into advice.
func explain(err error) error {
	var answered *client.Error
	switch {
	case errors.Is(err, client.ErrUnreachable):
		return fmt.Errorf("%v: start it with `hyatlas` (or `hyatlas serve`)", err)
	case errors.As(err, &answered) && answered.Status == http.StatusRequestEntityTooLarge && strings.HasPrefix(answered.Message, "body is larger than"):
		// The body limit of a JSON request (an import has its own, and says it).
		return fmt.Errorf("the request is larger than HyAtlas takes (%d MiB as JSON, in which quotes, backslashes and control characters take more room than in the text); nothing was stored", api.MaxBodyBytes>>20)
	}
	return err
}
