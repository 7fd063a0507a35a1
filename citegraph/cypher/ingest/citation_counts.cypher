// Recomputes citation_count (in-corpus inbound citations) of the given papers from their
// edges: the streaming ingest runs it once over every paper its input cites, after the
// last batch (absolute, so a repeated or resumed run gives the same counts).
// $ids: list — paper ids
// Mode: write
// Returns: nothing.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
SET p.citation_count = COUNT { (p)<-[:CITES]-() }
