// The ids of every corpus paper (not :External), sorted alone: local/papers_by_id reads
// their texts in batches (GraphStore.in_id_order; a sort of every paper with its texts was
// refused at 2M papers with an 8 GB heap).
// Mode: read
// Returns: id — one row per paper, by id.
MATCH (p:Paper)
WHERE NOT p:External
WITH p.id AS id
RETURN id
ORDER BY id
