// How many relationships there are of each type.
// Mode: read
// Returns: type, count — one row per relationship type, by type.
MATCH ()-[r]->()
RETURN type(r) AS type, count(*) AS count
ORDER BY type
