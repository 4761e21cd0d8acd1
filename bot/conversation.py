"""What a person says to errkb in a thread it already answered. Pure.

Slack's etiquette for bots is to answer once per thread: a mention after the
answer is a turn of conversation, not a new paste. :func:`classify_turn`
tells which turn it is:

- ``error``: the text holds an error the thread's answers did not cover (by
  the extractor's templates): it is answered like any paste;
- ``thanks``: only words of acknowledgement (the locales' lexicons, all of
  them: :mod:`bot.i18n.lexicon`), filler and punctuation: a reaction;
- ``bare``: nothing at all once mentions and emoji are gone: a reaction;
- ``question``: anything else (a follow-up question, the same error pasted
  again): a short pointer to the existing answer, never the answer again.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from functools import cache
from typing import Literal

from bot.i18n.lexicon import Lexicon, every_lexicon
from bot.match.extract import extract

Turn = Literal["error", "thanks", "bare", "question"]

#: The reaction each acknowledged turn gets (Slack emoji names).
REACTIONS: dict[Turn, str] = {"thanks": "+1", "bare": "eyes"}

_MENTION = re.compile(r"<[@!#][^>]*>")  # mentions of people, channels, groups
_EMOJI = re.compile(r":([a-z0-9_+'-]+):")
_ASKS = frozenset("?？")


def classify_turn(text: str, *, answered: Collection[str], words: Lexicon | None = None) -> Turn:
    """Which turn ``text`` is, in a thread whose answers covered the ``answered`` templates."""
    text = _MENTION.sub(" ", text)
    errors = extract(text).errors
    if any(e.template not in answered for e in errors):
        return "error"
    if errors:
        return "question"  # the answered error again: point at its answer
    return _acknowledgement(text, words or every_lexicon())


def _acknowledgement(text: str, words: Lexicon) -> Turn:
    said = unicodedata.normalize("NFKC", text).lower()
    thanked = False

    def emoji(found: re.Match[str]) -> str:
        nonlocal thanked
        thanked = thanked or found.group(1) in words.emoji
        return " "

    said = _EMOJI.sub(emoji, said)
    if not _meaningful(said):
        return "thanks" if thanked else "bare"
    for phrase, is_thanks in _phrases(words):
        pattern = _pattern(phrase)
        said, hits = pattern.subn(" ", said)
        thanked = thanked or (is_thanks and hits > 0)
    if _meaningful(said):
        return "question"
    return "thanks" if thanked else "bare"


def _meaningful(text: str) -> bool:
    """Anything left but spaces, punctuation and symbols (a question mark is meaningful)."""
    return any(c in _ASKS or unicodedata.category(c)[0] not in "PSZC" for c in text)


@cache
def _phrases(words: Lexicon) -> tuple[tuple[str, bool], ...]:
    """Longest first, so "thank you" goes before "you"."""
    found = [(w, True) for w in words.thanks] + [(w, False) for w in words.filler - words.thanks]
    return tuple(sorted(found, key=lambda p: (-len(p[0]), p[0])))


@cache
def _pattern(phrase: str) -> re.Pattern[str]:
    """A Latin phrase matches whole words; a CJK one anywhere (Chinese has no spaces)."""
    if phrase.isascii():
        return re.compile(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])")
    return re.compile(re.escape(phrase))


__all__ = ["REACTIONS", "Turn", "classify_turn"]
