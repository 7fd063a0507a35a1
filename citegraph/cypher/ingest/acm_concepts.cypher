// Upserts ACM classification concepts (CCS 2012 or ACM 1998) and their BROADER links.
// A broader concept not yet seen is created by code and labelled when it arrives.
// $rows: list — of {code, props: map of the AcmConcept properties of the graph model (a
//   label absent from it is kept), broader: list of codes}
// Mode: write
// Returns: nothing.
UNWIND $rows AS row
MERGE (c:AcmConcept {code: row.code})
SET c += row.props
WITH c, row
UNWIND row.broader AS code
MERGE (b:AcmConcept {code: code})
MERGE (c)-[:BROADER]->(b)
