-- The strength model: decayed_at is when a row last faded for neglect
-- (NULL: never), so a row fades once per period, not once per run.
ALTER TABLE memories ADD COLUMN decayed_at INTEGER;

-- Atlas categories: an extracted fact's category becomes preference or
-- fact, its extraction label moving to metadata.label; an intention's
-- category is goal.
UPDATE memories SET metadata = json_set(metadata, '$.label', category),
    category = CASE category WHEN 'user_preferences' THEN 'preference' ELSE 'fact' END
    WHERE layer = 'l3_fact'
    AND category IN ('user_preferences', 'project_state', 'technical_lesson', 'decision', 'negative_knowledge');
UPDATE memories SET category = 'fact' WHERE layer = 'l3_fact' AND category = '';
UPDATE memories SET category = 'goal' WHERE layer = 'l7_intention' AND category = '';
