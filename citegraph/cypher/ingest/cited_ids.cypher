// Sets each given paper's cited_ids to the ids of the papers it cites, sorted (unset when it
// cites none), from its CITES edges: absolute, so a repeated or resumed batch gives the same
// list. The ingest runs it in the transaction that writes or restates the paper's citations,
// so the list never disagrees with the edges. The enrichment reads the list with the
// paper's record instead of reading each cited paper's (signals/enrich).
// $ids: list — paper ids
// Mode: write
// Returns: nothing.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
WITH p, COLLECT { MATCH (p)-[:CITES]->(n:Paper) RETURN n.id AS cited ORDER BY cited } AS cited
SET p.cited_ids = CASE WHEN cited = [] THEN null ELSE cited END
