// The ids of the corpus papers (not :External) with a CITES edge that carries citing
// sentences, sorted alone: local/contexts_by_citing reads the edges in batches
// (GraphStore.in_id_order; a sort of every edge with its sentences is held whole in
// ArcadeDB's query heap).
// Mode: read
// Returns: id — one row per citing paper, by id.
MATCH (a:Paper)-[c:CITES]->(:Paper)
WHERE NOT a:External AND c.contexts IS NOT NULL AND size(c.contexts) > 0
WITH DISTINCT a.id AS id
RETURN id
ORDER BY id
