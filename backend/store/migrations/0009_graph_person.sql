-- Entities become a person's: one node per normalised name per person
-- (a user id with its alias group, all their agents), where they were one
-- per owner (user and agent). Then a relation learnt through one agent
-- ends the exclusive relation learnt through another, and a view of every
-- agent shows each entity once.
--
-- Here one user's nodes of one name under several agents merge into the
-- oldest: the others' relations point at it, and it takes a page and a
-- type from them when it has none. (Alias groups are settings, not data:
-- their users' nodes meet as they learn, see store.ensureNode.)

-- A person's node is found by its name among their user ids, and the
-- held records of a subject by its node, whoever learnt them.
CREATE INDEX graph_nodes_name ON graph_nodes(norm, user_id);
CREATE INDEX graph_edges_held_src ON graph_edges(src, relation) WHERE expired_at IS NULL;

CREATE TEMP TABLE node_merge AS
    SELECT n.id AS old,
           (SELECT k.id FROM graph_nodes k WHERE k.user_id = n.user_id AND k.norm = n.norm
            ORDER BY k.created_at, k.seq LIMIT 1) AS keep
    FROM graph_nodes n;
DELETE FROM node_merge WHERE old = keep;
CREATE INDEX temp.node_merge_old ON node_merge(old);
CREATE INDEX temp.node_merge_keep ON node_merge(keep);

UPDATE graph_nodes SET page_id = (
        SELECT o.page_id FROM node_merge m JOIN graph_nodes o ON o.id = m.old
        WHERE m.keep = graph_nodes.id AND o.page_id <> '' ORDER BY o.created_at DESC, o.seq DESC LIMIT 1)
    WHERE page_id = '' AND EXISTS (
        SELECT 1 FROM node_merge m JOIN graph_nodes o ON o.id = m.old
        WHERE m.keep = graph_nodes.id AND o.page_id <> '');

UPDATE graph_nodes SET type = (
        SELECT o.type FROM node_merge m JOIN graph_nodes o ON o.id = m.old
        WHERE m.keep = graph_nodes.id AND o.type <> 'other' ORDER BY o.created_at, o.seq LIMIT 1)
    WHERE type = 'other' AND EXISTS (
        SELECT 1 FROM node_merge m JOIN graph_nodes o ON o.id = m.old
        WHERE m.keep = graph_nodes.id AND o.type <> 'other');

UPDATE graph_edges SET src = (SELECT keep FROM node_merge WHERE old = graph_edges.src)
    WHERE src IN (SELECT old FROM node_merge);
UPDATE graph_edges SET dst = (SELECT keep FROM node_merge WHERE old = graph_edges.dst)
    WHERE dst IN (SELECT old FROM node_merge);
DELETE FROM graph_nodes WHERE id IN (SELECT old FROM node_merge);
DROP TABLE node_merge;
