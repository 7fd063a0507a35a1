// Upserts arXiv categories with their archive and group.
// $rows: list — of {code, name, archive, group, group_name, active}
// Returns: nothing.
UNWIND $rows AS row
MERGE (c:ArxivCategory {code: row.code})
SET c.name = row.name, c.archive = row.archive, c.group = row.group,
    c.group_name = row.group_name, c.active = row.active
