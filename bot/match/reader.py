"""Among records that answer a paste about equally, the one in the reader's language. Pure.

A knowledge base grows near-duplicates: an imported corpus brings its own
record for an error the starter base already answers, often without the
translations the starter record has, and the two score within a few hundredths
of each other. Ranking cannot tell them apart on the paste, and the reader
can: an answer in their language beats an equal one they must translate.

:func:`prefer_reader` applies that after ranking, per error and overall: when
the best match has no text in the reader's locale, an equal that has takes its
place:

- a variant of it, or another match for the same error whose record states the
  same error (:func:`same_error`: the first sentence of their signatures agree,
  exception types compared by their last name, one a prefix of the other of at
  least :data:`SAME_ERROR_CHARS` characters), answers with the best's score and
  band, as variants do;
- otherwise another match for the same error within :data:`READER_MARGIN` of its
  score and in the same band, with its own score.

The band stays, so whether errkb answers, volunteers or declines never
changes; only which of the equals answers. When none qualifies the best stays, and the
answer says in the reader's language that it is shown untranslated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from bot.match.normalise import template
from bot.match.rank import Match, Triage
from bot.records import Record

#: How far below the best match (in calibrated probability) a match in the reader's
#: language may score and still answer in its place.
READER_MARGIN = 0.05
#: The shortest signature sentence that counts as naming the same error as a longer one.
SAME_ERROR_CHARS = 40
_SENTENCE = re.compile(r"\n|(?<=[.!])\s")
_QUALIFIED = re.compile(r"^(?:[\w$]+\.)+(?=[A-Z]\w*:)")


def _error_key(signature: str) -> str:
    first = _SENTENCE.split(signature.strip(), maxsplit=1)[0]
    return template(_QUALIFIED.sub("", first.strip()))


def same_error(one: Record, other: Record) -> bool:
    """Whether two records' signatures state the same error (see the module docstring)."""
    a, b = sorted((_error_key(one.signature), _error_key(other.signature)), key=len)
    return a == b or (len(a) >= SAME_ERROR_CHARS and b.startswith(a))


def speaks(record: Record, locale: str) -> bool:
    """Whether ``record`` explains itself in ``locale``: written in it, or its root cause
    (the answer's main text) translated into it."""
    if record.locale == locale:
        return True
    text, used = record.text("root_cause", locale)
    return used == locale and bool(str(text).strip())


def _preferred(
    matches: tuple[Match, ...], locale: str, record: Callable[[str], Record | None], margin: float
) -> tuple[Match, ...]:
    if not matches:
        return matches

    def fluent(record_id: str) -> bool:
        found = record(record_id)
        return found is not None and speaks(found, locale)

    best = matches[0]
    if fluent(best.record_id):
        return matches
    for variant in best.variants:  # the same error for another version: the same score
        if fluent(variant):
            others = tuple(v for v in best.variants if v != variant) + (best.record_id,)
            return (replace(best, record_id=variant, variants=others), *matches[1:])
    own = record(best.record_id)
    for at, match in enumerate(matches[1:], 1):
        if match.error_index != best.error_index or not fluent(match.record_id):
            continue
        found = record(match.record_id)
        if own is not None and found is not None and same_error(own, found):
            # the same error twice: the reader's answers in the best's place, the other is
            # listed beside it as variants are
            stand_in = replace(
                best,
                record_id=match.record_id,
                line=match.line,
                line_no=match.line_no,
                features=match.features,
                variants=(*match.variants, best.record_id),
            )
            return (stand_in, *matches[1:at], *matches[at + 1 :])
        if best.score - match.score <= margin and match.band == best.band:
            return (match, *matches[:at], *matches[at + 1 :])
    return matches


def prefer_reader(
    triage: Triage,
    locale: str,
    record: Callable[[str], Record | None],
    *,
    margin: float = READER_MARGIN,
) -> Triage:
    """``triage`` with, overall and per error, the best match replaced by an equal one in
    ``locale`` when it has none (see the module docstring); ``record`` looks ids up."""
    return replace(
        triage,
        matches=_preferred(triage.matches, locale, record, margin),
        per_error=tuple((e, _preferred(ms, locale, record, margin)) for e, ms in triage.per_error),
    )


__all__ = ["READER_MARGIN", "SAME_ERROR_CHARS", "prefer_reader", "same_error", "speaks"]
