package cli

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"
)

// runEgress prints the ledger of LLM calls, newest first.
func runEgress(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("egress", flag.ContinueOnError)
	limit := fs.Int("limit", 50, "how many calls (at most 1000)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *limit < 1 || *limit > 1000 {
		return usageError{fmt.Sprintf("--limit must be from 1 to 1000, not %d", *limit)}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	calls, err := c.Egress(ctx, *limit)
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		return printJSON(e.Stdout, calls)
	}
	if len(calls) == 0 {
		fmt.Fprintln(e.Stdout, "No LLM calls yet: none of your memories has left this machine.")
		return nil
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tHOST\tMODEL\tPURPOSE\tSENT\tRECEIVED\tSTATUS\tOUTCOME\tMS")
	for _, call := range calls {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%d\n", call.At.Local().Format(time.DateTime), call.Host,
			call.Model, call.Purpose, call.BytesOut, call.BytesIn, call.Status, call.Outcome, call.Duration)
	}
	return tw.Flush()
}

// runReprocess queues rows for extraction again and returns at once.
func runReprocess(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("reprocess", flag.ContinueOnError)
	ids, err := parse(fs, args, 0, -1)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := idArg("memory", id); err != nil {
			return err
		}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	res, err := c.Reprocess(ctx, ids)
	if err != nil {
		return explain(err)
	}
	if res.Note != "" {
		fmt.Fprintf(e.Stdout, "queued nothing: %s\n", res.Note)
		return nil
	}
	fmt.Fprintf(e.Stdout, "queued %d memories for extraction; `hyatlas status` shows how many are left\n", res.Queued)
	if len(ids) > res.Queued {
		return fmt.Errorf("%d of the %d ids are not live raw memories (only conversation turns are extracted): check them with `hyatlas list --layer l2_raw`",
			len(ids)-res.Queued, len(ids))
	}
	return nil
}
