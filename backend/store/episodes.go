package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hyatlas/backend/memory"
)

// TouchEpisode adds a write at at to the owner's open episode, or, when
// the gap since that episode's last write is longer than gap, closes it
// (its summary becomes due) and opens a new one.
func (s *Store) TouchEpisode(ctx context.Context, o memory.Owner, at time.Time, gap time.Duration) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var seq, last int64
		err := tx.QueryRowContext(ctx, `SELECT seq, last_at FROM episodes WHERE user_id = ? AND agent_id = ?
			AND state = 'open' ORDER BY seq DESC LIMIT 1`, o.UserID, o.AgentID).Scan(&seq, &last)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("read episode: %w", err)
		case at.UnixMilli()-last <= gap.Milliseconds():
			_, err := tx.ExecContext(ctx, `UPDATE episodes SET last_at = max(last_at, ?), writes = writes + 1
				WHERE seq = ?`, at.UnixMilli(), seq)
			return err
		default:
			if _, err := tx.ExecContext(ctx, `UPDATE episodes SET state = 'closed' WHERE seq = ?`, seq); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO episodes (user_id, agent_id, started_at, last_at, writes)
			VALUES (?, ?, ?, ?, 1)`, o.UserID, o.AgentID, at.UnixMilli(), at.UnixMilli())
		return err
	})
}

// DueEpisodes closes open episodes idle since before idleBefore and
// returns every closed episode still waiting for its summary, oldest first.
func (s *Store) DueEpisodes(ctx context.Context, idleBefore time.Time) ([]memory.Episode, error) {
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE episodes SET state = 'closed' WHERE state = 'open' AND last_at < ?`,
			idleBefore.UnixMilli())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("close idle episodes: %w", err)
	}
	var out []memory.Episode
	err = s.query(ctx, `SELECT seq, user_id, agent_id, started_at, last_at, writes FROM episodes
		WHERE state = 'closed' ORDER BY seq`, nil, func(r *sql.Rows) error {
		var e memory.Episode
		var from, to int64
		err := r.Scan(&e.Seq, &e.Owner.UserID, &e.Owner.AgentID, &from, &to, &e.Writes)
		e.StartedAt, e.LastAt = time.UnixMilli(from).UTC(), time.UnixMilli(to).UTC()
		out = append(out, e)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list episodes: %w", err)
	}
	return out, nil
}

// CloseEpisode closes the owner's open episode; false when there was none.
// With a session, only an episode holding a write of that session closes:
// an unknown or mistyped session id never ends the owner's current work.
func (s *Store) CloseEpisode(ctx context.Context, o memory.Owner, session string) (bool, error) {
	var n int64
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE episodes SET state = 'closed' WHERE user_id = ? AND agent_id = ?
			AND state = 'open' AND (? = '' OR EXISTS (SELECT 1 FROM memories m
				WHERE m.user_id = episodes.user_id AND m.agent_id = episodes.agent_id AND m.session_id = ?
				AND m.created_at BETWEEN episodes.started_at AND episodes.last_at))`,
			o.UserID, o.AgentID, session, session)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("close episode: %w", err)
	}
	return n > 0, nil
}

// SetEpisodeSummary marks an episode summarised by the given L4 row.
func (s *Store) SetEpisodeSummary(ctx context.Context, seq int64, summaryID string) error {
	return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE episodes SET state = 'summarized', summary_id = ? WHERE seq = ?`,
			summaryID, seq)
		return err
	})
}

var _ memory.ExtractionStore = (*Store)(nil)
