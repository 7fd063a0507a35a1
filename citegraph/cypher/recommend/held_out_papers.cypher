// The given papers as held-out-citation tests (see recommend/held_out): their text, year
// and references to corpus papers.
// $ids: list — paper ids
// Mode: read
// Returns: id, title, abstract, year, references — one row per paper found, by id.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.year AS year,
       [(p)-[:CITES]->(r:Paper) WHERE NOT r:External | r.id] AS references
ORDER BY id
