"""What citegraph does for people and programs, once for every door.

Each use case is a typed request, a typed answer (pydantic models: the bounds of every field
declared once, :mod:`.fields`) and one function holding its logic. The doors only translate:
the HTTP service (:mod:`citegraph.service.http`) takes the requests as bodies or query
strings and answers the models; each MCP tool's input schema is its request's JSON schema
(:mod:`citegraph.service.mcp`); the command line makes its options from the same fields
(:func:`citegraph.cli.flags.request_options`) and prints the answers (``--format json`` is the
answer's JSON).

=================  ============================================  ==========================
use case           request → answer                              module
=================  ============================================  ==========================
recommend          RecommendRequest → RecommendResponse          :mod:`.recommending`
explain            ExplainRequest → Explanation                  :mod:`.recommending`
cite               CiteRequest → CiteResponse                    :mod:`.citing`
paper              PaperRequest → Paper                          :mod:`.papers`
neighbours         NeighboursRequest → Neighbourhood             :mod:`.papers`
search             SearchRequest → [SearchHit]                   :mod:`.papers`
works              WorksRequest → WorksResponse                  :mod:`.exploring`
explore            LibraryText → LibraryMatches, MapRequest →    :mod:`.exploring`
                   [MapPaper], ExportRequest → a file
contextualise      ContextualiseRequest → [EvidenceOut]          :mod:`.contextualising`
cite tune          TuneRequest → TuneResponse                    :mod:`.cite_fusion`
=================  ============================================  ==========================

Heavy parts (the graph driver, the recommender) are imported by the functions, not by the
models: ``citegraph --help`` reads the models without them.
"""
