// Ego-network enrichment (SymTax's Enricher): the papers that the prefetched candidates
// cite (1-hop outgoing neighbours; papers citing a candidate are not followed), with how
// many candidates cite each, most frequent first. The caller keeps candidates ∪ the top.
// $ids: list — prefetched candidate paper ids
// $limit: int — how many neighbours at most
// Returns: id, frequency — neighbours not among the candidates, by frequency (high first), id.
UNWIND $ids AS id
MATCH (c:Paper {id: id})-[:CITES]->(n:Paper)
WHERE NOT n.id IN $ids
RETURN n.id AS id, count(DISTINCT c) AS frequency
ORDER BY frequency DESC, id
LIMIT $limit
