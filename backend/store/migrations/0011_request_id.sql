-- A write that names its request (request_id) is stored once: the same
-- request sent again (its answer was lost when HyAtlas stopped) finds
-- the row it wrote through this index.
CREATE INDEX IF NOT EXISTS memories_request_id ON memories (json_extract(metadata, '$.hyatlas_request_id'))
    WHERE layer = 'l2_raw' AND json_extract(metadata, '$.hyatlas_request_id') IS NOT NULL;
