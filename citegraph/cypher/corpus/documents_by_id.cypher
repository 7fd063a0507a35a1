// The title, abstract and keywords of the given papers (e.g. the query papers of an evaluation).
// $ids: list — paper ids
// Mode: read
// Returns: id, title, abstract, keywords — one row per paper found, by id.
MATCH (p:Paper)
WHERE p.id IN $ids
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.keywords AS keywords
ORDER BY id
