// The arXiv→ACM taxonomy tree of one arXiv archive: each category, the ACM 1998 classes it
// maps to (SymTax's fusion map) and their broader classes up to the root.
// Drawn as a tree in Neo4j Browser (it returns paths).
// $archive: string — the arXiv archive, e.g. 'cs' (only cs.* categories have ACM classes)
// Mode: read
// Returns: path — (category)-[:MAPS_TO]->(concept)-[:BROADER*]->(root), one per category and concept.
MATCH path = (c:ArxivCategory {archive: $archive})-[:MAPS_TO]->(:AcmConcept)-[:BROADER*0..]->(top:AcmConcept)
WHERE NOT (top)-[:BROADER]->(:AcmConcept)
RETURN path
