// How many of the given papers cite a paper by their edges but have no cited_ids: a graph
// ingested before cited_ids existed. Asked only when a statement that reads the lists found
// none where some were due (the enrichment's candidates, the co-citation of papers citing
// the seed's references), so a healthy graph never pays for it. EXISTS reads the head of
// each edge list, not the cited papers.
// $ids: list — paper ids
// $as_of: int — only papers published in this year or before count, or null for all
// Mode: read
// Returns: unlisted — the number of them with an outgoing CITES edge and no cited_ids.
UNWIND $ids AS id
MATCH (c:Paper {id: id})
WHERE ($as_of IS NULL OR c.year <= $as_of) AND c.cited_ids IS NULL AND EXISTS { (c)-[:CITES]->() }
RETURN count(c) AS unlisted
