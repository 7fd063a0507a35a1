"""The documentation's commands exist: every ``citegraph …`` line in a shell block of
README.md and docs/*.md names a real command, and every ``--option`` it passes is one that
command (or the root group, before the command) declares. A renamed command or option
fails here instead of in a reader's terminal."""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path

import click
import pytest

from citegraph.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_BLOCK = re.compile(r"^```(?:sh|bash|console)\n(.*?)^```", re.M | re.S)


def command_lines(page: Path) -> list[tuple[int, list[str]]]:
    """(line number, tokens after ``citegraph``) of each command of the page's shell blocks,
    continuation lines joined, comments dropped."""
    text = page.read_text(encoding="utf-8")
    found = []
    for block in SHELL_BLOCK.finditer(text):
        first = text.count("\n", 0, block.start(1)) + 1
        logical, start = "", first
        for offset, line in enumerate(block.group(1).splitlines()):
            if not logical:
                start = first + offset
            logical += line.rstrip().removesuffix("\\") + " "
            if line.rstrip().endswith("\\"):
                continue
            tokens = shlex.split(logical, comments=True)  # a quoted value stays one word
            logical = ""
            for words in _commands(tokens):
                if "citegraph" in words:
                    found.append((start, words[words.index("citegraph") + 1 :]))
    return found


def _commands(tokens: list[str]) -> list[list[str]]:
    """The commands of a shell line: split at ``&&``, ``|`` and ``;``, each cut at its first
    redirection (``> file``, ``2>&1``)."""
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in ("&&", "||", "|", ";"):
            commands.append([])
        else:
            commands[-1].append(token)
    return [list(itertools.takewhile(lambda t: not re.match(r"\d?[<>]", t), words)) for words in commands]


def declared(command: click.Command) -> dict[str, click.Parameter]:
    return {opt: param for param in command.params for opt in (*param.opts, *param.secondary_opts)}


def takes_value(param: click.Parameter) -> bool:
    return not (isinstance(param, click.Option) and (param.is_flag or param.count))


CASES = [(page, line, words) for page in PAGES for line, words in command_lines(page)]


def test_the_pages_hold_commands():
    assert len(CASES) > 50 and {p.name for p, _, _ in CASES} >= {"README.md", "ingest.md", "recommend.md"}


@pytest.mark.parametrize(("page", "line", "words"), CASES, ids=[f"{p.name}:{n}" for p, n, _ in CASES])
def test_a_documented_command_exists_with_its_options(page, line, words):
    where = f"{page.name}:{line}: citegraph {' '.join(words)}"
    command: click.Command = main
    words = iter(words)
    for word in words:
        if word.startswith("--"):
            name, _, value = word.partition("=")
            param = declared(command).get(name) or (name == "--help" and click.Option(["--help"], is_flag=True))
            assert param, f"{where}: {command.name} has no option {name}"
            if takes_value(param) and not value:
                next(words, None)
        elif word.startswith("-") and len(word) == 2:  # a short option: its value follows unless it is a flag
            param = declared(command).get(word)
            assert param, f"{where}: {command.name} has no option {word}"
            if takes_value(param):
                next(words, None)
        elif isinstance(command, click.Group):
            sub = command.get_command(click.Context(command), word)
            assert sub is not None, f"{where}: no command {word!r} in {command.name}"
            command = sub
