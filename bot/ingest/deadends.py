"""The deadends.dev canon format (schema 1.0.0) ⇄ native records.

Every canon field with a native counterpart is mapped to it; the rest
(``schema_version``, ``url``, ``environment``, ``metadata``) is kept as extra
keys of the native record, so a canon imported and exported keeps its content.

=========================  ==========================================
canon                      native
=========================  ==========================================
id                         id
error.signature/regex      signature / regex
error.domain/category      domain / category
error.first_seen           first_seen
error.last_confirmed       last_confirmed
verdict.summary            root_cause
verdict.resolvable         resolvable
verdict.fix_success_rate   fix_success_rate
verdict.confidence         confidence
verdict.last_updated       last_updated
environment.runtime        versions[0] ("name version_range")
metadata.review_status     verification_tier
metadata.evidence_count    evidence_count
dead_ends / workarounds    dead_ends / workarounds (extra keys kept)
transition_graph           transition_graph
=========================  ==========================================
"""

from __future__ import annotations

from typing import Any

from bot.records import Record

_ERROR_FIELDS = ("signature", "regex", "domain", "category", "first_seen", "last_confirmed")
_KEPT = ("schema_version", "url", "environment", "metadata")


def is_canon(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("error"), dict)
        and ("verdict" in data or "schema_version" in data)
    )


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def canon_to_native(data: dict[str, Any]) -> dict[str, Any]:
    """Native record data for a canon; validation happens in :class:`Record`."""
    error = _section(data, "error")
    verdict = _section(data, "verdict")
    metadata = _section(data, "metadata")
    runtime = _section(_section(data, "environment"), "runtime")
    native: dict[str, Any] = {"id": data.get("id")}
    native.update({field: error.get(field) for field in _ERROR_FIELDS if field in error})
    native["root_cause"] = verdict.get("summary", "")
    for field in ("resolvable", "fix_success_rate", "confidence", "last_updated"):
        if field in verdict:
            native[field] = verdict[field]
    version = " ".join(str(runtime[k]) for k in ("name", "version_range") if runtime.get(k))
    native["versions"] = [{"version": version}] if version else []
    if "review_status" in metadata:
        native["verification_tier"] = metadata["review_status"]
    if "evidence_count" in metadata:
        native["evidence_count"] = metadata["evidence_count"]
    for field in ("dead_ends", "workarounds", "transition_graph"):
        if field in data:
            native[field] = data[field]
    for key in _KEPT:
        if key in data:
            native[key] = data[key]
    return native


def native_to_canon(record: Record) -> dict[str, Any]:
    """The canon form of a record (the reverse of :func:`canon_to_native`)."""
    plain = record.to_native()
    extra = record.extra
    metadata = dict(extra.get("metadata") or {})
    metadata["review_status"] = record.verification_tier
    metadata["evidence_count"] = record.evidence_count
    environment = extra.get("environment")
    if environment is None:
        name, _, version_range = (record.versions[0].version if record.versions else "").partition(
            " "
        )
        environment = {"runtime": {"name": name, "version_range": version_range}}
    canon: dict[str, Any] = {
        "schema_version": extra.get("schema_version", "1.0.0"),
        "id": record.id,
    }
    if "url" in extra:
        canon["url"] = extra["url"]
    canon["error"] = {field: plain[field] for field in _ERROR_FIELDS}
    canon["environment"] = environment
    canon["verdict"] = {
        "resolvable": record.resolvable,
        "fix_success_rate": record.fix_success_rate,
        "confidence": record.confidence,
        "last_updated": plain["last_updated"],
        "summary": record.root_cause,
    }
    canon["dead_ends"] = plain["dead_ends"]
    canon["workarounds"] = plain["workarounds"]
    canon["transition_graph"] = plain["transition_graph"]
    canon["metadata"] = metadata
    return canon
