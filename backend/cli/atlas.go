package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"hyatlas/backend/api"

	"hyatlas/backend/memory"
)

// optionalFloat is a flag that is nil until it is given; a unit one takes
// 0 to 1 only (a strength).
type optionalFloat struct {
	v    *float64
	unit bool
}

func (o *optionalFloat) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatFloat(*o.v, 'f', -1, 64)
}

func (o *optionalFloat) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%s is out of range", s)
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a number", s)
	}
	if o.unit && (f < 0 || f > 1) {
		return fmt.Errorf("%s is not between 0 and 1", s)
	}
	o.v = &f
	return nil
}

// runRemember adds a memory by hand: stored as is, no LLM call.
func runRemember(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("remember", flag.ContinueOnError)
	layer := fs.String("layer", "", "l3_fact (default), l1_profile, l6_schema or l7_intention")
	category := fs.String("category", "", "fact, preference, goal, style or any short text (default: the layer's)")
	strength := optionalFloat{unit: true}
	fs.Var(&strength, "strength", "0 to 1 (default 0.5)")
	user := fs.String("user", "", "user id")
	agent := fs.String("agent", "", "agent id")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, -1)
	if err != nil {
		return err
	}
	text, err := textArg(e, pos)
	if err != nil {
		return err
	}
	if _, err := memory.ManualLayer(*layer); err != nil {
		return usageError{memory.ErrorMessage(err)}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	var m api.MemoryJSON
	err = c.Do(ctx, http.MethodPost, "/api/v1/memories", api.RememberRequest{Content: text, Layer: *layer,
		Category: *category, Strength: strength.v, UserID: *user, AgentID: *agent}, &m)
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, m)
	}
	fmt.Fprintf(e.Stdout, "remembered %s (%s, %s, strength %.2f)\n", printable(m.ID, false), m.Layer, printable(m.Category, false), m.Strength)
	return nil
}

// runNudge promotes (sign 1) or demotes (sign -1) a memory.
func runNudge(sign int) func(context.Context, Env, []string) error {
	name := map[int]string{1: "promote", -1: "demote"}[sign]
	return func(ctx context.Context, e Env, args []string) error {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		steps := fs.Int("steps", 1, "how many steps (1-10)")
		asJSON := fs.Bool("json", false, "print JSON")
		pos, err := parse(fs, args, 1, 1)
		if err != nil {
			return err
		}
		id, err := idArg("memory", pos[0])
		if err != nil {
			return err
		}
		if *steps < 1 || *steps > 10 {
			return usageError{fmt.Sprintf("--steps must be from 1 to 10, not %d", *steps)}
		}
		c, err := connect(e)
		if err != nil {
			return err
		}
		var m api.MemoryJSON
		if err := c.Do(ctx, http.MethodPost, "/api/v1/memories/"+url.PathEscape(id)+"/"+name,
			api.NudgeRequest{Steps: steps}, &m); err != nil {
			return explain(err)
		}
		if *asJSON {
			return printJSON(e.Stdout, m)
		}
		bound := "" // a nudge at a bound changes nothing: say so
		if sign > 0 && m.Strength >= 1 {
			bound = " (the most it can be)"
		} else if sign < 0 && m.Strength <= 0 {
			bound = " (the least it can be; `hyatlas retire` hides it)"
		}
		fmt.Fprintf(e.Stdout, "%s: strength %.2f%s\n", m.ID, m.Strength, bound)
		return nil
	}
}

// runEdit changes a memory's text, category or strength.
func runEdit(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("edit", flag.ContinueOnError)
	var content, category optionalString
	fs.Var(&content, "content", "the new text (re-embedded; the old one stays in the history)")
	fs.Var(&category, "category", "the new category")
	strength := optionalFloat{unit: true}
	fs.Var(&strength, "strength", "the new strength, 0 to 1")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	id, err := idArg("memory", pos[0])
	if err != nil {
		return err
	}
	if content.v == nil && category.v == nil && strength.v == nil {
		return usageError{"give --content, --category or --strength"}
	}
	if content.v != nil && strings.TrimSpace(*content.v) == "" {
		return usageError{"--content is empty: give the new text (retire the memory to hide it)"}
	}
	if category.v != nil && strings.TrimSpace(*category.v) == "" {
		return usageError{"--category is empty: give the new category"}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	var m api.MemoryJSON
	if err := c.Do(ctx, http.MethodPatch, "/api/v1/memories/"+url.PathEscape(id),
		api.PatchRequest{Content: content.v, Category: category.v, Strength: strength.v}, &m); err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, m)
	}
	about := m.Category // a layer with no strength (raw turns, summaries) shows none
	if m.Layer.Curated() {
		about = fmt.Sprintf("%s, strength %.2f", m.Category, m.Strength)
	}
	if about == "" {
		about = string(m.Layer)
	}
	fmt.Fprintf(e.Stdout, "edited %s (%s): %s\n", printable(m.ID, false), printable(about, false), oneLine(m.Content, 80))
	return nil
}

// optionalString is a flag that is nil until it is given.
type optionalString struct{ v *string }

func (o *optionalString) String() string {
	if o.v == nil {
		return ""
	}
	return *o.v
}

func (o *optionalString) Set(s string) error { o.v = &s; return nil }

// runDelete deletes a memory for good.
func runDelete(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("delete", flag.ContinueOnError)
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
	if err := c.Do(ctx, http.MethodDelete, "/api/v1/memories/"+url.PathEscape(id), nil, nil); err != nil {
		return explain(err)
	}
	fmt.Fprintf(e.Stdout, "deleted %s for good (it cannot be restored; `hyatlas retire` hides a memory reversibly)\n", id)
	return nil
}

// runPrompt prints the Persistent Memory block an agent folds into its
// prompt.
func runPrompt(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("prompt", flag.ContinueOnError)
	user := fs.String("user", "", "user id")
	agent := fs.String("agent", "", "agent id")
	limit := fs.Int("limit", 0, "at most this many lines (default: HYATLAS_PROMPT_LIMIT, 40)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if err := limitArg(*limit, memory.MaxPromptLimit); err != nil {
		return err
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	q := url.Values{}
	for k, v := range map[string]string{"user_id": *user, "agent_id": *agent} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if *limit != 0 {
		q.Set("limit", strconv.Itoa(*limit))
	}
	var out api.PromptResponse
	if err := c.Do(ctx, http.MethodGet, "/api/v1/prompt?"+q.Encode(), nil, &out); err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, out)
	}
	if out.Prompt == "" {
		who := *user
		if who == "" {
			who = memory.DefaultUserID
		}
		fmt.Fprintf(e.Stdout, "No memory of user %q is at or above strength %.2f yet: the prompt block is empty (promote one with `hyatlas promote ID`; another user's block: --user ID).\n", who, out.Threshold)
		return nil
	}
	fmt.Fprintln(e.Stdout, printable(strings.TrimRight(out.Prompt, "\n"), true))
	return nil
}
