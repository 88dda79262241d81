package cli

import (
	"context"
	"flag"
	"fmt"
	"net/http"

	"hyatlas/backend/api"
)

// runDigest runs a consolidation pass now on the running instance and
// prints its report. It waits for the pass (up to its 10-minute budget);
// interrupting the command does not stop the pass.
func runDigest(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("digest", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0); err != nil {
		return err
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	var out api.DigestResponse
	if err := c.Long().Do(ctx, http.MethodPost, "/api/v1/digest", nil, &out); err != nil {
		return explain(err)
	}
	if *asJSON {
		if err := printJSON(e.Stdout, out); err != nil {
			return err
		}
	}
	if !out.DigestOK || out.Report == nil {
		return fmt.Errorf("no consolidation pass ran: %s", out.Reason)
	}
	if *asJSON {
		return nil
	}
	r := out.Report
	fmt.Fprintf(e.Stdout, "consolidation pass: %d facts, %d clusters run, %d still due\n", r.FactsIn, r.ClustersRun, r.ClustersPending)
	fmt.Fprintf(e.Stdout, "  merged %d, dropped %d, schemas %d (+%d across topics), relations %d, arc %d\n",
		r.Merged, r.Dropped, r.Schemas, r.CrossSchemas, r.Edges, r.Arc)
	if r.PrunedRaw+r.ProtectedRaw > 0 {
		fmt.Fprintf(e.Stdout, "  raw retention: %d deleted, %d kept because something cites them\n", r.PrunedRaw, r.ProtectedRaw)
	}
	fmt.Fprintf(e.Stdout, "  took %d ms; the graph holds %d entities and %d relations\n", r.DurationMS, out.GraphNodes, out.GraphEdges)
	for _, msg := range r.Errors {
		fmt.Fprintf(e.Stdout, "  note: %s\n", printable(msg, false))
	}
	return nil
}
