// How many corpus papers (not :External stubs) pass each prefilter criterion, and all.
// $min_abstract: int — as given to prefilter/mark
// $min_citations: int — as given to prefilter/mark
// Mode: read
// Returns: papers, with_year, with_title, with_abstract, with_citations, eligible.
MATCH (p:Paper)
WHERE NOT p:External
RETURN count(p) AS papers,
       count(p.year) AS with_year,
       sum(CASE WHEN trim(coalesce(p.title, '')) <> '' THEN 1 ELSE 0 END) AS with_title,
       sum(CASE WHEN size(coalesce(p.abstract, '')) >= $min_abstract THEN 1 ELSE 0 END) AS with_abstract,
       sum(CASE WHEN coalesce(p.citation_count, 0) >= $min_citations THEN 1 ELSE 0 END) AS with_citations,
       sum(CASE WHEN p.eligible THEN 1 ELSE 0 END) AS eligible
