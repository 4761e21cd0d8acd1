"""A fix found in a thread: whether a message says the fix worked, and a reply as a workaround.
Pure.

What counts as "it worked" is data: the catalog key ``fix.worked.words`` in each
locale lists the phrases (``|``-separated), ``fix.worked.not`` the words that
turn one around when they come just before it ("not solved", "没解决"). Latin
phrases match whole words, case-insensitively; others (Chinese) anywhere. A
message that holds an error, or is long, is a new report, not a thank-you.

:func:`fix_workaround` turns the reply that held the fix into the add-record
form's first workaround: its code (a code block, else the first code span) is
the ``how``, the words around it the ``action``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from bot.i18n import available_locales, t
from bot.match.extract import extract

#: A message longer than this is a report of its own, not "that worked".
SAID_CHARS = 200
#: How far before a phrase a negation turns it around.
NEGATION_WINDOW = 12
ACTION_CHARS = 500
HOW_CHARS = 2_000
_BLOCK = re.compile(r"```(?:[a-zA-Z0-9_+-]*\n)?(.*?)```", re.DOTALL)
_SPAN = re.compile(r"`([^`\n]+)`")


def _phrases(locale: str, key: str) -> list[str]:
    return [p.strip().lower() for p in t(locale, key).split("|") if p.strip()]


@cache
def _lexicon(locales: tuple[str, ...]) -> tuple[tuple[re.Pattern[str], ...], tuple[str, ...]]:
    words = []
    negations = []
    for locale in locales:
        words.extend(_phrases(locale, "fix.worked.words"))
        negations.extend(_phrases(locale, "fix.worked.not"))
    patterns = tuple(
        re.compile(rf"(?<![\w]){re.escape(w)}(?![\w])" if w.isascii() else re.escape(w))
        for w in dict.fromkeys(words)
    )
    return patterns, tuple(dict.fromkeys(negations))


def says_it_worked(text: str, locales: Iterable[str] | None = None) -> bool:
    """Does ``text`` say the fix worked ("that worked, thanks", "好了，谢谢")?"""
    said = " ".join(text.split()).lower()
    if not said or len(said) > SAID_CHARS or extract(text).errors:
        return False
    patterns, negations = _lexicon(tuple(locales or available_locales()))
    for pattern in patterns:
        for found in pattern.finditer(said):
            before = said[max(0, found.start() - NEGATION_WINDOW) : found.start()]
            if not any(n in before for n in negations):
                return True
    return False


def fix_workaround(text: str) -> tuple[str, str]:
    """``(action, how)`` from the reply that held the fix: its code as ``how``, the rest as
    ``action``."""
    block = _BLOCK.search(text)
    span = None if block else _SPAN.search(text)
    how = (block.group(1) if block else span.group(1) if span else "").strip()
    rest = _BLOCK.sub(" ", text) if block else text
    action = " ".join(rest.split()) or how
    if len(action) > ACTION_CHARS:
        action = action[: ACTION_CHARS - 1].rstrip() + "…"
    return action, how[:HOW_CHARS]


__all__ = ["fix_workaround", "says_it_worked"]
