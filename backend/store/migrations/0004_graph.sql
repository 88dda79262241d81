-- The bitemporal knowledge graph (L5).
--
-- Nodes are entities, one per normalised name per owner. A relation
-- (subject, relation, object) has a stable id (rel_id) and one or more
-- belief records: each record says when the relation was true in the
-- world (valid_from / valid_to; NULL = unknown) and when the app held that
-- belief (recorded_at until expired_at; NULL = still held). Records are
-- never edited in their times except to expire them: a changed belief
-- expires the record and inserts a new one, so the graph can be read as it
-- stood at any moment on either axis. At most one record per relation is
-- held at a time.
--
-- Times are Unix milliseconds.

CREATE TABLE graph_nodes (
    seq        INTEGER PRIMARY KEY,
    id         TEXT    NOT NULL UNIQUE,
    user_id    TEXT    NOT NULL,
    agent_id   TEXT    NOT NULL DEFAULT '',
    name       TEXT    NOT NULL,
    norm       TEXT    NOT NULL,               -- the name normalised: the node's identity
    type       TEXT    NOT NULL DEFAULT 'other',
    page_id    TEXT    NOT NULL DEFAULT '',    -- its L8 entity page, when there is one
    created_at INTEGER NOT NULL,
    UNIQUE (user_id, agent_id, norm)
);
CREATE INDEX graph_nodes_created ON graph_nodes(created_at);

CREATE TABLE graph_edges (
    seq         INTEGER PRIMARY KEY,
    rel_id      TEXT    NOT NULL,              -- the relation; the same in all its records
    user_id     TEXT    NOT NULL,
    agent_id    TEXT    NOT NULL DEFAULT '',
    src         TEXT    NOT NULL REFERENCES graph_nodes(id),
    dst         TEXT    NOT NULL REFERENCES graph_nodes(id),
    relation    TEXT    NOT NULL,
    exclusive   INTEGER NOT NULL DEFAULT 0,    -- the subject has one object for it at a time
    valid_from  INTEGER,
    valid_to    INTEGER,
    learned_at  INTEGER NOT NULL,              -- the relation's first record: stands in for an unknown valid_from
    recorded_at INTEGER NOT NULL,
    expired_at  INTEGER,
    expired_how TEXT    NOT NULL DEFAULT '',   -- ended | evidence_retired | evidence_deleted
    expired_by  TEXT    NOT NULL DEFAULT ''    -- the relation that ended it
);
CREATE UNIQUE INDEX graph_edges_held ON graph_edges(rel_id) WHERE expired_at IS NULL;
CREATE INDEX graph_edges_subject ON graph_edges(user_id, agent_id, src, relation) WHERE expired_at IS NULL;
CREATE INDEX graph_edges_relation ON graph_edges(rel_id, seq);
CREATE INDEX graph_edges_src ON graph_edges(src);
CREATE INDEX graph_edges_dst ON graph_edges(dst);
CREATE INDEX graph_edges_recorded ON graph_edges(recorded_at);
CREATE INDEX graph_edges_expired ON graph_edges(expired_at) WHERE expired_at IS NOT NULL;

-- What a relation rests on: facts (L3) and raw turns (L2).
CREATE TABLE graph_evidence (
    rel_id    TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    kind      TEXT NOT NULL,                   -- fact | turn
    PRIMARY KEY (rel_id, memory_id)
) WITHOUT ROWID;
CREATE INDEX graph_evidence_memory ON graph_evidence(memory_id);

-- Retiring the last live fact behind a relation expires its held record.
CREATE TRIGGER graph_evidence_retired AFTER UPDATE OF retired_at ON memories
WHEN old.retired_at IS NULL AND new.retired_at IS NOT NULL BEGIN
    UPDATE graph_edges SET expired_at = new.retired_at, expired_how = 'evidence_retired'
    WHERE expired_at IS NULL
      AND rel_id IN (SELECT rel_id FROM graph_evidence WHERE memory_id = new.id AND kind = 'fact')
      AND NOT EXISTS (SELECT 1 FROM graph_evidence e JOIN memories m ON m.id = e.memory_id
                      WHERE e.rel_id = graph_edges.rel_id AND e.kind = 'fact' AND m.retired_at IS NULL);
END;

-- Restoring a fact restores the relations its retirement expired: their
-- last record is held again, as a new record from the restore.
CREATE TRIGGER graph_evidence_restored AFTER UPDATE OF retired_at ON memories
WHEN old.retired_at IS NOT NULL AND new.retired_at IS NULL BEGIN
    INSERT INTO graph_edges (rel_id, user_id, agent_id, src, dst, relation, exclusive,
                             valid_from, valid_to, learned_at, recorded_at)
    SELECT g.rel_id, g.user_id, g.agent_id, g.src, g.dst, g.relation, g.exclusive,
           g.valid_from, g.valid_to, g.learned_at, new.updated_at
    FROM graph_edges g
    WHERE g.rel_id IN (SELECT rel_id FROM graph_evidence WHERE memory_id = new.id AND kind = 'fact')
      AND g.expired_how = 'evidence_retired'
      AND g.seq = (SELECT max(seq) FROM graph_edges WHERE rel_id = g.rel_id);
END;

-- Deleting a memory takes it out of every relation's evidence, and a
-- relation left with none expires: Store.Delete does it in the delete's
-- transaction, with the domain's time.

-- A counter every change to the graph's nodes or records (and to an
-- entity page's strength, which ranks nodes) moves on, so a reader can
-- keep the graph in memory and reload it only when it changed.
CREATE TABLE graph_version (id INTEGER PRIMARY KEY CHECK (id = 1), v INTEGER NOT NULL);
INSERT INTO graph_version VALUES (1, 0);
CREATE TRIGGER graph_version_node_insert AFTER INSERT ON graph_nodes BEGIN
    UPDATE graph_version SET v = v + 1;
END;
CREATE TRIGGER graph_version_node_update AFTER UPDATE ON graph_nodes BEGIN
    UPDATE graph_version SET v = v + 1;
END;
CREATE TRIGGER graph_version_edge_insert AFTER INSERT ON graph_edges BEGIN
    UPDATE graph_version SET v = v + 1;
END;
CREATE TRIGGER graph_version_edge_update AFTER UPDATE ON graph_edges BEGIN
    UPDATE graph_version SET v = v + 1;
END;
CREATE TRIGGER graph_version_node_delete AFTER DELETE ON graph_nodes BEGIN
    UPDATE graph_version SET v = v + 1;
END;
CREATE TRIGGER graph_version_edge_delete AFTER DELETE ON graph_edges BEGIN
    UPDATE graph_version SET v = v + 1;
END;
CREATE TRIGGER graph_version_page AFTER UPDATE OF strength ON memories
WHEN new.layer = 'l8_entity' BEGIN
    UPDATE graph_version SET v = v + 1;
END;
