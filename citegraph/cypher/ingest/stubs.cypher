// Creates a (:Paper:External) stub for each id not yet in the graph, so that a citation
// to a paper outside the corpus has an end. A later ingest of that paper upgrades it.
// Its citation_count is row.count: 0, or null (none) when the ingest recounts it at the
// end (see ingest/papers).
// $rows: list — of {id: string, count: 0 or null}, distinct ids
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
OPTIONAL MATCH (p:Paper {id: row.id})
WITH row WHERE p IS NULL
CREATE (s:Paper:External {id: row.id})
SET s.citation_count = row.count
