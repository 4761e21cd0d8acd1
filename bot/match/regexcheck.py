"""Whether errkb can match a record regex: RE2 must compile it, with the index's options.

errkb matches every record regex with RE2, in time linear in the line, so no
paste can make a regex run away. RE2 leaves out what needs backtracking
(lookarounds, backreferences, atomic groups, possessive quantifiers): a
record using them is refused at import and in the add-record modal, with the
reason, by :func:`regex_problem` (the :class:`~bot.records.Record` model's
regex validator calls it, so every path that makes a record is covered).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import re2

#: RE2's memory budget for one compiled record regex (the index uses the same).
MAX_MEM = 8 << 20
WHY = "errkb matches with RE2, in linear time"

#: (what in the pattern, which construct it is): what RE2 refuses, for a message naming it.
_UNSUPPORTED = (
    (re.compile(r"\(\?<?[=!]"), None),  # told apart below: lookahead or lookbehind
    (re.compile(r"\(\?P=\w+\)|\\k<\w+>|\\[1-9]"), "backreference"),
    (re.compile(r"\(\?>"), "atomic"),
    (re.compile(r"(?<!\\)[*+?}]\+"), "possessive"),
    (re.compile(r"\(\?\("), "conditional"),
    (re.compile(r"\\Z"), "end_z"),
)
#: Each construct in English, for logs and the command line (the catalogs say it in every locale).
CONSTRUCTS = {
    "lookahead": "a lookahead",
    "lookbehind": "a lookbehind",
    "backreference": "a backreference",
    "atomic": "an atomic group",
    "possessive": "a possessive quantifier",
    "conditional": "a conditional group",
    "end_z": r"the end-of-text anchor (RE2 writes it \z)",
}


#: The kinds of :class:`RegexIssue`: pydantic error types of a record's ``regex``.
KINDS = ("regex_unsupported", "regex_too_large", "regex_invalid")


@dataclass(frozen=True)
class RegexIssue:
    """Why errkb cannot match with a regex: ``kind`` (``regex_unsupported``, ``regex_too_large``,
    ``regex_invalid``) and its details, so each locale can say it; ``str()`` says it in English."""

    kind: str
    construct: str = ""  # a key of CONSTRUCTS
    snippet: str = ""  # where the pattern uses it
    error: str = ""  # RE2's own words, for an invalid pattern

    @property
    def params(self) -> dict[str, str]:
        found = {
            "construct": self.construct,
            "snippet": self.snippet,
            "error": self.error,
            "budget": str(MAX_MEM >> 20),
        }
        return {k: v for k, v in found.items() if v}

    def __str__(self) -> str:
        if self.kind == "regex_unsupported":
            return f"{CONSTRUCTS[self.construct]} {self.snippet} is not supported: {WHY}"
        if self.kind == "regex_too_large":
            return f"too large to compile within errkb's {MAX_MEM >> 20} MiB regex budget"
        return f"expected a valid regular expression: {self.error}"


def re2_options(max_mem: int = MAX_MEM) -> re2.Options:
    """RE2 options of every record regex: case-insensitive, within ``max_mem`` bytes."""
    options = re2.Options()
    options.case_sensitive = False
    options.max_mem = max_mem
    options.log_errors = False
    return options


def _unsupported(pattern: str) -> tuple[str, str] | None:
    """The first construct of ``pattern`` RE2 does not support, and where it is."""
    body = re.sub(r"\\\\", "", pattern)  # an escaped backslash starts no construct
    for finder, what in _UNSUPPORTED:
        found = finder.search(body)
        if found is None:
            continue
        if what is None:
            what = "lookbehind" if found.group().startswith("(?<") else "lookahead"
            return what, found.group() + "...)"
        return what, found.group()
    return None


#: A pattern made only of these RE2 compiles, within the memory budget: printable ASCII
#: literals and escapes, ``.``, ``\d``-style classes, simple bracket classes, groups,
#: ``|``, ``^``, ``$`` and single quantifiers (counted ones on a single character only).
#: Most record regexes are: they are told accepted without compiling them (compiling each
#: would be the largest cost of a first build); any other pattern is compiled.
_ONE = r"(?:[ !-#%-',\-/->@-Z_-z~]|\\[ -/:-@\[-`{-~]|\\[dDsSwW]|\.)"
_CLASS = r"\[\^?(?:[a-zA-Z0-9]-[a-zA-Z0-9]|\\[ -/:-@\[-`{-~]|\\[dDsSwW]|[ !-,./-Z_`a-z|~])+\]"
_REPEAT = r"(?:[*+?]\??)"
_PLAIN = re.compile(
    rf"(?:{_ONE}(?:{_REPEAT}|\{{[0-9]{{1,4}}(?:,[0-9]{{0,4}})?\}})?"
    rf"|{_CLASS}{_REPEAT}?|\((?:\?:)?|\){_REPEAT}?|[|^$])*"
)
_COUNTED = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}")
_CLASS_RANGES = re.compile(r"\\.|\[\^?|([a-zA-Z0-9])-([a-zA-Z0-9])")
_NOT_PAREN = re.compile(r"\\.|\[(?:\\.|[^\]\\])*\]|[^()]")
_PLAIN_LENGTH = 2000  # x 14 instructions a character at most (\W), far within the budget
_PLAIN_REPEATS = 2000  # counted repeats of one character (x 27 instructions at most)
_PLAIN_DEPTH = 100


def _plainly_accepted(pattern: str) -> bool:
    """True when RE2 surely compiles ``pattern`` (see :data:`_PLAIN`); False: not known."""
    pattern = pattern.removeprefix("(?i)")  # case-insensitive throughout: as the options say
    if len(pattern) > _PLAIN_LENGTH or _PLAIN.fullmatch(pattern) is None:
        return False
    if "{" in pattern:
        repeats = 0
        for low, comma, high in _COUNTED.findall(pattern):
            top = int(high) if high else int(low)
            if int(low) > 1000 or top > 1000 or (comma and high and int(high) < int(low)):
                return False
            repeats += top
        if repeats > _PLAIN_REPEATS:
            return False
    if "-" in pattern and "[" in pattern:  # a class range must go upwards
        for found in _CLASS_RANGES.finditer(pattern):
            if found.group(1) is not None and found.group(1) > found.group(2):
                return False
    parens = _NOT_PAREN.sub("", pattern)
    for _ in range(_PLAIN_DEPTH):
        if not parens:
            return True
        shorter = parens.replace("()", "")
        if shorter == parens:
            return False
        parens = shorter
    return not parens


def re2_accepts(pattern: str) -> bool:
    """Whether RE2 compiles ``pattern`` with :func:`re2_options` (compiled only when the
    answer is not plain from the pattern's text)."""
    return _plainly_accepted(pattern) or regex_issue(pattern) is None


def regex_issue(pattern: str) -> RegexIssue | None:
    """Why errkb cannot match with ``pattern``; None when it can."""
    if _plainly_accepted(pattern):
        return None
    try:
        re2.compile(pattern, re2_options())
    except Exception as exc:  # noqa: BLE001 - RE2 raises its own error type, or a plain one
        found = _unsupported(pattern)
        if found is not None:
            return RegexIssue("regex_unsupported", construct=found[0], snippet=found[1])
        raw = exc.args[0] if exc.args else ""
        message = (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)).strip()
        message = message or type(exc).__name__
        if "too large" in message or "too big" in message:
            return RegexIssue("regex_too_large")
        return RegexIssue("regex_invalid", error=message)
    return None


def regex_problem(pattern: str) -> str | None:
    """Why errkb cannot match with ``pattern``, in one English sentence; None when it can."""
    issue = regex_issue(pattern)
    return None if issue is None else str(issue)


__all__ = [
    "CONSTRUCTS",
    "KINDS",
    "MAX_MEM",
    "RegexIssue",
    "re2_accepts",
    "re2_options",
    "regex_issue",
    "regex_problem",
]
