-- Work that spans the database and files, written down before it starts
-- so that a crash in between can be finished or undone at the next start:
-- an import writes its workspace files before its rows, and its entry
-- (the files it writes) goes in the transaction that commits the rows.
CREATE TABLE IF NOT EXISTS journal (
    name TEXT PRIMARY KEY,
    doc  TEXT NOT NULL,
    at   INTEGER NOT NULL
);
