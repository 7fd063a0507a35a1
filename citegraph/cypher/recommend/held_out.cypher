// Papers that can serve as held-out-citation tests of the recommender: corpus papers with
// a year and at least $min_refs references to corpus papers. Ids only, projected before
// the sort (ArcadeDB's ORDER BY otherwise holds each paper and its texts: 2M papers were
// refused with an 8 GB heap); the drawn papers' texts and references come from
// recommend/held_out_papers.
// $min_refs: int — minimum number of references in the corpus
// Mode: read
// Returns: id — one row per paper, by id.
MATCH (p:Paper)
WHERE NOT p:External AND p.year IS NOT NULL
  AND COUNT { (p)-[:CITES]->(r:Paper) WHERE NOT r:External } >= $min_refs
WITH p.id AS id
RETURN id
ORDER BY id
