// Degree summary of the citation graph over corpus papers (not :External stubs):
// references = outgoing CITES, citations = citation_count (inbound, in-corpus).
// Mode: read
// Returns: papers, mean/median/p99/max of references and of citations.
MATCH (p:Paper)
WHERE NOT p:External
WITH COUNT { (p)-[:CITES]->() } AS refs, coalesce(p.citation_count, 0) AS cites
RETURN count(*) AS papers,
       avg(refs) AS mean_references, percentileDisc(refs, 0.5) AS median_references,
       percentileDisc(refs, 0.99) AS p99_references, max(refs) AS max_references,
       avg(cites) AS mean_citations, percentileDisc(cites, 0.5) AS median_citations,
       percentileDisc(cites, 0.99) AS p99_citations, max(cites) AS max_citations
