// The part of the ACM tree that arXiv categories are injected into: every ACM concept an
// arXiv category maps to, and all their broader concepts, with their labels and parents.
// Mode: read
// Returns: code, label, broader — one row per concept, by code (label may be null).
MATCH (:ArxivCategory)-[:MAPS_TO]->(:AcmConcept)-[:BROADER*0..]->(a:AcmConcept)
WITH DISTINCT a
RETURN a.code AS code, a.label AS label, [(a)-[:BROADER]->(b:AcmConcept) | b.code] AS broader
ORDER BY code
