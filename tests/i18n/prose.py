"""Finding English prose in text that should read in another language (test helper)."""

from __future__ import annotations

import re

#: English function words that do not occur as code in the knowledge base's commands.
STOPWORDS = frozenset(
    "the a an of to without when then than only instead must should before after your "
    "this that these those it its any every each which still also more less same other "
    "whose where does doesn't isn't cannot can't will would been being has have here there "
    "why how what works fails first".split()
)
_CODE = re.compile(r"`[^`]*`|“[^”]*”|'[^']*'|\"[^\"]*\"|<[^>]*>|\{[^}]*\}|https?://\S+")
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def english_words(text: str) -> list[str]:
    """English function words outside code: backticks, quotes (quoted error messages),
    placeholders, URLs and tokens with code characters (``--flag``, ``a.b``, ``x=1``)
    do not count."""
    plain = _CODE.sub(" ", text)
    words = []
    for token in plain.split():
        if re.search(r"[=._/\\$@\-()\[\]:0-9]", token.strip(",;")):
            continue
        words += [w.lower() for w in _WORD.findall(token) if w.lower() in STOPWORDS]
    return words
