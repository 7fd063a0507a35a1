// Papers that can serve as held-out-citation tests of the recommender: corpus papers with
// a year and at least $min_refs references to corpus papers, with those references.
// $min_refs: int — minimum number of references in the corpus
// Mode: read
// Returns: id, title, abstract, year, references — one row per paper, by id.
MATCH (p:Paper)
WHERE NOT p:External AND p.year IS NOT NULL
WITH p, [(p)-[:CITES]->(r:Paper) WHERE NOT r:External | r.id] AS references
WHERE size(references) >= $min_refs
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.year AS year, references
ORDER BY id
