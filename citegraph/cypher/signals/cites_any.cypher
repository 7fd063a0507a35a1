// How many of the given papers cite a paper, by their edges: asked by the enrichment only
// when none of its candidates has cited_ids, to tell a graph ingested before cited_ids
// existed (edges, no lists) from candidates that cite nothing. EXISTS reads the head of
// each edge list, not the cited papers.
// $ids: list — paper ids
// $as_of: int — only papers published in this year or before count, or null for all
// Mode: read
// Returns: citing — the number of them with an outgoing CITES edge.
UNWIND $ids AS id
MATCH (c:Paper {id: id})
WHERE ($as_of IS NULL OR c.year <= $as_of) AND EXISTS { (c)-[:CITES]->() }
RETURN count(c) AS citing
