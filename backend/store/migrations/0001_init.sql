-- The system of record. Times are unix milliseconds (UTC); NULL means unset.
CREATE TABLE memories (
    seq           INTEGER PRIMARY KEY,
    id            TEXT    NOT NULL UNIQUE,
    layer         TEXT    NOT NULL,
    content       TEXT    NOT NULL,
    user_id       TEXT    NOT NULL DEFAULT '',
    agent_id      TEXT    NOT NULL DEFAULT '',
    session_id    TEXT    NOT NULL DEFAULT '',
    category      TEXT    NOT NULL DEFAULT '',
    strength      REAL    NOT NULL DEFAULT 0.5,
    source        TEXT    NOT NULL DEFAULT '',
    source_ids    TEXT    NOT NULL DEFAULT '[]',
    metadata      TEXT    NOT NULL DEFAULT '{}',
    event_at      INTEGER,
    valid_to      INTEGER,
    due_at        INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    retired_at    INTEGER,
    retired_by    TEXT    NOT NULL DEFAULT '',
    retired_how   TEXT    NOT NULL DEFAULT '',
    retire_reason TEXT    NOT NULL DEFAULT '',
    use_count     INTEGER NOT NULL DEFAULT 0,
    last_used_at  INTEGER,
    extract_state TEXT    NOT NULL DEFAULT 'skipped',
    embedder      TEXT    NOT NULL DEFAULT ''  -- the model that made the row's vector; '' = none
);
CREATE INDEX memories_created    ON memories(created_at, seq);
CREATE INDEX memories_user       ON memories(user_id, created_at);
CREATE INDEX memories_layer      ON memories(layer, created_at);
-- Partial indexes make the status counts index-only.
CREATE INDEX memories_live_layer    ON memories(layer) WHERE retired_at IS NULL;
CREATE INDEX memories_live_embedder ON memories(embedder) WHERE retired_at IS NULL;
CREATE INDEX memories_retired       ON memories(layer) WHERE retired_at IS NOT NULL;
CREATE INDEX memories_retired_by    ON memories(retired_by) WHERE retired_by <> '';
CREATE INDEX memories_pending       ON memories(created_at) WHERE extract_state = 'pending' AND retired_at IS NULL;

-- One vector per row (little-endian float32s); memories.embedder names
-- the model that made it.
CREATE TABLE embeddings (
    memory_seq INTEGER PRIMARY KEY REFERENCES memories(seq) ON DELETE CASCADE,
    dims       INTEGER NOT NULL,
    vector     BLOB    NOT NULL
);

-- Full text, porter-stemmed, kept in step with memories by triggers, so it
-- always commits in the same transaction as the row.
CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, content = 'memories', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO memories_fts(rowid, content) VALUES (new.seq, new.content);
END;

-- Every retire, restore and edit. A hard delete removes the row's history
-- too, since it may hold the old text.
CREATE TABLE history (
    seq         INTEGER PRIMARY KEY,
    memory_id   TEXT    NOT NULL,
    at          INTEGER NOT NULL,
    action      TEXT    NOT NULL,
    how         TEXT    NOT NULL DEFAULT '',
    reason      TEXT    NOT NULL DEFAULT '',
    by_id       TEXT    NOT NULL DEFAULT '',
    old_content TEXT    NOT NULL DEFAULT '',
    detail      TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX history_memory ON history(memory_id, seq);
CREATE TRIGGER memories_history_delete AFTER DELETE ON memories BEGIN
    DELETE FROM history WHERE memory_id = old.id;
END;

-- Counters that survive restarts. writes counts every raw row ever stored.
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT INTO counters(name, value) VALUES ('writes', 0), ('searches', 0);
CREATE TRIGGER memories_count_writes AFTER INSERT ON memories WHEN new.layer = 'l2_raw' BEGIN
    UPDATE counters SET value = value + 1 WHERE name = 'writes';
END;

-- A row the readiness probe writes and reads back.
CREATE TABLE probe (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    at INTEGER NOT NULL
);
INSERT INTO probe(id, at) VALUES (1, 0);
