"""citegraph lsp: the recommender in an editor, as a Language Server on stdio."""

from __future__ import annotations

import click

from ..config import Config
from .app import main, needs_extra
from .flags import cite_model_option, learned_weights, with_retrievers


@main.command()
@with_retrievers
@learned_weights
@cite_model_option
@click.pass_obj
def lsp(config: Config, retrievers, model, cite_model):
    """Language Server on stdio for LaTeX and Markdown drafts: completion of citation keys with the
    papers `citegraph cite` ranks for the slot being typed, hover on a cited key (why it fits),
    diagnostics (opt-in). Editor set-up: docs/editors.md."""
    with needs_extra("lsp", "lsp"):
        from ..service.language_server import serve_lsp

    serve_lsp(config, tuple(retrievers), model, cite_model)
