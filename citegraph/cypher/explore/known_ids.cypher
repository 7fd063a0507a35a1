// Which of the given ids are papers in the graph (to tell a caller which ids were ignored).
// $ids: list — paper ids
// Mode: read
// Returns: id — one row per paper found.
MATCH (p:Paper)
WHERE p.id IN $ids
RETURN p.id AS id
