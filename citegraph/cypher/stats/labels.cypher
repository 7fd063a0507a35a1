// How many nodes carry each label (a node with two labels counts under both).
// Mode: read
// Returns: label, count — one row per label, by label.
MATCH (n)
UNWIND labels(n) AS label
RETURN label, count(*) AS count
ORDER BY label
