// The field-cited set of a MAG field (Medić & Šnajder §3.2): every paper cited by any
// paper labelled with the field, kept when eligible and published in or before $year.
// $field: string — a MAG field name
// $year: int — latest publication year
// Returns: id, year — one row per paper, by id.
MATCH (:Field {name: $field})<-[:IN_FIELD]-(:Paper)-[:CITES]->(c:Paper)
WHERE c.eligible = true AND c.year <= $year
RETURN DISTINCT c.id AS id, c.year AS year
ORDER BY id
