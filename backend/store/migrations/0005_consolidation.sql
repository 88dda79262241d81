-- The slow path's state: each owner's topic clusters (members, due flag,
-- failures), kept as one JSON document per owner (an alias group, named
-- by its sorted user ids) and replaced after every cluster a pass runs.
CREATE TABLE consolidation_state (
    owner      TEXT    PRIMARY KEY,
    state      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;
