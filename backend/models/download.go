package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"hyatlas/backend/memory"
)

// fetch downloads f into dest through dest+".part", resuming an existing
// part with a Range request. The part is renamed to dest only after its size
// and checksum verify; a mismatch deletes it, an interruption keeps it.
// fromZero discards any part first (used once, when a resume is refused).
func (m *Manager) fetch(ctx context.Context, model string, f File, dest string, rep *reporter, fromZero bool) error {
	label := model + "/" + f.Name
	part := dest + partSuffix
	var offset int64
	if fromZero {
		if err := os.Remove(part); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", part, err)
		}
	} else if info, err := os.Stat(part); err == nil && info.Mode().IsRegular() {
		offset = info.Size()
		if f.Size > 0 && offset > f.Size {
			offset = 0 // longer than the file: start over
		}
	}
	if f.Size > 0 && offset == f.Size {
		// A complete part (interrupted before the rename): just verify it,
		// and download it once from zero if it is not the file.
		out, h, err := openPart(ctx, part, offset)
		if err != nil {
			return err
		}
		err = finish(out, h, part, dest, label, f, offset)
		if errors.Is(err, errMismatch) {
			return m.fetch(ctx, model, f, dest, rep, true)
		}
		return err
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.fileURL(f), nil)
	if err != nil {
		return fmt.Errorf("download %s: %w", label, err)
	}
	// Identity keeps byte offsets meaningful for Range and the hash.
	req.Header.Set("Accept-Encoding", "identity")
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	client := m.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return cancelled(ctx.Err())
		}
		return errors.Join(memory.Errorf(memory.EUNAVAILABLE, "download %s: %v", label, err), err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		offset = 0 // no Range sent, or the server ignored it
	case resp.StatusCode == http.StatusPartialContent && offset > 0 && rangeStart(resp) == offset:
	case (resp.StatusCode == http.StatusPartialContent || resp.StatusCode == http.StatusRequestedRangeNotSatisfiable) && offset > 0 && !fromZero:
		// A range we did not ask for, or a part the server cannot extend.
		resp.Body.Close()
		return m.fetch(ctx, model, f, dest, rep, true)
	default:
		return memory.Errorf(memory.EUNAVAILABLE, "download %s: server answered %s", label, resp.Status)
	}
	if resp.StatusCode == http.StatusOK && f.Size > 0 && resp.ContentLength >= 0 && resp.ContentLength != f.Size {
		return notTheFile(label, resp, resp.ContentLength, f.Size) // an existing part stays as it was
	}
	start := offset

	out, h, err := openPart(ctx, part, offset)
	if err != nil {
		return err
	}
	total := f.Size
	if total <= 0 {
		total = -1
		if resp.ContentLength >= 0 {
			total = offset + resp.ContentLength
		}
	}
	var body io.Reader = resp.Body
	if f.Size > 0 {
		body = io.LimitReader(resp.Body, f.Size-offset+1) // one byte more reveals an oversize file
	}
	done := offset
	buf := make([]byte, 256<<10)
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				out.Close()
				return fmt.Errorf("download %s: write: %w", label, err)
			}
			h.Write(buf[:n])
			done += int64(n)
			rep.report(Progress{Model: model, File: f.Name, Done: done, Total: total, Phase: PhaseDownload}, false)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			out.Close() // the part keeps what arrived, for a later resume
			if ctx.Err() != nil {
				return cancelled(ctx.Err())
			}
			return errors.Join(memory.Errorf(memory.EUNAVAILABLE,
				"download %s interrupted after %d bytes (run the install again to resume): %v", label, done, rerr), rerr)
		}
	}
	rep.report(Progress{Model: model, File: f.Name, Done: done, Total: total, Phase: PhaseDownload}, true)
	if f.Size > 0 && done < f.Size {
		// The answer ended cleanly (a cut connection ends with an error,
		// kept above for a resume): the server meant to send this little,
		// so it is not the file, and nothing of it is resumed from.
		err := out.Truncate(start)
		out.Close()
		if start == 0 || err != nil {
			os.Remove(part)
		}
		return notTheFile(label, resp, done-start, f.Size)
	}
	err = finish(out, h, part, dest, label, f, done)
	if errors.Is(err, errMismatch) && start > 0 && !fromZero {
		// The part it resumed from may be what was wrong: once from zero.
		return m.fetch(ctx, model, f, dest, rep, true)
	}
	return err
}

// errMismatch marks a download whose size or checksum is not the file's
// (errors.Is; the message is the wrapped error's).
var errMismatch = errors.New("not the expected file")

type mismatchError struct{ error }

func (e mismatchError) Unwrap() error        { return e.error }
func (e mismatchError) Is(target error) bool { return target == errMismatch }

// notTheFile is the error of an answer that is not the file (got bytes of
// it, where the file has size): a short page from a proxy or a network's
// sign-in page, sent with 200 in its place.
func notTheFile(label string, resp *http.Response, got, size int64) error {
	what := resp.Header.Get("Content-Type")
	if what == "" {
		what = "no type"
	}
	return memory.Errorf(memory.EUNAVAILABLE, "download %s: the server answered with something that is not the file "+
		"(%s, %d bytes where the file has %d; a proxy or a network sign-in page?); nothing of it was kept",
		label, what, got, size)
}

// openPart opens (creating) a part file, cuts it to offset bytes and hashes
// them, leaving the file positioned at offset.
func openPart(ctx context.Context, part string, offset int64) (*os.File, hash.Hash, error) {
	out, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", part, err)
	}
	h := sha256.New()
	err = out.Truncate(offset)
	if err == nil && offset > 0 {
		_, err = io.Copy(h, io.NewSectionReader(out, 0, offset))
	}
	if err == nil {
		_, err = out.Seek(offset, io.SeekStart)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		out.Close()
		if ctx.Err() != nil {
			return nil, nil, cancelled(ctx.Err())
		}
		return nil, nil, fmt.Errorf("resume %s: %w", part, err)
	}
	return out, h, nil
}

// finish checks size and checksum of a complete part, syncs it and renames
// it into place. A mismatch deletes the part. It always closes out.
func finish(out *os.File, h hash.Hash, part, dest, label string, f File, size int64) error {
	if f.Size > 0 && size != f.Size {
		out.Close()
		os.Remove(part)
		return mismatchError{memory.Errorf(memory.EUNAVAILABLE, "size mismatch for %s: expected %d bytes, got %d or more (download deleted)", label, f.Size, size)}
	}
	if sum := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(sum, f.SHA256) {
		out.Close()
		os.Remove(part)
		return mismatchError{memory.Errorf(memory.EUNAVAILABLE, "checksum mismatch for %s: expected %s, got %s (download deleted)", label, f.SHA256, sum)}
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("sync %s: %w", part, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("close %s: %w", part, err)
	}
	// The bytes received matched; check the bytes on disk too, so nothing
	// that changed the file meanwhile is installed as verified.
	if sum, err := hashFile(context.Background(), part, nil); err != nil || !strings.EqualFold(sum, f.SHA256) {
		os.Remove(part)
		return memory.Errorf(memory.EUNAVAILABLE, "%s changed on disk while downloading (download deleted): %v", label, err)
	}
	if err := os.Rename(part, dest); err != nil {
		return fmt.Errorf("install %s: %w", dest, err)
	}
	syncDir(filepath.Dir(dest))
	return nil
}

// syncDir makes a rename durable where the OS allows syncing a directory
// (not on Windows, where the error is ignored).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// rangeStart returns the first byte of a 206 answer's Content-Range, or -1.
func rangeStart(resp *http.Response) int64 {
	cr, ok := strings.CutPrefix(resp.Header.Get("Content-Range"), "bytes ")
	if !ok {
		return -1
	}
	first, _, ok := strings.Cut(cr, "-")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(first, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// fileURL resolves a catalog URL against the base URL.
func (m *Manager) fileURL(f File) string {
	if strings.HasPrefix(f.URL, "https://") || strings.HasPrefix(f.URL, "http://") {
		return f.URL
	}
	base := m.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	return strings.TrimSuffix(base, "/") + "/" + strings.TrimPrefix(f.URL, "/")
}
