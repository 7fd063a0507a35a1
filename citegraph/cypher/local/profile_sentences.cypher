// The citing sentences the held-out view shows, for the candidates' public profiles: one row per
// CITES edge that carries sentences, to a paper that is not an :External stub, from a citing
// paper that is dated (an undated paper cannot be placed before the cut) and not held out (no
// sentence of a validation or test citing paper, nor of any paper at or after the cut).
// $held_out: list — citing papers whose sentences are invisible
// Mode: read
// Returns: citing, year, cited, contexts — one row per visible edge, by cited then citing.
MATCH (a:Paper)-[c:CITES]->(b:Paper)
WHERE NOT b:External AND a.year IS NOT NULL AND NOT a.id IN $held_out
  AND c.contexts IS NOT NULL AND size(c.contexts) > 0
RETURN a.id AS citing, a.year AS year, b.id AS cited, c.contexts AS contexts
ORDER BY cited, citing
