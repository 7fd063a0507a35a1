// Every paper id, for the prefilter to walk in batches.
// Returns: id — one row per paper, in no particular order.
MATCH (p:Paper)
RETURN p.id AS id
