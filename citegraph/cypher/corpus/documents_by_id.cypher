// The title and abstract of the given papers (e.g. the query papers of an evaluation).
// $ids: list — paper ids
// Returns: id, title, abstract — one row per paper found, by id.
MATCH (p:Paper)
WHERE p.id IN $ids
RETURN p.id AS id, p.title AS title, p.abstract AS abstract
ORDER BY id
