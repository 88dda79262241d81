-- The Atlas lists by strength by default: with this index a page of the
-- strongest rows is read in order instead of sorting every row (at
-- 100,000 rows, 200 ms per page).
CREATE INDEX memories_strength ON memories(strength, created_at, seq);
