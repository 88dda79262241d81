package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"text/tabwriter"
	"time"

	"hyatlas/backend/memory"
	"hyatlas/backend/snapshot"
)

// snapshotInfo is the part of a snapshot the CLI shows.
type snapshotInfo struct {
	ID       string `json:"id"`
	Size     int64  `json:"size"`
	Error    string `json:"error"`
	Manifest *struct {
		CreatedAt time.Time      `json:"created_at"`
		Reason    string         `json:"reason"`
		Layers    map[string]int `json:"layers"`
		Schema    int            `json:"schema_version"`
	} `json:"manifest"`
}

func (s snapshotInfo) memories() int {
	n := 0
	if s.Manifest != nil {
		for _, c := range s.Manifest.Layers {
			n += c
		}
	}
	return n
}

// runSnapshot: create | list | verify ID | restore ID | delete ID.
func runSnapshot(ctx context.Context, e Env, args []string) error {
	fs := flag.NewFlagSet("snapshot", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parse(fs, args, 1, 2)
	if err != nil {
		return err
	}
	verb, id := pos[0], ""
	wantID := verb == "verify" || verb == "restore" || verb == "delete"
	switch {
	case verb != "create" && verb != "list" && !wantID:
		return usageError{fmt.Sprintf("unknown snapshot command %q (create, list, verify, restore, delete)", verb)}
	case wantID && len(pos) != 2, !wantID && len(pos) != 1:
		return usageError{fmt.Sprintf("snapshot %s takes %s", verb, map[bool]string{true: "one snapshot id", false: "no argument"}[wantID])}
	case wantID:
		if id, err = idArg("snapshot", pos[1]); err != nil {
			return err
		}
		if err := snapshot.CheckID(id); err != nil {
			return usageError{memory.ErrorMessage(err)}
		}
	}
	c, err := connect(e)
	if err != nil {
		return err
	}
	c = c.Long()
	path := "/api/v1/snapshots/" + url.PathEscape(id)
	var out json.RawMessage
	switch verb {
	case "create":
		err = c.Do(ctx, http.MethodPost, "/api/v1/snapshots", nil, &out)
	case "list":
		err = c.Do(ctx, http.MethodGet, "/api/v1/snapshots", nil, &out)
	case "verify":
		err = c.Do(ctx, http.MethodPost, path+"/verify", nil, &out)
	case "restore":
		err = c.Do(ctx, http.MethodPost, path+"/restore", nil, &out)
	case "delete":
		err = c.Do(ctx, http.MethodDelete, path, nil, &out)
	}
	if err != nil {
		return explain(err)
	}
	if *asJSON {
		_, err := fmt.Fprintln(e.Stdout, string(out))
		return err
	}
	return printSnapshot(e, verb, id, out)
}

func printSnapshot(e Env, verb, id string, out json.RawMessage) error {
	switch verb {
	case "create":
		var s snapshotInfo
		_ = json.Unmarshal(out, &s)
		fmt.Fprintf(e.Stdout, "snapshot %s made (%d memories, %d bytes)\n", s.ID, s.memories(), s.Size)
	case "list":
		var l struct {
			Snapshots []snapshotInfo `json:"snapshots"`
		}
		_ = json.Unmarshal(out, &l)
		if len(l.Snapshots) == 0 {
			fmt.Fprintln(e.Stdout, "No snapshots yet. `hyatlas snapshot create` makes one now.")
			return nil
		}
		tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tMADE\tWHY\tMEMORIES\tBYTES")
		for _, s := range l.Snapshots {
			if s.Manifest == nil {
				fmt.Fprintf(tw, "%s\t-\tunreadable: %s\t-\t%d\n", printable(s.ID, false), printable(s.Error, false), s.Size)
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", printable(s.ID, false), s.Manifest.CreatedAt.Local().Format(time.DateTime), printable(s.Manifest.Reason, false), s.memories(), s.Size)
		}
		return tw.Flush()
	case "verify":
		fmt.Fprintf(e.Stdout, "snapshot %s is sound: checksums, SQLite integrity and counts match\n", id)
	case "restore":
		var r struct {
			Before       snapshotInfo `json:"before"`
			WritesPaused int64        `json:"writes_paused_ms"`
			Warning      string       `json:"warning"`
		}
		_ = json.Unmarshal(out, &r)
		if r.Warning != "" {
			fmt.Fprintf(e.Stdout, "%s: %s\n", id, r.Warning)
			return nil
		}
		fmt.Fprintf(e.Stdout, "restored %s (writes waited %d ms); undo with: hyatlas snapshot restore %s\n", id, r.WritesPaused, r.Before.ID)
	case "delete":
		fmt.Fprintf(e.Stdout, "deleted snapshot %s\n", id)
	}
	return nil
}
