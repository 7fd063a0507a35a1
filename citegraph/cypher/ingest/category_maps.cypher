// Links arXiv categories to the ACM concepts they map to (the arXiv→ACM fusion map).
// $rows: list — of {category: arXiv code, codes: list of ACM codes}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MERGE (c:ArxivCategory {code: row.category})
WITH c, row
UNWIND row.codes AS code
MERGE (a:AcmConcept {code: code})
MERGE (c)-[:MAPS_TO]->(a)
