"""Records ⇄ rows. Pure: no session, no clock.

Which record fields are columns is read from the tables of :mod:`bot.store.tables`:
a field of the record model that gets a column there is stored and read back here.

A translation row holds one ``<field>_<locale>`` value as JSON. PostgreSQL's
JSONB does not keep key order, and translation objects keep the order they
were given in, so objects inside a translation value (``workarounds_zh``
entries, ``os_specific_zh``, ``transition_graph_zh``) are stored as lists of
``[key, value]`` pairs and read back as objects in that order.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from pydantic import BaseModel
from sqlalchemy import Table

from bot.records import (
    LINK_KINDS,
    STORED,
    TRANSLATED,
    DeadEnd,
    Link,
    Record,
    TransitionGraph,
    Translation,
    VersionInfo,
    Workaround,
    link_condition,
    link_probability,
    link_target,
)
from bot.store import tables

M = TypeVar("M", bound=BaseModel)
_FIELD_ORDER = {name: i for i, name in enumerate(TRANSLATED)}


def _fields_in(
    table: Table, model: type[BaseModel], *, without: tuple[str, ...] = ()
) -> tuple[str, ...]:
    """The columns of ``table`` that are fields of ``model``, in the table's order."""
    return tuple(
        c.name for c in table.columns if c.name in model.model_fields and c.name not in without
    )


#: Scalar record fields stored as columns of ``records`` (the table declares them).
SCALARS = _fields_in(tables.records, Record, without=("id",))
WORKAROUND_COLUMNS = _fields_in(tables.workarounds, Workaround)
DEAD_END_COLUMNS = _fields_in(tables.dead_ends, DeadEnd)
#: The columns :func:`record_data` reads, by table (not timestamps, hashes, counters).
READ_COLUMNS = {
    "records": ("id", *SCALARS, "extra", "graph_extra"),
    "record_translations": ("locale", "field", "value"),
    "workarounds": (*WORKAROUND_COLUMNS, "extra"),
    "dead_ends": (*DEAD_END_COLUMNS, "extra"),
    "links": ("kind", "target_id", "probability", "condition", "is_object", "extra"),
}


def content_hash(native: dict[str, Any]) -> str:
    text = json.dumps(native, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def record_values(record: Record) -> dict[str, Any]:
    """Column values of the ``records`` row (without timestamps)."""
    native = record.to_native()
    values: dict[str, Any] = {"id": record.id}
    for name in SCALARS:
        values[name] = getattr(record, name)
    values["versions"] = native["versions"]
    values["extra"] = record.extra
    graph_extra = record.transition_graph.__pydantic_extra__ or {}
    values["graph_extra"] = dict(graph_extra)
    values["content_hash"] = content_hash(native)
    return values


def child_values(record: Record) -> dict[str, list[dict[str, Any]]]:
    """Rows of the child tables, keyed by table name."""
    rid = record.id
    translations = [
        {"record_id": rid, "locale": locale, "field": name, "value": _pairs(value)}
        for locale, text in sorted(record.translations.items())
        for name, value in text.model_dump(mode="json").items()
        if value is not None
    ]
    workarounds = [
        {"record_id": rid, "position": i, **_item_columns(w, WORKAROUND_COLUMNS)}
        for i, w in enumerate(record.workarounds)
    ]
    dead_ends = [
        {"record_id": rid, "position": i, **_item_columns(d, DEAD_END_COLUMNS)}
        for i, d in enumerate(record.dead_ends)
    ]
    links = []
    for kind in LINK_KINDS:
        for i, item in enumerate(getattr(record.transition_graph, kind)):
            is_object = not isinstance(item, str)
            dumped = item.model_dump(exclude_unset=True) if not isinstance(item, str) else {}
            links.append(
                {
                    "source_id": rid,
                    "kind": kind,
                    "position": i,
                    "target_id": link_target(item),
                    "probability": link_probability(item),
                    "condition": link_condition(item),
                    "is_object": is_object,
                    "extra": {
                        "keys": list(dumped),
                        **_rest(dumped, ("error_id", "probability", "condition")),
                    },
                }
            )
    return {
        "record_translations": translations,
        "workarounds": workarounds,
        "dead_ends": dead_ends,
        "links": links,
    }


def _pairs(value: Any) -> Any:
    """Objects as ``[key, value]`` lists, at any depth: JSONB keeps list order only."""
    if isinstance(value, dict):
        return [[k, _pairs(v)] for k, v in value.items()]
    if isinstance(value, list):
        return [_pairs(v) for v in value]
    return value


def _translation_value(field: str, value: Any) -> Any:
    """A stored translation value as the native form writes it (see the module docstring)."""
    if field in ("signature", "root_cause") or not isinstance(value, list):
        return value
    if field == "os_specific":
        return _object(value)
    if field == "transition_graph":
        return {kind: [_object(e) for e in entries] for kind, entries in value}
    return [_object(item) for item in value]


def _object(stored: Any) -> Any:
    """A ``[key, value]`` pair list back as an object (anything else as it is)."""
    return {k: v for k, v in stored} if isinstance(stored, list) else stored


def _rest(data: dict[str, Any], known: Iterable[str]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in known}


def _item_columns(item: BaseModel, columns: tuple[str, ...]) -> dict[str, Any]:
    """Typed columns of a workaround or dead end; ``extra`` remembers the keys it was given."""
    given = item.model_dump(mode="json")
    values = {name: getattr(item, name) for name in columns}
    values["extra"] = {"keys": list(given), **_rest(given, columns)}
    return values


def _item_from_columns(row: dict[str, Any], columns: tuple[str, ...]) -> dict[str, Any]:
    extra = dict(row["extra"] or {})
    keys = extra.pop("keys", None) or list(columns)
    values = {**{name: row[name] for name in columns}, **extra}
    return {key: values[key] for key in keys if key in values}


def record_data(
    row: dict[str, Any],
    translations: list[dict[str, Any]],
    workarounds: list[dict[str, Any]],
    dead_ends: list[dict[str, Any]],
    links: list[dict[str, Any]],
) -> dict[str, Any]:
    """A record's fields, as its model takes them, from its row and child rows (in
    position order)."""
    data: dict[str, Any] = {name: row[name] for name in SCALARS}
    data["id"] = row["id"]
    data["workarounds"] = [_item_from_columns(w, WORKAROUND_COLUMNS) for w in workarounds]
    data["dead_ends"] = [_item_from_columns(d, DEAD_END_COLUMNS) for d in dead_ends]
    graph: dict[str, Any] = {kind: [] for kind in LINK_KINDS}
    graph.update(row["graph_extra"] or {})
    for link in links:
        graph[link["kind"]].append(_link_item(link))
    data["transition_graph"] = graph
    data["translations"] = {}
    # the database keeps no order among a locale's fields: read them in the record's own
    for t in sorted(
        translations, key=lambda t: (t["locale"], _FIELD_ORDER.get(t["field"], len(_FIELD_ORDER)))
    ):
        value = _translation_value(t["field"], t["value"])
        data["translations"].setdefault(t["locale"], {})[t["field"]] = value
    data.update(row["extra"] or {})
    return data


def trusted_record(data: dict[str, Any]) -> Record:
    """The record :func:`record_data` describes, built without validation.

    Only for what the store itself wrote: every record was validated on its way
    in, and validating again costs more than the rest of loading together (the
    regex check compiles each pattern with Python's ``re``). Builds exactly what
    ``Record.model_validate(data)`` builds, the fields each model was given
    included (a test holds the two equal on every record errkb ships).
    """
    values = dict(data)
    values["versions"] = [_built(VersionInfo, v) for v in values["versions"] or []]
    values["workarounds"] = [_built(Workaround, w) for w in values["workarounds"]]
    values["dead_ends"] = [_built(DeadEnd, d) for d in values["dead_ends"]]
    graph = dict(values["transition_graph"])
    for kind in LINK_KINDS:
        graph[kind] = [i if isinstance(i, str) else _built(Link, i) for i in graph[kind]]
    values["transition_graph"] = _built(TransitionGraph, graph)
    # a translation's entries take several forms (a string, an object): validated, as they are few
    values["translations"] = {
        locale: Translation.model_validate(fields, context=STORED)
        for locale, fields in values["translations"].items()
    }
    return _built(Record, values)


def _built(model: type[M], values: dict[str, Any]) -> M:
    """``model.model_construct(_fields_set=set(values), **values)``, defaults filled in here.

    Validation counts the extra keys it keeps among the fields it was given; so does
    this. ``model_construct`` looks each missing default up through pydantic, which
    parses a default factory's signature (``list``: from its text) on every call, the
    largest cost of loading a large base. Here each model's defaults are read once,
    and the instance is made as ``model_construct`` makes it.
    """
    shape = _shape(model)
    if shape is None:
        return model.model_construct(_fields_set=set(values), **values)
    given = values.keys()
    if shape.fields <= given:
        own = {name: values[name] for name in shape.names}
    else:  # (a required field left out stays out, as model_construct leaves it)
        own = {}
        for name in shape.names:
            if name in values:
                own[name] = values[name]
            elif name in shape.defaults:
                factory, default = shape.defaults[name]
                own[name] = factory() if factory is not None else default
    extra = None
    if shape.extra_allowed:
        extra = {k: v for k, v in values.items() if k not in own} if given - shape.fields else {}
    built = model.__new__(model)
    object.__setattr__(built, "__dict__", own)
    object.__setattr__(built, "__pydantic_fields_set__", set(given))
    object.__setattr__(built, "__pydantic_extra__", extra)
    object.__setattr__(built, "__pydantic_private__", None)
    return built


@dataclass(frozen=True)
class _Shape:
    """What building one model needs: its field names in order, each optional field's
    default (factory, value), whether it keeps extra keys."""

    names: tuple[str, ...]
    fields: frozenset[str]
    defaults: dict[str, tuple[Callable[[], Any] | None, Any]]
    extra_allowed: bool


_SHAPES: dict[type[BaseModel], _Shape | None] = {}
_IMMUTABLE = (str, int, float, bool, type(None))


def _shape(model: type[BaseModel]) -> _Shape | None:
    """``model``'s shape; None for a model this shortcut does not cover (aliases, private
    attributes, a post-init hook, a root model, a mutable default, a factory taking
    data), left to ``model_construct``."""
    if model in _SHAPES:
        return _SHAPES[model]
    fields = model.model_fields
    plain = (
        not model.__pydantic_root_model__
        and model.__pydantic_post_init__ is None
        and not model.__private_attributes__
        and all(f.alias is None and f.validation_alias is None for f in fields.values())
    )
    defaults: dict[str, tuple[Callable[[], Any] | None, Any]] = {}
    for name, field in fields.items():
        factory = field.default_factory
        if field.is_required():
            continue
        if factory is None and not isinstance(field.default, _IMMUTABLE):
            plain = False
        elif factory is not None and field.default_factory_takes_validated_data:
            plain = False
        defaults[name] = (cast(Callable[[], Any] | None, factory), field.default)
    extra_allowed = model.model_config.get("extra") == "allow"
    shape = _Shape(tuple(fields), frozenset(fields), defaults, extra_allowed) if plain else None
    _SHAPES[model] = shape
    return shape


def _link_item(link: dict[str, Any]) -> Any:
    if not link["is_object"]:
        return link["target_id"]
    extra = dict(link["extra"] or {})
    keys = extra.pop("keys", None) or ["error_id", "probability", "condition"]
    values = {
        "error_id": link["target_id"],
        "probability": link["probability"],
        "condition": link["condition"],
        **extra,
    }
    return {key: values[key] for key in keys if key in values}
