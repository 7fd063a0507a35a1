"""What serves people and programs over a wire: the HTTP service (:mod:`.http`) with its
request limits (:mod:`.limits`) and the explorer page's routes (:mod:`.explorer`), and the
Model Context Protocol server for agents (:mod:`.mcp`)."""
