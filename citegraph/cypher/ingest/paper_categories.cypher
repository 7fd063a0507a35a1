// Links papers to their arXiv categories, creating a category not seen before (the
// taxonomy ingest fills in its name, archive and group).
// $rows: list — of {id: paper id, codes: list of arXiv category codes}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
UNWIND row.codes AS code
MERGE (c:ArxivCategory {code: code})
MERGE (p)-[:IN_CATEGORY]->(c)
