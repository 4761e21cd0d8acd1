"""Error-line templates, version hints and tokens: pure text functions.

``template`` masks the parts of an error line that vary between occurrences
(numbers, hex addresses, paths, URLs, UUIDs, quoted names) so that the same
error from two machines gets the same template; it is idempotent.
``version_hints`` keeps what masking throws away: ``vllm==0.4.2`` → ``("vllm",
"0.4.2")``. ``tokens`` is what the similarity index and the ranker compare.
"""

from __future__ import annotations

import re

_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    (re.compile(r"\b[a-z][a-z0-9+.-]{1,15}://[^\s\"'<>()]{1,500}"), "<url>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,}\b"), "<hex>"),
    (re.compile(r"(?:\b[A-Za-z]:)?(?:[\\/][\w.@+~-]{1,200}){2,}[\\/]?"), "<path>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"'[^'\n<>]{1,200}'|\"[^\"\n<>]{1,200}\"|`[^`\n<>]{1,200}`"), "<q>"),
    (re.compile(r"\b\d+(?:\.\d+)+\b"), "<ver>"),
    (re.compile(r"\d+"), "<n>"),
)  # fmt: skip
_SPACE = re.compile(r"\s+")
_TEMPLATE_CAP = 2000


def template(line: str) -> str:
    """The line with its variable parts masked; ``template(template(x)) == template(x)``."""
    text = line[:_TEMPLATE_CAP]
    for pattern, mask in _MASKS:
        text = pattern.sub(mask, text)
    text = _SPACE.sub(" ", text).strip()
    # Masks can make new neighbours (``<n>.<n>``): fold them until stable.
    while True:
        folded = re.sub(r"<(?:n|ver)>(?:\.<(?:n|ver)>)+", "<ver>", text)
        folded = re.sub(r"<q>(?:<q>)+", "<q>", folded)
        if folded == text:
            return text
        text = folded


_VERSION = re.compile(
    r"(?i)\b([a-z][a-z0-9_-]{1,30}?)(?:[\s=@:v-]|==|>=|<=|~=|\s+version\s+){1,3}"
    r"(\d+(?:\.\d+){0,3})(?![\w.])"
)


def version_hints(text: str, *, limit: int = 20) -> list[tuple[str, str]]:
    """``(name, version)`` pairs seen in a paste: ``torch 2.3``, ``CUDA 12.1``, ``vllm==0.4.2``."""
    found: dict[tuple[str, str], None] = {}
    for match in _VERSION.finditer(text[:20000]):
        name, version = match.group(1).lower(), match.group(2)
        if "." in version or name in ("cuda", "python", "jdk", "java", "node", "go"):
            found[(name, version)] = None
            if len(found) >= limit:
                break
    return list(found)


_WORD = re.compile(r"[^\W_]+(?:[_'][^\W_]+)*", re.UNICODE)
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "of",
        "on",
        "or",
        "our",
        "so",
        "than",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "were",
        "when",
        "which",
        "while",
        "will",
        "with",
        "you",
        "your",
        "not",
    ]
)


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; CamelCase split too; CJK runs as character bigrams."""
    out: list[str] = []
    for word in _WORD.findall(text[:20000]):
        if not word.isascii():
            out.extend(_mixed_tokens(word))
            continue
        lower = word.lower()
        if lower.isdigit() or lower in _STOP or len(lower) < 2:
            continue
        out.append(lower)
        parts = _CAMEL.findall(word)
        if len(parts) > 1:
            out.extend(p.lower() for p in parts if len(p) > 2 and not p.isdigit())
    return out


def _mixed_tokens(word: str) -> list[str]:
    """CJK runs become bigrams; other parts of the word are tokenised as words."""
    out: list[str] = []
    rest: list[str] = []
    run = ""
    for ch in word + " ":
        if _is_cjk(ch):
            run += ch
            rest.append(" ")
            continue
        if run:
            out.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
            run = ""
        rest.append(ch)
    ascii_rest = "".join(rest)
    if ascii_rest.strip() and ascii_rest.strip() != word:
        out.extend(tokens(ascii_rest))
    elif ascii_rest.strip():
        lower = word.lower()
        if len(lower) > 1:
            out.append(lower)
    return out
