// The labels of the ACM classification concepts in the graph (`citegraph ingest taxonomy`),
// the default ontology of contextualisation's domain-knowledge model.
// Mode: read
// Returns: code, label, alt_labels (a list, possibly null) — one row per labelled concept, by code.
MATCH (c:AcmConcept)
WHERE c.label IS NOT NULL
RETURN c.code AS code, c.label AS label, c.alt_labels AS alt_labels
ORDER BY code
