-- Full text for recall, rebuilt:
--
-- * Each raw row is also indexed by the text of the live raw row before it
--   in the same conversation (same user, agent and session), in a second
--   column weighted 0.4 against its own text: a question's words often sit
--   in the turn before its answer.
-- * Owner and layer are tokens in columns of their own (weight 0), so a
--   query names them inside MATCH and FTS5 intersects the lists itself
--   instead of SQLite joining every match of a common word to its row.
-- * Only live rows are indexed: retiring a row takes it out, restoring
--   puts it back.
--
-- The index is contentless (it keeps no copy of the text) and deletes by
-- rowid, so a row can be re-indexed whatever it was indexed with.

DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memories_fts;

-- Searches that name a date list the rows dated inside its window.
CREATE INDEX memories_event ON memories(user_id, event_at);

CREATE INDEX memories_conversation ON memories(user_id, agent_id, session_id, seq)
    WHERE layer = 'l2_raw' AND session_id <> '';

CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, context, owner, layer, content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO memories_fts(memories_fts, rank) VALUES ('rank', 'bm25(1.0, 0.4, 0.0, 0.0)');

-- The view every (re-)index reads from: a live row's four columns.
-- owner holds 'u' + hex(user id) and 'a' + hex(agent id) (one token each,
-- whatever the ids contain); layer holds the layer without its '_'.
CREATE VIEW memories_fts_source AS
SELECT m.seq AS seq, m.content AS content,
    CASE WHEN m.layer = 'l2_raw' AND m.session_id <> '' THEN coalesce((
        SELECT substr(p.content, 1, 4000) FROM memories p
        WHERE p.layer = 'l2_raw' AND p.session_id = m.session_id AND p.user_id = m.user_id
          AND p.agent_id = m.agent_id AND p.retired_at IS NULL AND p.seq < m.seq
        ORDER BY p.seq DESC LIMIT 1), '') ELSE '' END AS context,
    'u' || lower(hex(m.user_id)) || ' a' || lower(hex(m.agent_id)) AS owner,
    replace(m.layer, '_', '') AS layer
FROM memories m WHERE m.retired_at IS NULL;

INSERT INTO memories_fts(rowid, content, context, owner, layer)
SELECT seq, content, context, owner, layer FROM memories_fts_source;

-- Re-indexing goes through a queue table so that one trigger body serves
-- every case: a row queued here is taken out of the index and, if live,
-- put back with its current columns, in the same transaction.
CREATE TABLE fts_reindex (seq INTEGER PRIMARY KEY);

CREATE TRIGGER fts_reindex_run AFTER INSERT ON fts_reindex BEGIN
    DELETE FROM memories_fts WHERE rowid = new.seq;
    INSERT INTO memories_fts(rowid, content, context, owner, layer)
    SELECT seq, content, context, owner, layer FROM memories_fts_source WHERE seq = new.seq;
    DELETE FROM fts_reindex WHERE seq = new.seq;
END;

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT OR IGNORE INTO fts_reindex(seq) VALUES (new.seq);
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memories_fts WHERE rowid = old.seq;
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, retired_at, layer ON memories BEGIN
    INSERT OR IGNORE INTO fts_reindex(seq) VALUES (new.seq);
END;

-- A raw row whose text changes, or that is deleted, retired or restored,
-- changes the context of the next live raw row of its conversation:
-- re-index that row too. So a deleted or forgotten text leaves nothing of
-- itself in the index.
CREATE TRIGGER memories_fts_next_on_delete AFTER DELETE ON memories
WHEN old.layer = 'l2_raw' AND old.session_id <> '' BEGIN
    INSERT OR IGNORE INTO fts_reindex(seq)
    SELECT n.seq FROM memories n
    WHERE n.layer = 'l2_raw' AND n.session_id = old.session_id AND n.user_id = old.user_id
      AND n.agent_id = old.agent_id AND n.retired_at IS NULL AND n.seq > old.seq
    ORDER BY n.seq LIMIT 1;
END;

CREATE TRIGGER memories_fts_next_on_change AFTER UPDATE OF content, retired_at ON memories
WHEN new.layer = 'l2_raw' AND new.session_id <> '' BEGIN
    INSERT OR IGNORE INTO fts_reindex(seq)
    SELECT n.seq FROM memories n
    WHERE n.layer = 'l2_raw' AND n.session_id = new.session_id AND n.user_id = new.user_id
      AND n.agent_id = new.agent_id AND n.retired_at IS NULL AND n.seq > new.seq
    ORDER BY n.seq LIMIT 1;
END;
