// The citation edges of the given papers as the held-out view shows them: all their CITES
// edges except those of the held-out citing papers (which the enrichment of the view never expands).
// $ids: list — citing paper ids
// $held_out: list — citing papers whose outgoing CITES edges are invisible
// Mode: read
// Returns: citing, cited — one row per visible edge, by citing then cited.
UNWIND $ids AS id
WITH id WHERE NOT id IN $held_out
MATCH (a:Paper {id: id})-[:CITES]->(b:Paper)
RETURN a.id AS citing, b.id AS cited
ORDER BY citing, cited
