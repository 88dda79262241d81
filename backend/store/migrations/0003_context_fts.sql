-- Full text with conversational context: each raw row is also indexed by
-- the text of the live raw row before it in the same conversation (same
-- user, agent and session), in a second column weighted 0.4 against its
-- own text. A question's words often sit in the turn before its answer.
--
-- The index is contentless (it keeps no copy of the text) and deletes by
-- rowid, so a row can be re-indexed whatever its context was.

DROP TRIGGER memories_fts_insert;
DROP TRIGGER memories_fts_delete;
DROP TRIGGER memories_fts_update;
DROP TABLE memories_fts;

CREATE INDEX memories_conversation ON memories(user_id, agent_id, session_id, seq)
    WHERE layer = 'l2_raw' AND session_id <> '';

CREATE VIRTUAL TABLE memories_fts USING fts5(
    content, context, content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO memories_fts(memories_fts, rank) VALUES ('rank', 'bm25(1.0, 0.4)');

-- fts_context(row): the previous live raw row's text, cut at 4,000
-- characters; '' for rows that are not raw or have no session. Written
-- out in each trigger (SQLite has no stored functions).

INSERT INTO memories_fts(rowid, content, context)
SELECT m.seq, m.content,
    CASE WHEN m.layer = 'l2_raw' AND m.session_id <> '' THEN coalesce((
        SELECT substr(p.content, 1, 4000) FROM memories p
        WHERE p.layer = 'l2_raw' AND p.session_id = m.session_id AND p.user_id = m.user_id
          AND p.agent_id = m.agent_id AND p.retired_at IS NULL AND p.seq < m.seq
        ORDER BY p.seq DESC LIMIT 1), '') ELSE '' END
FROM memories m;

CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, content, context) VALUES (new.seq, new.content,
        CASE WHEN new.layer = 'l2_raw' AND new.session_id <> '' THEN coalesce((
            SELECT substr(p.content, 1, 4000) FROM memories p
            WHERE p.layer = 'l2_raw' AND p.session_id = new.session_id AND p.user_id = new.user_id
              AND p.agent_id = new.agent_id AND p.retired_at IS NULL AND p.seq < new.seq
            ORDER BY p.seq DESC LIMIT 1), '') ELSE '' END);
END;

CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memories_fts WHERE rowid = old.seq;
END;

CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    DELETE FROM memories_fts WHERE rowid = old.seq;
    INSERT INTO memories_fts(rowid, content, context) VALUES (new.seq, new.content,
        CASE WHEN new.layer = 'l2_raw' AND new.session_id <> '' THEN coalesce((
            SELECT substr(p.content, 1, 4000) FROM memories p
            WHERE p.layer = 'l2_raw' AND p.session_id = new.session_id AND p.user_id = new.user_id
              AND p.agent_id = new.agent_id AND p.retired_at IS NULL AND p.seq < new.seq
            ORDER BY p.seq DESC LIMIT 1), '') ELSE '' END);
END;

-- A raw row whose text changes, or that is deleted, retired or restored,
-- changes the context of the next live raw row of its conversation:
-- re-index that row. So a deleted or forgotten text leaves nothing of
-- itself in the index.
CREATE TABLE fts_reindex (seq INTEGER PRIMARY KEY);

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

-- Re-indexing happens when a row lands in fts_reindex, in the same
-- transaction; the queue row is then removed.
CREATE TRIGGER fts_reindex_run AFTER INSERT ON fts_reindex BEGIN
    DELETE FROM memories_fts WHERE rowid = new.seq;
    INSERT INTO memories_fts(rowid, content, context)
    SELECT m.seq, m.content, coalesce((
            SELECT substr(p.content, 1, 4000) FROM memories p
            WHERE p.layer = 'l2_raw' AND p.session_id = m.session_id AND p.user_id = m.user_id
              AND p.agent_id = m.agent_id AND p.retired_at IS NULL AND p.seq < m.seq
            ORDER BY p.seq DESC LIMIT 1), '')
    FROM memories m WHERE m.seq = new.seq;
    DELETE FROM fts_reindex WHERE seq = new.seq;
END;
