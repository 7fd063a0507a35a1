// Upserts arXiv categories with their archive and group.
// $rows: list — of {code, props: map of the ArxivCategory properties of the graph model}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MERGE (c:ArxivCategory {code: row.code})
SET c += row.props
