"""What to do with a paste, once triaged. Pure: the same for Slack, the command line and agents.

:func:`read_paste` bounds what is read, where the paste's errors are; :func:`decide` chooses between
answering, showing plausible candidates, saying nothing is known or staying
silent (volunteering unasked needs the matcher's stricter operating point, or
the channel's own threshold, and a channel that is on);
:func:`reply_args` is what a stored reply keeps so it can be rendered again,
voted on, paged through, expanded and corrected later.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from bot.channels import ChannelSettings
from bot.fit.order import PasteFacts
from bot.match.excerpt import Excerpt, excerpt
from bot.match.features import OFFER
from bot.match.rank import Match, Triage

Outcome = Literal["answer", "candidates", "nothing", "no_error", "silent"]
CANDIDATES = 3
#: A candidate below this score is no candidate: "closest" is shown only when one is plausible.
CANDIDATE_FLOOR = OFFER
#: Other records offered when someone says "Not this error".
ALTERNATIVES = 5
SAMPLE_CHARS = 1_000
#: Error templates a reply keeps as answered (a later mention with none new is conversation).
SEEN = 20
_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")


def read_paste(text: str, limit: int) -> Excerpt:
    """What errkb reads of a paste, on every surface: mentions removed, and beyond
    ``limit`` characters its head, its tail and its error lines with their context
    (:func:`bot.match.excerpt.excerpt`), line numbers still the paste's own."""
    return excerpt(_MENTION.sub(" ", text), limit)


def skipped_args(read: Excerpt) -> dict[str, int] | None:
    """What a stored reply keeps of a paste's reading: its size and the lines read, when
    lines were skipped."""
    skipped = read.skipped
    return (
        None
        if skipped is None
        else {"chars": skipped.chars, "lines": skipped.lines, "read": skipped.read}
    )


def decide(triage: Triage, *, asked: bool, channel: ChannelSettings | None = None) -> Outcome:
    """Answer when confident enough for the occasion and the channel (someone asked, or
    errkb volunteers: the stricter point, never in a quiet or off channel); when asked
    anyway, show plausible candidates or say nothing is known."""
    here = channel or ChannelSettings("")
    if (asked or here.volunteers()) and here.answered(triage, asked=asked):
        return "answer"
    if not asked:
        return "silent"
    if not triage.errors:
        return "no_error"
    return "candidates" if offered(triage) else "nothing"


def offered(triage: Triage) -> list[Match]:
    """The matches worth a look, on every surface: none when no error was found in the
    paste (unless one answers it anyway), otherwise those at or above the calibrated
    candidate floor (:data:`~bot.match.features.OFFER`); an answer is always above it."""
    if not triage.errors and not triage.answered:
        return []
    return [m for m in triage.matches if m.score >= CANDIDATE_FLOOR]


def _answering(triage: Triage, record_id: str) -> Match | None:
    return next((m for m in triage.matches if m.record_id == record_id), None) or next(
        (m for _, ms in triage.per_error for m in ms if m.record_id == record_id), None
    )


def reply_args(
    outcome: Outcome,
    triage: Triage,
    read: Excerpt,
    add: dict[str, Any] | None,
    *,
    asked: bool = True,
    channel: ChannelSettings | None = None,
) -> dict[str, Any]:
    """What a reply keeps: what was skipped of the paste, the records, and per record the
    person's line it answers, the error's template and text (for corrections) and the
    other records that error could be; for an answer, what the paste shows (its settings,
    versions, system: :class:`~bot.fit.order.PasteFacts`), which orders each record's
    fixes for it whenever the reply is rendered again."""
    args: dict[str, Any] = {
        "errors": [e.text[:300] for e in triage.errors[:5]],
        "seen": [e.template for e in triage.errors[:SEEN]],
    }
    if read.cut:
        args["skipped"] = skipped_args(read)
    if outcome == "answer":
        ids = [
            m.record_id
            for m in (channel or ChannelSettings("")).answer_matches(triage, asked=asked)
        ]
        args["records"] = ids
        errors = {e.index: e for e in triage.errors}
        per_error = dict(triage.per_error)
        lines = {}
        templates = {}
        samples = {}
        others = {}
        variants = {}
        for rid in ids:
            match = _answering(triage, rid)
            if match is None:
                continue
            lines[rid] = match.line[:SAMPLE_CHARS]
            error = errors.get(match.error_index)
            if error is not None:
                templates[rid], samples[rid] = error.template, error.text[:SAMPLE_CHARS]
            pool = per_error.get(match.error_index) or triage.matches
            others[rid] = [m.record_id for m in pool if m.record_id != rid][:ALTERNATIVES]
            found = tuple(getattr(match, "variants", ()) or ())
            if found:
                variants[rid] = list(found)
        args.update(
            lines=lines,
            templates=templates,
            samples=samples,
            alternatives=others,
            variants=variants,
            view={"page": 0, "expanded": False},
            paste=PasteFacts.of(read.text).dump(),
        )
    elif outcome == "candidates":
        args["candidates"] = [[m.record_id, m.score] for m in offered(triage)[:CANDIDATES]]
    if add is not None:
        args["add"] = add
    return args


__all__ = [
    "CANDIDATE_FLOOR",
    "Outcome",
    "decide",
    "offered",
    "read_paste",
    "reply_args",
    "skipped_args",
]
