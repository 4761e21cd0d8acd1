"""Near-duplicate records: the most general one when the paste names no environment. Pure.

A large imported corpus holds the same error once per version or system
(``cmake/generator-not-found/cmake3-linux`` and ``.../cmake3.28-linux``). The
ranker folds them into one answer and lets the paste's versions and OS choose
(:mod:`bot.match.variants`). A paste that names none of what sets them apart
leaves the choice to scores that differ by noise; :func:`prefer_general` then
answers with the most general member (:func:`generality`: fewest conditions on
system, hardware and versions), so the same paste always gets the same record,
and the answer says that it fits several (:func:`several_note`).

What a paste names is read as :class:`~bot.fit.order.PasteFacts`, the same facts
a stored reply keeps, so an answer rendered again says the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.fit.order import PasteFacts
from bot.i18n import t
from bot.match.rank import Match, Triage
from bot.records import Record

_ANY_OS = frozenset({"", "any", "all", "cross-platform"})
_UPPER = re.compile(r"<|~=|==|\^|\.x\b|\.\*")
_DIGITS = re.compile(r"\d")


def _environment(record: Record) -> dict[str, object]:
    found = record.extra.get("environment")
    return found if isinstance(found, dict) else {}


def record_os(record: Record) -> str:
    """The system ``record`` is written for ("" for any): its environment, else its id."""
    named = str(_environment(record).get("os") or "").lower()
    if named not in _ANY_OS:
        return named
    env = record.id.lower().split("/")[-1] if record.id.count("/") >= 2 else ""
    return next((o for o in ("windows", "macos", "linux") if o in env.split("-")), "")


def _packages(record: Record) -> set[str]:
    names = {v.version.split()[0].lower() for v in record.versions if v.version.strip()}
    runtime = _environment(record).get("runtime")
    if isinstance(runtime, dict) and runtime.get("name"):
        names.add(str(runtime["name"]).lower())
    return names


def generality(record: Record) -> tuple[int, int, int, int, int, str]:
    """Sort key, most general first: no system, no hardware, fewest upper version
    bounds, fewest versions, fewest digits in the id's environment part, then the id."""
    env = _environment(record)
    ranges = [v.version for v in record.versions]
    runtime = env.get("runtime")
    if isinstance(runtime, dict) and runtime.get("version_range"):
        ranges.append(str(runtime["version_range"]))
    tail = record.id.split("/")[-1] if record.id.count("/") >= 2 else ""
    return (
        1 if record_os(record) else 0,
        1 if env.get("hardware") else 0,
        sum(len(_UPPER.findall(r)) for r in ranges),
        len(record.versions),
        len(_DIGITS.findall(tail)),
        record.id,
    )


def paste_decides(members: Sequence[Record], facts: PasteFacts) -> bool:
    """Whether the paste names something that tells ``members`` apart: a system when they
    differ by system, a version of a package they name."""
    systems = {record_os(r) for r in members}
    if facts.os and len(systems) > 1:
        return True
    named = set().union(*(_packages(r) for r in members)) if members else set()
    return any(name in facts.versions for name in named)


def most_general(members: Sequence[Record]) -> Record:
    return min(members, key=generality)


def _general(match: Match, facts: PasteFacts, record: Callable[[str], Record | None]) -> Match:
    if not match.variants:
        return match
    members = [r for r in map(record, (match.record_id, *match.variants)) if r is not None]
    if len(members) < 2 or paste_decides(members, facts):
        return match
    chosen = most_general(members)
    if chosen.id == match.record_id:
        return match
    others = tuple(r.id for r in members if r.id != chosen.id)
    return replace(match, record_id=chosen.id, variants=others)


def prefer_general(triage: Triage, text: str, record: Callable[[str], Record | None]) -> Triage:
    """``triage`` with each answer that folds variants answered by the most general of
    them when the paste ``text`` names nothing that tells them apart."""
    facts = PasteFacts.of(text)

    def each(matches: tuple[Match, ...]) -> tuple[Match, ...]:
        return tuple(_general(m, facts, record) for m in matches)

    return replace(
        triage,
        matches=each(triage.matches),
        per_error=tuple((e, each(ms)) for e, ms in triage.per_error),
    )


def several_note(
    locale: str,
    shown: Record,
    variants: Sequence[str],
    facts: PasteFacts | None,
    record: Callable[[str], Record | None],
) -> str | None:
    """ "fits several, this is the most general" when ``shown`` was chosen so: it has
    variants, the paste names nothing telling them apart and it is the most general."""
    if not variants or facts is None:
        return None
    members = [shown, *(r for r in map(record, variants) if r is not None)]
    if len(members) < 2 or paste_decides(members, facts) or most_general(members).id != shown.id:
        return None
    return t(locale, "fit.several", ids=", ".join(r.id for r in members[1:6]))


__all__ = [
    "generality",
    "most_general",
    "paste_decides",
    "prefer_general",
    "record_os",
    "several_note",
]
