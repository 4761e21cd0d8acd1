"""The small word lists errkb reads conversation with, one per locale, kept as data.

``lexicons/<locale>.json`` holds what a person says to acknowledge an answer
(``thanks``: "thanks", "that fixed it", "谢谢", "解决了"), the words that may
stand around it without changing that (``filler``: "so much", "非常"), and
the emoji that say it (``emoji``: ``pray``, ``+1``). Adding a locale's
lexicon teaches every surface its thanks; nothing in code lists words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

KINDS = ("thanks", "filler", "emoji")


@dataclass(frozen=True)
class Lexicon:
    thanks: frozenset[str]
    filler: frozenset[str]
    emoji: frozenset[str]

    def __or__(self, other: Lexicon) -> Lexicon:
        return Lexicon(
            self.thanks | other.thanks, self.filler | other.filler, self.emoji | other.emoji
        )


@cache
def lexicon_locales() -> tuple[str, ...]:
    folder = resources.files("bot.i18n") / "lexicons"
    return tuple(
        sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))
    )


@cache
def lexicon(locale: str) -> Lexicon:
    """``locale``'s lexicon (lower-cased); an unknown key or a non-list value raises."""
    path = resources.files("bot.i18n") / "lexicons" / f"{locale}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    unknown = set(data) - set(KINDS)
    if unknown or not all(isinstance(data.get(k, []), list) for k in KINDS):
        raise ValueError(f"lexicon {locale}: expected lists under {KINDS}, got {sorted(data)}")
    words = {
        k: frozenset(str(w).strip().lower() for w in data.get(k, []) if str(w).strip())
        for k in KINDS
    }
    return Lexicon(**words)


@cache
def every_lexicon() -> Lexicon:
    """All locales' lexicons as one: a Chinese reader may write "thanks", and the reverse."""
    merged = Lexicon(frozenset(), frozenset(), frozenset())
    for locale in lexicon_locales():
        merged = merged | lexicon(locale)
    return merged


__all__ = ["Lexicon", "every_lexicon", "lexicon", "lexicon_locales"]
