-- A restored fact holds its relations again by the domain's rules
-- (memory.PlanRehold: against what the subject holds by then), which the
-- store applies in Go in the restore's transaction; the blind trigger goes.
DROP TRIGGER IF EXISTS graph_evidence_restored;
