// Marks the given papers eligible (p.eligible = true) or not for evaluation, as the MDCR
// paper prefilters S2ORC (Medić & Šnajder 2022, §3): publication year present, title not
// empty, abstract of at least $min_abstract characters, at least $min_citations citations
// (citation_count: in-corpus inbound citations). :External stubs are never eligible.
// The caller walks every paper in batches (prefilter/ids): one statement over millions
// of papers deadlocks on ArcadeDB, even with CALL { } IN TRANSACTIONS.
// $ids: list — paper ids
// $min_abstract: int — minimum abstract length in characters (paper: 30)
// $min_citations: int — minimum citation_count (paper: 3)
// Mode: write
// Returns: nothing; see prefilter/counts.
UNWIND $ids AS id
MATCH (p:Paper {id: id})
SET p.eligible = (NOT p:External
    AND p.year IS NOT NULL
    AND trim(coalesce(p.title, '')) <> ''
    AND size(coalesce(p.abstract, '')) >= $min_abstract
    AND coalesce(p.citation_count, 0) >= $min_citations)
