// How many eligible papers each publication year has (to choose the query year).
// Mode: read
// Returns: year, papers — one row per year, by year.
MATCH (p:Paper)
WHERE p.eligible = true AND p.year IS NOT NULL
RETURN p.year AS year, count(*) AS papers
ORDER BY year
