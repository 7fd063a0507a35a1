"""Citation contextualisation (Cohan & Goharian 2017): which sentences of a cited paper a
citation refers to.

:mod:`.models` names the models (BM25, LMD, WE, WE+rtrft, WE+dmn), :mod:`.lm` and
:mod:`.bm25` score, :mod:`.word_vectors` and :mod:`.ontology` provide word vectors and
synonyms, :mod:`.clscisumm` reads the CL-SciSumm benchmark and :mod:`.evaluation` scores
the models on it; :mod:`.on_graph` runs them on the papers and citations in the graph.
"""
