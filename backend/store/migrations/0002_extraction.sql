-- Extraction: tries and the last error of each queued raw row.
ALTER TABLE memories ADD COLUMN extract_tries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN extract_error TEXT NOT NULL DEFAULT '';

-- The egress ledger: one row per HTTP request to an LLM endpoint.
CREATE TABLE egress (
    seq         INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    purpose     TEXT    NOT NULL,
    bytes_out   INTEGER NOT NULL,
    bytes_in    INTEGER NOT NULL,
    status      INTEGER NOT NULL,
    outcome     TEXT    NOT NULL,
    duration_ms INTEGER NOT NULL
);
CREATE INDEX egress_at ON egress(at);

-- Episodes of work: an owner's writes with no gap over HYATLAS_EPISODE_GAP.
-- state: open (still growing), closed (ended, summary due), summarized.
CREATE TABLE episodes (
    seq        INTEGER PRIMARY KEY,
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL,
    started_at INTEGER NOT NULL,
    last_at    INTEGER NOT NULL,
    writes     INTEGER NOT NULL,
    state      TEXT    NOT NULL DEFAULT 'open',
    summary_id TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX episodes_owner ON episodes(user_id, agent_id, state);
CREATE INDEX episodes_state ON episodes(state, last_at);

-- Links between memories that stay separate (reconcile LINK).
CREATE TABLE links (
    a    TEXT    NOT NULL,
    b    TEXT    NOT NULL,
    kind TEXT    NOT NULL,
    at   INTEGER NOT NULL,
    PRIMARY KEY (a, b, kind)
);
CREATE TRIGGER memories_links_delete AFTER DELETE ON memories BEGIN
    DELETE FROM links WHERE a = old.id OR b = old.id;
END;
