// The arXiv categories with what taxonomy fusion needs: name, group and the ACM classes
// each maps to (the arXiv→ACM map of SymTax; only cs.* categories have one).
// Mode: read
// Returns: code, name, group_name, acm — one row per category, by code (name, group_name may be null).
MATCH (c:ArxivCategory)
RETURN c.code AS code, c.name AS name, c.group_name AS group_name,
       [(c)-[:MAPS_TO]->(a:AcmConcept) | a.code] AS acm
ORDER BY code
