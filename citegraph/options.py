"""Options declared once, on the fields of a frozen configuration dataclass.

A knob is declared on the field it sets, ``field(default=…, metadata=option("--flag", "help"))``
— the way transformers' ``HfArgumentParser`` reads ``metadata={"help": …}`` — and
:func:`options_of` derives the options (flag, help, type, default) from the fields, nested
configurations included; :func:`from_options` makes the configuration back from the options'
values. The CLI makes flags of the options (no click here) and the benchmark registry fills in
their defaults, so the command line and Python agree by construction. Low in the floors so
that every floor with a configuration (an ANN index, a benchmark) declares its options here.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .errors import CitegraphError

PathKind = Literal["", "dir", "file", "any", "out"]  # "any": an existing file or folder; "out": a new folder


@dataclass(frozen=True)
class Option:
    """One option a registered benchmark takes; the CLI makes it a flag.

    ``type``: ``str``, ``int``, ``float``, ``bool`` (a flag; ``"--x/--no-x"`` in ``flag``
    for a pair), ``Path`` (``path`` says whether an existing folder or file is wanted),
    ``list`` (comma-separated strings), ``"spec"`` / ``"specs"`` (one or several retriever
    specs, :mod:`citegraph.retrieval.spec`, parsed) or a tuple of choices.
    """

    name: str  # the builder's keyword
    flag: str
    help: str
    type: Any = str
    default: Any = None
    required: bool = False
    path: PathKind = ""
    multiple: bool = False
    minimum: float | None = None
    maximum: float | None = None
    open_bounds: bool = False


# -- options declared on configuration fields ----------------------------------------------------
_KEY = "citegraph.option"
_FIELD_DEFAULT = object()  # a flag showing the field's own default


@dataclass(frozen=True)
class _Declared:
    flag: str
    help: str
    type: Any = None  # None: read from the field's annotation
    cli_default: Any = _FIELD_DEFAULT  # what the flag shows when it differs from the field's default
    convert: Callable[[Any], Any] | None = None  # the option's value → the field's value
    path: PathKind = ""
    minimum: float | None = None
    maximum: float | None = None
    open_bounds: bool = False


def option(flag: str, help: str, **how: Any) -> dict[str, _Declared]:
    """The ``metadata`` of a dataclass field that is a command-line option: ``field(default=…,
    metadata=option("--flag", "help"))``. ``how``: ``type`` (when the annotation does not
    say it, e.g. ``"spec"``), ``cli_default``, ``convert``, ``path``, ``minimum``, ``maximum``,
    ``open_bounds``. Several fields may share a flag (one knob set in two places): they get
    one option."""
    return {_KEY: _Declared(flag, help, **how)}


def option_name(flag: str) -> str:
    """``--bi-steps`` → ``bi_steps``; ``--enrich/--no-enrich`` → ``enrich`` (as click names them)."""
    return flag.split("/")[0].lstrip("-").replace("-", "_")


def _fields(cls: type) -> list[tuple[dataclasses.Field, Any]]:
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls)]


def _nested(annotation: Any) -> type | None:
    return annotation if isinstance(annotation, type) and dataclasses.is_dataclass(annotation) else None


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not dataclasses.MISSING else None


def _type(annotation: Any) -> Any:
    """The option type of a field's annotation: ``X | None`` → X, ``tuple[...]`` → ``list``,
    ``Literal[a, b]`` → the choices."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return _type(args[0])
    if typing.get_origin(annotation) is Literal:
        return tuple(args)
    if typing.get_origin(annotation) is tuple:
        return list
    return annotation


def _declared(f: dataclasses.Field, annotation: Any) -> Option:
    declared: _Declared = f.metadata[_KEY]
    default = _default(f) if declared.cli_default is _FIELD_DEFAULT else declared.cli_default
    kind = declared.type or _type(annotation)
    return Option(
        option_name(declared.flag),
        declared.flag,
        declared.help,
        kind,
        list(default) if kind is list and isinstance(default, tuple) else default,
        required=f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        path=declared.path,
        minimum=declared.minimum,
        maximum=declared.maximum,
        open_bounds=declared.open_bounds,
    )


def options_of(cls: type) -> tuple[Option, ...]:
    """The options declared on ``cls``'s fields and its nested configurations', in field order
    (a flag shared by several fields once, where it first appears)."""
    found: dict[str, Option] = {}
    for f, annotation in _fields(cls):
        if _nested(annotation):
            options = options_of(annotation)
        else:
            options = (_declared(f, annotation),) if _KEY in f.metadata else ()
        for made in options:
            if found.setdefault(made.name, made) != made:
                raise CitegraphError(f"{cls.__name__}: {made.flag} is declared twice, differently")
    return tuple(found.values())


def from_options(cls: type, values: Mapping[str, Any]) -> Any:
    """``cls`` made from option values by name (:func:`options_of`): each declared field from its
    option (converted as declared; lists as tuples, specs as their canonical text), nested
    configurations likewise, every other field its default."""
    made = {}
    for f, annotation in _fields(cls):
        if _nested(annotation):
            made[f.name] = from_options(annotation, values)
        elif _KEY in f.metadata and option_name(f.metadata[_KEY].flag) in values:
            declared: _Declared = f.metadata[_KEY]
            value = values[option_name(declared.flag)]
            if declared.convert:
                value = declared.convert(value)
            elif isinstance(value, list):
                value = tuple(str(v) if declared.type in ("spec", "specs") else v for v in value)
            elif declared.type == "spec" and value is not None:
                value = str(value)
            made[f.name] = value
    return cls(**made)
