"""Records ⇄ rows. Pure: no session, no clock.

PostgreSQL's JSONB does not keep key order, and records keep the order of
the keys they were given. So objects inside stored JSON are written as lists
of ``[key, value]`` pairs and read back as objects in that order: the
versions of a record, and the objects in a translation row (one
``<field>_<locale>`` value: ``workarounds_zh`` entries, ``os_specific_zh``,
``transition_graph_zh``). Plain dicts stored by earlier versions read as they are.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from bot.records import (
    LINK_KINDS,
    Record,
    link_condition,
    link_probability,
    link_target,
)

#: Scalar record fields stored as columns of ``records``.
SCALARS = (
    "domain", "category", "subcategory", "signature", "regex", "root_cause",
    "root_cause_type", "versions", "os_specific", "official_doc_url",
    "official_doc_section", "error_code", "verification_tier", "confidence",
    "fix_success_rate", "resolvable", "first_seen", "last_confirmed",
    "last_updated", "evidence_count", "tags", "locale", "aliases",
)  # fmt: skip
WORKAROUND_COLUMNS = ("action", "success_rate", "how", "condition", "sources")
DEAD_END_COLUMNS = ("action", "why_fails", "fail_rate", "condition", "sources")


def content_hash(native: dict[str, Any]) -> str:
    text = json.dumps(native, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def record_values(record: Record) -> dict[str, Any]:
    """Column values of the ``records`` row (without timestamps)."""
    native = record.to_native()
    values: dict[str, Any] = {"id": record.id}
    for name in SCALARS:
        values[name] = getattr(record, name)
    values["versions"] = _pairs(native["versions"])
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
            links.append({
                "source_id": rid, "kind": kind, "position": i, "target_id": link_target(item),
                "probability": link_probability(item), "condition": link_condition(item),
                "is_object": is_object,
                "extra": {"keys": list(dumped), **_rest(dumped, ("error_id", "probability", "condition"))},
            })  # fmt: skip
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


def record_from_rows(
    row: dict[str, Any],
    translations: list[dict[str, Any]],
    workarounds: list[dict[str, Any]],
    dead_ends: list[dict[str, Any]],
    links: list[dict[str, Any]],
) -> Record:
    """Rebuild a record from its row and child rows (children in position order)."""
    data: dict[str, Any] = {name: row[name] for name in SCALARS}
    data["id"] = row["id"]
    data["versions"] = [_object(v) for v in row["versions"] or []]
    data["workarounds"] = [_item_from_columns(w, WORKAROUND_COLUMNS) for w in workarounds]
    data["dead_ends"] = [_item_from_columns(d, DEAD_END_COLUMNS) for d in dead_ends]
    graph: dict[str, Any] = {kind: [] for kind in LINK_KINDS}
    graph.update(row["graph_extra"] or {})
    for link in links:
        graph[link["kind"]].append(_link_item(link))
    data["transition_graph"] = graph
    data["translations"] = {}
    for t in translations:
        value = _translation_value(t["field"], t["value"])
        data["translations"].setdefault(t["locale"], {})[t["field"]] = value
    data.update(row["extra"] or {})
    return Record.model_validate(data)


def _link_item(link: dict[str, Any]) -> Any:
    if not link["is_object"]:
        return link["target_id"]
    extra = dict(link["extra"] or {})
    keys = extra.pop("keys", None) or ["error_id", "probability", "condition"]
    values = {"error_id": link["target_id"], "probability": link["probability"],
              "condition": link["condition"], **extra}  # fmt: skip
    return {key: values[key] for key in keys if key in values}
