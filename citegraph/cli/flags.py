"""Options and parameter types shared by several commands, and the options of a request made
from its model's fields (:class:`RequestOptions`)."""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click
from pydantic import BaseModel, TypeAdapter, ValidationError

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from ..options import Option
from ..operations.fields import problem
from ..vocabulary import calendar_date


class CommaList(click.ParamType):
    """A comma-separated list on the command line; empty items are dropped, each item converted."""

    name = "list"

    def __init__(self, item=str):
        self.item = item

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        try:
            return [self.item(part.strip()) for part in value.split(",") if part.strip()]
        except ValueError:
            self.fail(f"expected comma-separated {self.item.__name__} values, got {value!r}", param, ctx)


def on_duplicate_option(policies: tuple[str, ...], default: str, help: str):
    """``--on-duplicate POLICY``: what a command does with an id given more than once (an ingest's
    papers, a topic file's topics), one spelling for every command."""
    return click.option("--on-duplicate", type=click.Choice(policies), default=default, show_default=True, help=help)


def param_pairs_option(help: str):
    """``-p/--param KEY=VALUE`` (repeatable), given to the command as ``pairs``: one spelling for
    every command that takes named parameters (a query's, a model's)."""
    return click.option("-p", "--param", "pairs", multiple=True, metavar="KEY=VALUE", help=help)


class RetrieverList(click.ParamType):
    """Retriever specs (citegraph.retrieval.spec), comma-separated: parsed once, each a typed spec.

    ``single`` takes exactly one spec. The grammar is shown in every option's help.
    """

    name = "spec"

    def __init__(self, single: bool = False):
        self.single = single

    def convert(self, value, param, ctx):
        from ..errors import CitegraphError
        from ..retrieval.spec import parse_specs

        if not isinstance(value, str):
            return value
        try:
            specs = parse_specs(value)
        except CitegraphError as exc:
            self.fail(str(exc), param, ctx)
        if self.single and len(specs) != 1:
            self.fail(f"expected one retriever, got {len(specs)}: {value!r}", param, ctx)
        return specs[0] if self.single else specs


def _click_type(option: Option):
    """The click type of a declared option."""
    if isinstance(option.type, tuple):
        return click.Choice(option.type)
    if option.type is list:
        return CommaList()
    if option.type in ("spec", "specs"):
        return RetrieverList(single=option.type == "spec")
    if option.type is Path:
        kinds = {
            "dir": dict(exists=True, file_okay=False),
            "file": dict(exists=True, dir_okay=False),
            "any": dict(exists=True),
            "out": dict(file_okay=False),
            "": {},
        }
        return click.Path(path_type=Path, **kinds[option.path])
    if option.type in (int, float) and (option.minimum is not None or option.maximum is not None):
        opened = {"min_open": True, "max_open": True} if option.open_bounds else {}
        if option.type is int:
            low, high = (None if b is None else int(b) for b in (option.minimum, option.maximum))
            return click.IntRange(low, high, **opened)
        return click.FloatRange(option.minimum, option.maximum, **opened)
    return option.type


def click_option(option: Option) -> click.Option:
    """The flag of a declared option (:class:`citegraph.options.Option`; a comma-separated
    list shows its default as typed)."""
    default = ",".join(option.default) if option.type is list and option.default is not None else option.default
    if option.multiple:
        default = None
    if option.type is bool:  # --x, or a pair --x/--no-x
        return click.Option(
            [option.flag, option.name], is_flag=True, default=default, help=option.help, show_default="/" in option.flag
        )
    # a required option is given no default: click 8.3+ takes a given None for a value, and the
    # command would run without the option
    given: dict[str, Any] = {} if option.required and default is None else {"default": default}
    return click.Option(
        [option.flag, option.name],
        type=_click_type(option),
        required=option.required,
        multiple=option.multiple,
        show_default=default is not None,
        help=option.help,
        **given,
    )


def retrievers_option(
    help: str, default: str = "bm25", single: bool = False, name: str = "retrievers", flag: str = "--with"
):
    """``--with SPEC[,SPEC…]``: how a command names its scorers (``flag`` for a second role)."""
    from ..retrieval.spec import grammar

    return click.option(
        flag,
        name,
        type=RetrieverList(single),
        default=default,
        show_default=True,
        help=f"{help} Spelling: {grammar()}." if flag == "--with" else f"{help} Spelled as --with.",
    )


def record_format(command=None, *, files: bool = True):
    """--format: how a command that prints records (recommend, watch, explain, cite, paper,
    works) prints them; every such command takes the same values (:func:`record_formats`),
    the files for a reference manager where its answer is papers (``files``; ``explain``'s is
    one paper's rank: ``@record_format(files=False)``)."""
    if command is None:
        return functools.partial(record_format, files=files)
    return click.option(
        "--format",
        "format_",
        type=click.Choice(record_formats() if files else record_formats()[:2]),
        default="text",
        show_default=True,
        help="text: tables; json: the answer as one JSON value (as the HTTP service and the MCP tools give it)"
        + (
            "; bibtex, ris, csl-json, jsonl: a file for a reference manager on stdout (reasons in the note field)."
            if files
            else "."
        ),
    )(command)


def record_formats() -> list[str]:
    """The one vocabulary of ``--format`` for records: text, json, then the export writers."""
    from ..library.export import WRITERS

    return ["text", "json", *WRITERS]


class FieldValue(click.ParamType):
    """A value a request's field takes, checked as the field checks it (its length, its
    spelling: a date, text that is not blank); the refusal is the field's own words."""

    def __init__(self, annotation: Any, name: str = "text"):
        self.adapter, self.name = TypeAdapter(annotation), name

    def convert(self, value, param, ctx):
        try:
            return self.adapter.validate_python(value)
        except ValidationError as exc:
            self.fail("; ".join(problem(e) for e in exc.errors(include_url=False)), param, ctx)


class RequestOptions:
    """The command-line options of an operation's request (:mod:`citegraph.operations`), made
    from its model's fields — flag ``--the-name``, type (an IntRange from ``ge``/``le``, a Choice
    from a Literal, a repeatable option for a list, a flag pair for a bool), default, help (the
    field's description) — and the request made back from their values (:meth:`request`), the
    model validating it, with a refusal naming the flag. As a decorator it adds the options to
    a command, which takes them as keyword arguments named after the fields.

    ``flags`` gives a field other spellings (``{"k": ("-k", "--k")}``), ``arguments`` makes
    fields positional, ``leave`` names the fields a command gives another way (a file it reads),
    ``required`` those the command cannot do without."""

    def __init__(
        self,
        model: type[BaseModel],
        *,
        flags: Mapping[str, Sequence[str]] | None = None,
        arguments: Iterable[str] = (),
        leave: Iterable[str] = (),
        required: Iterable[str] = (),
    ):
        self.model, self.arguments, self.required = model, set(arguments), set(required)
        left = set(leave)
        self.fields = {name: field for name, field in model.model_fields.items() if name not in left}
        given = dict(flags or {})
        self.flags = {name: tuple(given.get(name, (f"--{name.replace('_', '-')}",))) for name in self.fields}

    def __call__(self, command):
        for name in reversed(list(self.fields)):
            command.__click_params__ = [*getattr(command, "__click_params__", []), self.parameter(name)]
        return command

    def parameter(self, name: str) -> click.Parameter:
        """The option (or argument) of the field ``name``."""
        field = self.fields[name]
        kind, multiple = _kind(field)
        required = name in self.required or field.is_required()
        if name in self.arguments:
            return click.Argument([name], type=kind, required=required, nargs=-1 if multiple else 1)
        declared = [*self.flags[name], name]
        if kind is bool:
            if field.default:
                declared = [f"{self.flags[name][-1]}/--no-{self.flags[name][-1].lstrip('-')}", name]
            return click.Option(
                declared, is_flag=True, default=field.default, show_default=True, help=field.description
            )
        default = None if multiple or field.default is None or required else field.default
        if isinstance(default, list):  # a comma-separated list shows its default as typed
            default = ",".join(f"{value:g}" for value in default)
        return click.Option(
            declared,
            type=kind,
            multiple=multiple,
            required=required,
            default=default,
            show_default=default is not None,
            help=f"{field.description} (repeatable)" if multiple else field.description,
        )

    def request(self, values: Mapping[str, Any]) -> Any:
        """The request from the options' values: those left at the field's default are not given
        (a request tells a field given from one left out); a refusal names the flag."""
        given = {}
        for name, value in values.items():
            if name not in self.fields or value is None or value == () or value == self.fields[name].default:
                continue
            given[name] = list(value) if isinstance(value, tuple) else value
        try:
            return self.model.model_validate(given)
        except ValidationError as exc:
            raise click.UsageError("; ".join(self._named(e) for e in exc.errors(include_url=False))) from None

    def _named(self, error: Mapping[str, Any]) -> str:
        """A validation error with its field as the option spells it."""
        loc = error.get("loc", ())
        if loc and loc[0] in self.flags and loc[0] not in self.arguments:
            error = {**error, "loc": ("/".join(self.flags[loc[0]]), *loc[1:])}
        return problem(error)


def _kind(field: FieldInfo) -> tuple[Any, bool]:
    """The click type of a field's values, and whether the field is a list (a repeatable option)."""
    annotation = field.annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    if typing.get_origin(annotation) is list:
        [item] = typing.get_args(annotation)
        if _number(item):  # numbers are given as one comma-separated list: --weights 0,1,2
            return CommaList(_number(item)), False
        return FieldValue(item, _metavar(item)), True
    if annotation is bool:
        return bool, False
    if typing.get_origin(annotation) is Literal:
        return click.Choice(typing.get_args(annotation)), False
    if annotation is int:  # its bounds: annotated-types' Ge and Le, as pydantic keeps them
        low = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
        high = next((m.le for m in field.metadata if hasattr(m, "le")), None)
        return click.IntRange(low, high), False
    checked = typing.Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation
    return FieldValue(checked, _metavar(field.annotation)), False


def _number(annotation: Any) -> type | None:
    """int or float, when a list's items are numbers (bounded or not)."""
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation if annotation in (int, float) else None


def _metavar(annotation: Any) -> str:
    """How --help names a text field's value: a date, a path, or text."""
    if annotation is Path:
        return "path"
    if typing.get_origin(annotation) is typing.Annotated:
        if any(getattr(m, "func", None) is calendar_date for m in annotation.__metadata__):
            return "date"
    return next((found for a in typing.get_args(annotation) if (found := _metavar(a)) != "text"), "text")


def ids_file(path: Path | None) -> list[str]:
    return path.read_text(encoding="utf-8").split() if path else []


def ids_option(example: str):
    """--ids FILE: only the papers a file names (one id a line)."""
    return click.option(
        "--ids",
        "ids_path",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help=f"Only these papers (a file of ids, one a line), e.g. {example}.",
    )


with_retrievers = retrievers_option("Text retrievers with built indexes (citegraph index …); '' for graph only.")
learned_weights = click.option(
    "--model",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Learned weights (citegraph recommend-train).",
)
cite_model_option = click.option(
    "--cite-model",
    type=click.Path(path_type=Path),
    help="A sentence-transformers model folder that re-ranks the cite suggestions (as citegraph cite --model).",
)


def prefilter_options(command):
    """--min-abstract and --min-citations, given to the command as one ``prefilter`` argument."""

    @functools.wraps(command)
    def with_prefilter(*args, min_abstract: int, min_citations: int, **kwargs):
        from ..ingest import Prefilter

        return command(*args, prefilter=Prefilter(min_abstract=min_abstract, min_citations=min_citations), **kwargs)

    with_prefilter = click.option(
        "--min-citations", default=3, show_default=True, help="Prefilter: minimum in-corpus citation count."
    )(with_prefilter)
    return click.option(
        "--min-abstract", default=30, show_default=True, help="Prefilter: minimum abstract length in characters."
    )(with_prefilter)


def selection_options(command):
    """The works a snapshot reader loads (--field, --topic, --since, --until, --language, --type,
    --include-referenced ...), given to the command as one ``selection``."""

    @functools.wraps(command)
    def with_selection(
        *args, fields, topics, since, until, languages, types, min_cited_by, retracted, include_referenced, **kwargs
    ):
        from ..ingest.selection import Selection, topic_key

        selection = Selection(
            fields=frozenset(fields),
            topics=frozenset(map(topic_key, topics)),
            since=since,
            until=until,
            languages=frozenset(v.lower() for v in languages),
            types=frozenset(v.lower() for v in types),
            min_citations=min_cited_by,
            retracted=retracted,
            include_referenced=include_referenced,
        )
        return command(*args, selection=selection, **kwargs)

    from ..vocabulary import MAG_FIELDS

    for option in reversed(
        [
            click.option(
                "--field",
                "fields",
                multiple=True,
                type=click.Choice(MAG_FIELDS, case_sensitive=False),
                metavar="FIELD",
                help="Only works of this MAG field, e.g. 'Computer Science' (repeatable: any of them).",
            ),
            click.option(
                "--topic",
                "topics",
                multiple=True,
                metavar="TOPIC",
                help="Only works with an OpenAlex topic at or below TOPIC: a topic, subfield, field or domain, "
                "by id (T10181, subfields/1702, fields/17, domains/3) or name ('Computer Science'; "
                "any case). Repeatable: any of them. openalex only.",
            ),
            click.option("--since", type=int, help="Only works published in or after this year."),
            click.option("--until", type=int, help="Only works published in or before this year."),
            click.option(
                "--language", "languages", multiple=True, help="Only works in this language (ISO 639-1; repeatable)."
            ),
            click.option(
                "--type", "types", multiple=True, help="Only works of this type, e.g. article, preprint (repeatable)."
            ),
            click.option(
                "--min-cited-by",
                default=0,
                show_default=True,
                help="Only works the source counts at least this many citations for (all of the source, "
                "not only the loaded part).",
            ),
            click.option("--retracted/--no-retracted", default=True, show_default=True, help="Keep retracted works."),
            click.option(
                "--include-referenced",
                is_flag=True,
                help="Also load the works the selected works reference as full papers, not :External stubs "
                "(one hop: their own references outside stay stubs). Reads the input once more first.",
            ),
        ]
    ):
        with_selection = option(with_selection)
    return with_selection
