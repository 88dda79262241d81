package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"hyatlas/backend/api"
	"hyatlas/backend/engine"
	"hyatlas/backend/memory"
)

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runStatus(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, st)
	}
	return printStatus(e.Stdout, c.Base, st)
}

// printStatus prints a status for a person: one line per part.
func printStatus(w io.Writer, base string, st api.StatusJSON) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "HyAtlas %s at %s (mode %s, up %s)\n", st.Version, base, st.Mode,
		(time.Duration(st.Uptime) * time.Second).String())
	if st.Storage != "" && st.Storage != "ok" {
		fmt.Fprintf(tw, "storage	NOTHING CAN BE STORED NOW: %s\n", st.Storage)
	}
	fmt.Fprintf(tw, "memories\t%d live, %d retired\n", st.Total, st.Retired)
	for _, l := range memory.Layers {
		fmt.Fprintf(tw, "  %s\t%s\t%d\n", l, l.Title(), st.Layers[l])
	}
	semantic := "semantic"
	if !st.Embedder.Semantic {
		semantic = "not semantic"
	}
	fmt.Fprintf(tw, "embedder\t%s, %d dims, %s\n", st.Embedder.Name, st.Embedder.Dims, semantic)
	if r := st.Reembed; r.Running {
		// Memories waiting for a vector of this model (an import without
		// vectors, a model switch): found by keyword meanwhile.
		fmt.Fprintf(tw, "re-embedding\t%d of %d memories have their vector (the rest are found by keyword meanwhile)\n", r.Done, r.Total)
	} else if r.Error != "" {
		fmt.Fprintf(tw, "re-embedding\tstopped: %s\n", printable(r.Error, false))
	}
	llmLine := string(st.LLM)
	if st.LLMModel != "" {
		llmLine += fmt.Sprintf(" (%s at %s)", st.LLMModel, st.LLMBase)
	}
	if st.UsesLLM {
		llmLine += fmt.Sprintf(", %d waiting for extraction", st.Unextracted)
	}
	fmt.Fprintf(tw, "llm\t%s\n", llmLine)
	fmt.Fprintf(tw, "writes / searches\t%d / %d\n", st.Writes, st.Searches)
	fmt.Fprintf(tw, "data\t%s\n", st.DataDir)
	return tw.Flush()
}

// textArg joins the positional arguments into a text; "-" reads stdin.
func textArg(e Env, pos []string) (string, error) {
	text := strings.Join(pos, " ")
	if text == "-" {
		b, err := io.ReadAll(io.LimitReader(e.Stdin, api.MaxBodyBytes+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if len(b) > api.MaxBodyBytes {
			return "", fmt.Errorf("the text on standard input is larger than %d MiB, more than a memory holds; nothing was stored", api.MaxBodyBytes>>20)
		}
		text = string(b)
		if !utf8.ValidString(text) {
			return "", errors.New("the text on standard input is not UTF-8: convert it first (iconv -t UTF-8); nothing was stored")
		}
	}
	if strings.TrimSpace(text) == "" {
		return "", usageError{"the text is empty"}
	}
	return text, nil
}

// limitArg checks a --limit value: 0 is the server's default, else 1 to max.
func limitArg(n, max int) error {
	if n < 0 || n > max {
		return usageError{fmt.Sprintf("--limit must be from 1 to %d (0: the default), not %d", max, n)}
	}
	return nil
}

// layerArg checks a --layer value ("" is none).
func layerArg(s string) error {
	if _, err := memory.ParseLayer(s); err != nil {
		return usageError{memory.ErrorMessage(err)}
	}
	return nil
}

func runAdd(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("add", flag.ContinueOnError)
	user := fs.String("user", "", "user id")
	agent := fs.String("agent", "", "agent id")
	session := fs.String("session", "", "session id")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, -1)
	if err != nil {
		return err
	}
	text, err := textArg(e, pos)
	if err != nil {
		return err
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	res, err := c.Add(ctx, api.AddRequest{Text: &text, UserID: *user, AgentID: *agent, SessionID: *session})
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, res)
	}
	fmt.Fprintf(e.Stdout, "remembered %s (extraction: %s)\n", res.MemoryID, res.ExtractionStatus)
	return nil
}

func runSearch(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	limit := fs.Int("limit", 0, "number of results (default 5)")
	layer := fs.String("layer", "", "only this layer")
	user := fs.String("user", "", "user id")
	agent := fs.String("agent", "", "agent id")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, -1)
	if err != nil {
		return err
	}
	if strings.TrimSpace(strings.Join(pos, " ")) == "" {
		return usageError{"the query is empty"}
	}
	if err := layerArg(*layer); err != nil {
		return err
	}
	if err := limitArg(*limit, memory.MaxSearchLimit); err != nil {
		return err
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	res, err := c.Search(ctx, api.SearchRequest{Query: strings.Join(pos, " "), Limit: *limit,
		Layer: *layer, UserID: *user, AgentID: *agent})
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, res)
	}
	if len(res.Ranked) == 0 {
		fmt.Fprintln(e.Stdout, "nothing relevant remembered")
		return nil
	}
	// In recall's order, with the score that made it (the fused one; the
	// cosine alone would look out of order); --json has every part.
	n := 0
	for _, ch := range res.Order {
		for _, h := range res.Memories[ch] {
			n++
			fmt.Fprintf(e.Stdout, "%2d. %.3f  %-12s %s  %s\n", n, h.Why.Fused, h.Layer, printable(h.MemoryID, false), oneLine(h.Content, 100))
		}
	}
	return nil
}

func runList(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	layer := fs.String("layer", "", "only this layer")
	user := fs.String("user", "", "user id")
	agent := fs.String("agent", "", "agent id")
	limit := fs.Int("limit", 0, "rows per page (default 20)")
	offset := fs.Int("offset", 0, "rows to skip")
	retired := fs.Bool("retired", false, "include retired memories")
	category := fs.String("category", "", "only this category")
	text := fs.String("text", "", "only memories whose text contains this (each of its words must also start a word of the text: tail finds Tailwind, ailwind does not; with --retired, anywhere in the text)")
	sort := fs.String("sort", "", "date (newest first, default), oldest or strength")
	minS, maxS := optionalFloat{unit: true}, optionalFloat{unit: true}
	fs.Var(&minS, "min-strength", "only strength at or above this")
	fs.Var(&maxS, "max-strength", "only strength at or below this")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if err := layerArg(*layer); err != nil {
		return err
	}
	if *sort != "" && *sort != "date" && *sort != "oldest" && *sort != "strength" {
		return usageError{fmt.Sprintf("--sort is date, oldest or strength, not %q", *sort)}
	}
	if err := limitArg(*limit, memory.MaxListLimit); err != nil {
		return err
	}
	if *offset < 0 {
		return usageError{fmt.Sprintf("--offset must be 0 or more, not %d", *offset)}
	}
	if minS.v != nil && maxS.v != nil && *minS.v > *maxS.v {
		return usageError{fmt.Sprintf("--min-strength %g is above --max-strength %g: nothing could match", *minS.v, *maxS.v)}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	inc := api.FlexBool(*retired)
	res, err := c.List(ctx, api.ListRequest{Layer: *layer, UserID: *user, AgentID: *agent,
		Limit: *limit, Offset: *offset, IncludeSuperseded: &inc, Category: *category, Q: *text, Sort: *sort,
		MinStrength: minS.v, MaxStrength: maxS.v})
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, res)
	}
	for _, m := range res.Memories {
		state := ""
		if m.InvalidAt != "" {
			state = " [retired: " + m.SupersededHow + "]"
		}
		strength := "   -" // a layer with no strength (raw turns, summaries)
		if memory.Layer(m.Layer).Curated() {
			strength = fmt.Sprintf("%.2f", m.Strength)
		}
		fmt.Fprintf(e.Stdout, "%s  %-12s %s %s %-10s%s  %s\n", m.TS, m.Layer, printable(m.MemoryID, false), strength, printable(m.Category, false), state, oneLine(m.Content, 80))
	}
	fmt.Fprintf(e.Stdout, "%d of %d shown (offset %d)\n", len(res.Memories), res.Total, res.Offset)
	return nil
}

func runRetire(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("retire", flag.ContinueOnError)
	reason := fs.String("reason", "", "why it is retired")
	how := fs.String("how", "", "how: dropped (default), forgotten, done, wrong (never true: reopens what its relation ended), ...")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	id, err := idArg("memory", pos[0])
	if err != nil {
		return err
	}
	if _, err := memory.ParseRetireHow(*how, memory.RetiredDropped); err != nil {
		return usageError{memory.ErrorMessage(err)}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	m, err := c.Retire(ctx, id, api.RetireRequest{How: *how, Reason: *reason})
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, m)
	}
	fmt.Fprintf(e.Stdout, "retired %s (%s); undo with: hyatlas restore %s\n", m.ID, m.RetiredHow, m.ID)
	return nil
}

func runRestore(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	id, err := idArg("memory", pos[0])
	if err != nil {
		return err
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	m, err := c.Restore(ctx, id)
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, m)
	}
	fmt.Fprintf(e.Stdout, "restored %s\n", m.ID)
	return nil
}

func runDashboard(ctx context.Context, e Env, args []string) error {
	if _, err := parse(flag.NewFlagSet("dashboard", flag.ContinueOnError), args, 0, 0); err != nil {
		return err
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	link, err := c.DashboardLink(ctx)
	if err != nil {
		return explain(err)
	}
	fmt.Fprintln(e.Stdout, link)
	return nil
}

// runToken prints the token, creating it if this install has none yet, so
// a client can be configured before the first start. --new replaces it
// (when it may have leaked): a running HyAtlas follows the token file, so
// the old token stops working at its next request, and clients that read
// the file (the Hermes plugin, these commands) go on by themselves.
func runToken(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fresh := fs.Bool("new", false, "replace the token with a new one")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	cfg, err := loadConfig(e)
	if err != nil {
		return err
	}
	if *fresh {
		tok, err := api.NewToken(cfg.Paths.Config)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.Stdout, tok)
		fmt.Fprintln(e.Stderr, "A new API token is in force; the old one no longer works. Give the new one to any client you gave the old one to (the Hermes plugin reads it by itself). Open browser dashboards must be opened again: hyatlas dashboard")
		return nil
	}
	tok, err := api.LoadOrCreateToken(cfg.Paths.Config)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout, tok)
	return nil
}

func runVersion(ctx context.Context, e Env, args []string) error {
	if _, err := parse(flag.NewFlagSet("version", flag.ContinueOnError), args, 0, 0); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "hyatlas %s\n", engine.Version)
	return nil
}

// oneLine shows a text on one line of at most n characters, made
// printable (see printable).
func oneLine(s string, n int) string {
	s = printable(strings.Join(strings.Fields(s), " "), false)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
