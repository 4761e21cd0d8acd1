"""Suggestions for a new record made from a pasted error: its line, a regex, a domain. Pure.

:func:`suggest_regex` writes the line as a literal with what varies between
occurrences generalised (numbers, hex, paths, URLs, addresses, quoted names),
so the record matches the next paste of the same error, not only this one;
the result always compiles with RE2 under errkb's options and matches the line
it came from. :func:`suggest_domain` takes the domain of the closest records,
else the ecosystem the paste's words place it in, else its language.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from bot.match.evidence import DOMAIN_HINTS
from bot.match.extract import extract

#: What varies between two pastes of one error, and the pattern that stands for it (first match
#: wins).
_VARIABLE: tuple[tuple[str, str], ...] = (
    (
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
        r"[0-9a-f-]+",
    ),
    (r"\b[a-z][a-z0-9+.-]{1,15}://[^\s\"'<>()]+", r"\S+"),
    (r"\b0x[0-9a-fA-F]+\b", r"0x[0-9a-f]+"),
    (r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,}\b", r"[0-9a-f]+"),
    (r"(?:\b[A-Za-z]:)?(?:[\\/][\w.@+~-]+){2,}[\\/]?", r"\S+"),
    (r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b", r"[0-9.:]+"),
    (r"'[^'\n]{1,200}'", r"'[^']*'"),
    (r'"[^"\n]{1,200}"', r'"[^"]*"'),
    (r"`[^`\n]{1,200}`", r"`[^`]*`"),
    (r"\b\d+(?:\.\d+)+\b", r"[0-9.]+"),
    (r"(?<![\w.])\d+(?!\w)", r"\d+"),  # not inside a name: E0425, utf8, Int64 stay
    (r"[ \t]{2,}|\t", r"\s+"),
)
#: ASCII classes, as RE2's: a Unicode digit or space stays literal.
_TOKENS = re.compile("|".join(f"({pattern})" for pattern, _ in _VARIABLE), re.ASCII)
_SPECIAL = re.compile(r"([\\.^$*+?()\[\]{}|])")
#: How much of a long line the regex keeps (it matches anywhere in a line: a prefix is enough).
MAX_SOURCE_CHARS = 240
#: Pastes name their language in the traceback's shape; these are errkb's domains for them.
_KIND_DOMAINS = {
    "python": "python",
    "java": "java",
    "go": "go",
    "rust": "rust",
    "node": "node",
    "typescript": "typescript",
}
_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*")


def exception_line(paste: str) -> str:
    """The line a record for ``paste`` is about: its exception line (else its first error line,
    else its first line), cleaned as the matcher sees it."""
    extraction = extract(paste)
    errors = extraction.errors
    chosen = next((e for e in errors if e.role == "exception"), errors[0] if errors else None)
    if chosen is not None:
        return chosen.text
    return next(
        (line.text for line in extraction.lines if line.text.strip()),
        paste.strip()[:MAX_SOURCE_CHARS],
    )


def _cut(line: str) -> str:
    """At most :data:`MAX_SOURCE_CHARS`, cut between words (a regex of a prefix still matches)."""
    if len(line) <= MAX_SOURCE_CHARS:
        return line
    head = line[:MAX_SOURCE_CHARS]
    space = head.rfind(" ")
    return head[:space] if space > MAX_SOURCE_CHARS // 2 else head


def suggest_regex(line: str) -> str:
    """A regex for ``line``: its literal text escaped, what varies generalised, trimmed of
    generalised parts at either end (they add nothing but cost)."""
    source = _cut(line.strip())
    parts: list[tuple[str, bool]] = []  # (pattern, literal?)
    at = 0
    for found in _TOKENS.finditer(source):
        if found.start() > at:
            parts.append((_SPECIAL.sub(r"\\\1", source[at : found.start()]), True))
        group = next(i for i, text in enumerate(found.groups()) if text is not None)
        parts.append((_VARIABLE[group][1], False))
        at = found.end()
    if at < len(source):
        parts.append((_SPECIAL.sub(r"\\\1", source[at:]), True))
    while parts and not parts[-1][1]:
        parts.pop()
    while parts and not parts[0][1]:
        parts.pop(0)
    return "".join(pattern for pattern, _ in parts).strip() or _SPECIAL.sub(r"\\\1", source)


def suggest_domain(paste: str, neighbours: Sequence[tuple[str, float]]) -> str | None:
    """The domain of a new record for ``paste``: the one its closest records (``(domain,
    score)``, best first) weigh most, else the one whose tools its words name most, else its
    language; None when nothing says."""
    votes: dict[str, float] = {}
    for domain, score in neighbours:
        if domain and score > 0:
            votes[domain.lower()] = votes.get(domain.lower(), 0.0) + score
    if votes:
        return max(sorted(votes), key=lambda d: votes[d])
    words = set(_WORD.findall(paste.lower()))
    hinted = Counter(
        {domain: len(words & hints) for domain, hints in DOMAIN_HINTS.items() if words & hints}
    )
    if hinted:
        return max(sorted(hinted), key=lambda d: hinted[d])
    errors = extract(paste).errors
    return _KIND_DOMAINS.get(errors[0].kind) if errors else None


__all__ = ["MAX_SOURCE_CHARS", "exception_line", "suggest_domain", "suggest_regex"]
