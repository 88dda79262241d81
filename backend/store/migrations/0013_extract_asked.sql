-- When a row was last asked to be extracted again (hyatlas reprocess):
-- within HYATLAS_CATCHUP_MAX_AGE of that, a row older than the age limit
-- is still picked up, after a restart or a failed call as before them.
ALTER TABLE memories ADD COLUMN extract_asked_at INTEGER NOT NULL DEFAULT 0;
