// The field-cited set of a MAG field (Medić & Šnajder §3.2): every paper cited by any
// paper labelled with the field (by any paper when $field is null), kept when eligible
// and published in or before $year.
// $field: string — a MAG field name, or null for all papers
// $year: int — latest publication year
// Mode: read
// Returns: id — one row per paper, by id.
MATCH (p:Paper)-[:CITES]->(c:Paper)
WHERE c.eligible = true AND c.year <= $year
  AND ($field IS NULL OR EXISTS { (p)-[:IN_FIELD]->(:Field {name: $field}) })
RETURN DISTINCT c.id AS id
ORDER BY id
