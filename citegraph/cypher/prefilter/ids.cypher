// Every paper id, for the prefilter to walk in batches.
// Mode: read
// Returns: id — one row per paper, in no particular order.
MATCH (p:Paper)
RETURN p.id AS id
