// The prefiltered set a random sample is drawn from: eligible papers published in or
// before $year.
// $year: int — latest publication year
// Mode: read
// Returns: id, year — one row per paper, by id.
MATCH (p:Paper)
WHERE p.eligible = true AND p.year <= $year
RETURN p.id AS id, p.year AS year
ORDER BY id
