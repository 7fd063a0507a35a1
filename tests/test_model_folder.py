"""Hostile `cite --model` folders (issue 39 §4.7): each is one line naming the file and the
field, before anything is loaded from the folder, and no pickle is ever unpickled."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest
from test_cite import model_folder  # noqa: F401  (the fixture)

from citegraph.errors import CitegraphError
from citegraph.recommend.cite import CiteModel

from conftest import citegraph

MARKER = "unpickled"  # a file the hostile pickles create when they are loaded


class _Touch:
    """Unpickled, creates the file ``path``: proof that a pickle ran."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):
        return (Path.touch, (self.path,))


def _write(name: str, content: str | bytes):
    def damage(folder: Path) -> None:
        path = folder / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))

    return damage


def _card(card) -> object:
    return _write("citegraph.json", card if isinstance(card, str) else json.dumps(card))


def _fusion(**weights) -> object:
    listed = ", ".join(f'"{name}": {value}' for name, value in weights.items())  # NaN, Infinity as Python writes them
    return _card('{"base_model": "tiny", "cite": {"fusion": {' + listed + "}}}")


def _remove(*names: str):
    def damage(folder: Path) -> None:
        for name in names:
            (folder / name).unlink()

    return damage


def _truncated(folder: Path) -> None:
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])


def _a_file(folder: Path) -> None:
    shutil.rmtree(folder)
    folder.write_text("not a folder\n")


def _emptied(folder: Path) -> None:
    shutil.rmtree(folder)
    folder.mkdir()


def _pickled(name: str):
    def damage(folder: Path) -> None:
        (folder / "model.safetensors").unlink()
        (folder / name).write_bytes(pickle.dumps({"weight": _Touch(folder.parent / MARKER)}))

    return damage


#: What the third hostile probe put in `--model` folders, and what each must be told.
KINDS = {
    "a file": (_a_file, "not a folder"),
    "missing": (lambda folder: shutil.rmtree(folder), "not a folder"),
    "empty": (_emptied, "no config.json"),
    "no config.json": (_remove("config.json"), "no config.json"),
    "no weights": (_remove("model.safetensors"), "no weights"),
    "no modules.json": (_remove("modules.json"), "no modules.json"),
    "card not JSON": (_card('{"cite": {"fusion": '), "citegraph.json: not JSON"),
    "card nested deeply": (_card("[" * 100_000 + "]" * 100_000), "citegraph.json: JSON nested too deeply"),
    "card Latin-1": (_write("citegraph.json", '{"base_model": "café"}'.encode("latin-1")), "citegraph.json: not UTF-8"),
    "card a list": (_card([{"cite": {}}]), "citegraph.json: an array where an object is expected"),
    "cite null": (_card({"cite": None}), "citegraph.json: field 'cite' must be an object, not null"),
    "fusion a list": (_card({"cite": {"fusion": [1, 2]}}), "field 'cite.fusion' must be an object, not an array"),
    "a weight a string": (_fusion(model='"1.0"'), "field 'cite.fusion.model' must be a finite number"),
    "an unknown weight": (_fusion(dense=1), "field 'cite.fusion.dense': cite has no such weight"),
    "a weight NaN": (_fusion(model="NaN"), "field 'cite.fusion.model' must be a finite number, at least 0"),
    "a weight Infinity": (_fusion(draft="Infinity"), "field 'cite.fusion.draft' must be a finite number"),
    "a weight negative": (_fusion(model=-1), "field 'cite.fusion.model' must be a finite number, at least 0"),
    "weights truncated": (_truncated, "model.safetensors: not a whole safetensors file"),
    "weights empty": (_write("model.safetensors", b""), "model.safetensors: not a whole safetensors file"),
    "weights a pickle": (_pickled("model.safetensors"), "model.safetensors: not a whole safetensors file"),
    "pickled weights": (_pickled("pytorch_model.bin"), "pytorch_model.bin: a pickle, which citegraph never loads"),
    "config.json not JSON": (_write("config.json", "{"), "config.json: not JSON"),
    "config.json a list": (_write("config.json", "[]"), "config.json: an array where an object is expected"),
    "modules.json of strings": (_write("modules.json", '["0"]'), "modules.json: field '[0]' must be an object"),
    "pooling config a list": (_write("1_Pooling/config.json", "[]"), "1_Pooling/config.json: an array"),
    "length a string": (
        _write("sentence_bert_config.json", '{"max_seq_length": "512"}'),
        "sentence_bert_config.json: field 'max_seq_length' must be a positive integer",
    ),
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_hostile_model_folder_is_one_line_naming_the_file_and_field(acl, model_folder, kind, tmp_path):  # noqa: F811
    folder = tmp_path / "model"
    shutil.copytree(model_folder, folder)
    damage, said = KINDS[kind]
    damage(folder)
    with pytest.raises(CitegraphError) as raised:
        CiteModel(folder, acl, tmp_path / "embeddings")
    message = str(raised.value)
    assert message.startswith(f"--model {folder}") and said in message, message
    assert "\n" not in message
    assert not (tmp_path / MARKER).exists()


@pytest.mark.parametrize("kind", ["card nested deeply", "a weight NaN", "pickled weights"])
def test_the_cli_says_it_in_one_line_and_exits_2(acl, server_env, model_folder, kind, tmp_path):  # noqa: F811
    folder = tmp_path / "model"
    shutil.copytree(model_folder, folder)
    damage, said = KINDS[kind]
    damage(folder)
    done = citegraph("cite", "--context", "dependency parsing [CIT]", "--model", str(folder), env=server_env)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"Error: --model {folder}"), done.stderr
    assert said in done.stderr
    assert not (tmp_path / MARKER).exists()
