-- A feedback call that names its request (request_id) counts once: the
-- same call sent again, because its answer was lost, finds its record
-- here and counts nothing. Records older than memory.FeedbackRequestKeep
-- are forgotten as new ones come.
CREATE TABLE IF NOT EXISTS feedback_requests (
    request_id TEXT PRIMARY KEY,
    digest     TEXT NOT NULL,    -- of the ids it named: another call under the same id is a conflict
    counted    INTEGER NOT NULL, -- its answer, given again to a resend
    at         INTEGER NOT NULL  -- unix ms
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS feedback_requests_at ON feedback_requests (at);

-- The egress rows of requests still waiting for their answer (outcome
-- in_flight), found at start to be marked interrupted.
CREATE INDEX IF NOT EXISTS egress_in_flight ON egress (seq) WHERE outcome = 'in_flight';
