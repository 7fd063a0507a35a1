// Recomputes citation_count (in-corpus inbound citations) of the given papers from their
// edges (the ingest keeps it by counting created edges; this is the check and the repair).
// $ids: list — paper ids
// Returns: nothing.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
SET p.citation_count = COUNT { (p)<-[:CITES]-() }
