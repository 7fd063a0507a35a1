// SymTax's Enricher on the held-out view of the graph: the papers that the prefetched
// candidates cite (1-hop outgoing neighbours), with how many candidates cite each, most
// frequent first. The view hides every CITES edge whose citing paper is held out (the
// test and validation citing papers, and anything newer than the training cut-off), so
// no held-out citation can reach a query through enrichment.
// $ids: list — prefetched candidate paper ids
// $held_out: list — citing papers whose outgoing CITES edges are invisible
// $query: string — the citing paper of the query (never returned)
// $max_year: int — neighbours published after this year are left out (undated ones are kept)
// $with_text: bool — only neighbours with a title or an abstract
// $limit: int — how many neighbours at most
// Returns: id, frequency — neighbours not among the candidates, by frequency (high first), id.
UNWIND $ids AS id
WITH id WHERE NOT id IN $held_out
MATCH (c:Paper {id: id})-[:CITES]->(n:Paper)
WHERE NOT n.id IN $ids AND n.id <> $query
  AND (n.year IS NULL OR n.year <= $max_year)
  AND (NOT $with_text OR trim(coalesce(n.title, '')) + trim(coalesce(n.abstract, '')) <> '')
RETURN n.id AS id, count(DISTINCT c) AS frequency
ORDER BY frequency DESC, id
LIMIT $limit
