"""`citegraph grow`: a graph grown from a library with OpenAlex and Semantic Scholar — the
API clients (:mod:`.remote`, :mod:`.openalex_api`, :mod:`.s2_api`), the seeds resolved
(:mod:`.resolve`), and the works and contexts gathered and written (:mod:`.crawl`)."""
