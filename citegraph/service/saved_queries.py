"""The saved exploration queries (Neo4j Browser's, ``cypher/browser/*.cypher``) over HTTP,
mounted by the service (:mod:`.http`): ``GET /queries`` lists them with their typed
parameters, ``POST /queries/{name}`` runs one with its parameters checked against the
declared types, its rows capped."""

from __future__ import annotations

import json
from itertools import islice
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body, HTTPException
from fastapi import Path as PathParam
from neo4j.exceptions import ClientError
from pydantic import BaseModel

from ..errors import CitegraphError, NotFoundError
from ..graph import queries

if TYPE_CHECKING:
    from ..graph import GraphStore

SAVED = "browser/"  # the saved exploration queries: cypher/browser/*.cypher


class ParameterOut(BaseModel):
    name: str
    type: str
    doc: str


class SavedQuery(BaseModel):
    name: str
    doc: str
    parameters: list[ParameterOut]


class QueryResult(BaseModel):
    name: str
    columns: list[str]
    rows: list[dict[str, Any]]
    truncated: bool


def saved_query_routes(store: GraphStore, max_rows: int, errors: dict[int | str, dict[str, Any]]) -> APIRouter:
    """The routes over ``store``; a query answers at most ``max_rows`` rows; ``errors`` the
    service's error responses of a run (its handlers answer them)."""
    router = APIRouter()

    @router.get("/queries", response_model=list[SavedQuery], summary="The saved exploration queries (Neo4j Browser's)")
    def saved_queries() -> list[dict]:
        return [_describe(queries.load(name)) for name in queries.names() if name.startswith(SAVED)]

    @router.post(
        "/queries/{name}",
        response_model=QueryResult,
        responses=errors,
        summary="Run a saved exploration query with its parameters",
    )
    def run_query(
        name: Annotated[str, PathParam(pattern=r"^[a-z0-9_]{1,64}$")],
        params: Annotated[dict[str, Any], Body(description="The query's parameters by name")],
    ) -> dict:
        query = _saved(name)
        checked = _parameters(query, params)
        rows = store.rows(query.name, **checked)
        try:
            taken = list(islice(rows, max_rows + 1))
        except ClientError as exc:
            raise HTTPException(422, f"the graph refused '{name}': {exc.message}") from exc
        finally:
            rows.close()
        data = json.loads(json.dumps(taken[:max_rows], default=str))
        return {
            "name": name,
            "columns": list(taken[0]) if taken else [],
            "rows": data,
            "truncated": len(taken) > max_rows,
        }

    return router


def _saved(name: str) -> queries.CypherQuery:
    if f"{SAVED}{name}" not in queries.names():
        raise NotFoundError(f"no saved query '{name}'; GET /queries lists them")
    return queries.load(f"{SAVED}{name}")


def _describe(query: queries.CypherQuery) -> dict:
    return {
        "name": query.name.removeprefix(SAVED),
        "doc": query.doc,
        "parameters": [{"name": p.name, "type": p.type, "doc": p.doc} for p in query.parameters.values()],
    }


def _parameters(query: queries.CypherQuery, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` checked against the query's declared parameters and their types."""
    unknown = sorted(params.keys() - query.parameters.keys())
    missing = sorted(query.parameters.keys() - params.keys())
    if unknown or missing:
        raise CitegraphError(
            "; ".join(
                [
                    *(f"body.{n}: '{query.name}' has no parameter ${n}" for n in unknown),
                    *(f"body.{n}: missing parameter ${n} ({query.parameters[n].type})" for n in missing),
                ]
            )
        )
    checked = {}
    for name, value in params.items():
        try:
            checked[name] = query.parameters[name].accept(value)
        except CitegraphError as exc:
            raise CitegraphError(f"body.{name}: {exc}") from None
    return checked
