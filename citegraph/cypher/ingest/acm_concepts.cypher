// Upserts ACM classification concepts (CCS 2012 or ACM 1998) and their BROADER links.
// A broader concept not yet seen is created by code and labelled when it arrives.
// $rows: list — of {code, label (may be null), scheme, alt_labels, broader: list of codes}
// Returns: nothing.
UNWIND $rows AS row
MERGE (c:AcmConcept {code: row.code})
SET c.scheme = row.scheme, c.label = coalesce(row.label, c.label), c.alt_labels = row.alt_labels
WITH c, row
UNWIND row.broader AS code
MERGE (b:AcmConcept {code: code})
MERGE (c)-[:BROADER]->(b)
