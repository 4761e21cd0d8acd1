"""What a record regex says: its alternatives, their literal parts, their risk.

Record regexes are mostly ``.*``-joined literals in a top-level alternation.
A hit is only as strong as the literal text of the alternative that fired:
``CUDA out of memory`` says much more than ``6.4``. This module splits a
pattern into top-level alternatives and measures each one's literal words,
and flags patterns that could backtrack catastrophically in Python ``re``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from bot.match.normalise import tokens

_CLASS_ESCAPES = set("dDwWsSbBAZzG")
_OPTIONAL = ("*", "?")


@dataclass(frozen=True, slots=True)
class Alternative:
    pattern: str
    literal: str  # literal text, gaps as spaces
    literal_chars: int  # alphanumeric literal characters
    gaps: int  # unbounded gaps (.*, .+, \s*, [^x]*)

    @property
    def words(self) -> frozenset[str]:
        """The words of the literal text (made when asked: an index keeps many alternatives)."""
        return frozenset(tokens(self.literal))


_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")


#: What :func:`_structure` steps over at once: an escape, a character class (a ``]`` right
#: after the ``[`` is a literal; an escape inside is stepped over; to the end if unclosed),
#: or else one character; a ``(``, ``)`` or ``|`` is captured.
_STRUCTURE = re.compile(r"\\[\s\S]?|\[\]?(?:\\[\s\S]?|[^\]\\])*\]?|([()|])")


def _structure(body: str) -> Iterator[tuple[int, str, int]]:
    """``(index, char, depth)`` of every ``(``, ``)`` and ``|`` that is neither escaped nor
    inside a character class; ``depth`` is the group nesting after the character."""
    depth = 0
    for found in _STRUCTURE.finditer(body):
        ch = found.group(1)
        if ch is not None:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            yield found.start(), ch, depth


def split_alternatives(pattern: str) -> list[str]:
    """Top-level ``|`` branches, after unwrapping one group around the whole pattern."""
    body = _FLAGS.sub("", pattern)
    for _ in range(3):
        inner = _unwrap(body)
        if inner is None:
            break
        body = inner
    parts = []
    start = 0
    for i, ch, depth in _structure(body):
        if ch == "|" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [p for p in parts if p.strip()] or [pattern]


def non_capturing(pattern: str) -> str:
    """``pattern`` with its capturing groups made non-capturing: same matches, and RE2
    can answer "does it match?" from its DFA alone."""
    out = []
    last = 0
    for i, ch, _ in _structure(pattern):
        if ch == "(" and pattern[i + 1 : i + 2] != "?":
            out.append(pattern[last : i + 1])
            out.append("?:")
            last = i + 1
    out.append(pattern[last:])
    return "".join(out)


def _unwrap(body: str) -> str | None:
    """``(a|b)`` or ``(?:a|b)`` → ``a|b`` when the group spans the whole pattern."""
    if body.startswith("(?:"):
        prefix = "(?:"
    elif body.startswith("(") and not body.startswith("(?"):
        prefix = "("
    else:
        return None
    if not body.endswith(")") or _group_end(body, 0) != len(body) - 1:
        return None
    return body[len(prefix) : -1]


#: The steps of :func:`analyse`: an escape, a run of plain characters, or one character.
_ANALYSE_STEP = re.compile(r"\\[\s\S]|[^\\\[*+?{.()|^$]+|[\s\S]")
_SPACES = re.compile(r"\s+")


#: A plain alternative (most are): characters, escaped punctuation, ``.``, ``.*`` and ``.+``,
#: whose unescaped ``*`` and ``+`` follow a ``.``; read with a few regex passes.
_PLAIN = re.compile(r"(?:[^\\\[*+?{.()|^$]|\\[ -/:-@\[-`{-~]|\.[*+]?)*")
_UNESCAPE = re.compile(r"\\(.)")
_UNESCAPE_GAPS = re.compile(r"\\(.)|[*+]")  # a gap's "*" or "+" goes, its "." stays
_PLAIN_RUN = re.compile(r"(?:[^\\.*+]|\\.)+")  # what lies between the gaps


def analyse(pattern: str) -> Alternative:
    """Literal text, literal size and gap count of one alternative."""
    if _PLAIN.fullmatch(pattern) is not None:
        if "\\\\" in pattern or "\\*" in pattern or "\\+" in pattern:
            literal = _UNESCAPE_GAPS.sub(r"\1", pattern)
        else:  # every backslash escapes a character, every "*" and "+" ends a gap
            literal = pattern.replace("\\", "").replace("*", "").replace("+", "")
        literal = literal.replace(".", " ")
        return _alternative(pattern, literal, pattern.count(".*") + pattern.count(".+"))
    return _analyse_steps(pattern)


def _analyse_steps(pattern: str) -> Alternative:
    """:func:`analyse` of any pattern, step by step."""
    out: list[str] = []  # runs of literal text; a quantifier acts on the last character
    gaps = 0
    i = 0
    end = len(pattern)
    step = _ANALYSE_STEP.match
    while i < end:
        token = step(pattern, i).group()  # type: ignore[union-attr]  # every character is one
        ch = token[0]
        if ch == "\\" and len(token) == 2:
            out.append(" " if token[1] in _CLASS_ESCAPES else token[1])
            i += 2
        elif ch == "[":
            close = pattern.find("]", i + 2)
            close = end - 1 if close < 0 else close
            out.append(" ")
            i = close + 1
        elif ch == "*" or ch == "+":
            last = out[-1][-1] if out else ""
            gaps += last == " " or last == "."
            if ch == "*" and out:
                out[-1] = out[-1][:-1] + " "
            i += 1
        elif ch == "?":
            if out and pattern[i - 1 : i] not in "(*+?":
                out[-1] = out[-1][:-1] + " "
            i += 1
        elif ch == "{":
            close = pattern.find("}", i)
            close = i if close < 0 else close
            if pattern[i + 1 : i + 2] == "0" and out:
                out[-1] = out[-1][:-1] + " "
            i = close + 1
        elif ch == ".":
            out.append(".")
            i += 1
        elif ch in "()|^$":
            out.append(" ")
            i += 3 if pattern[i : i + 3] in ("(?:", "(?i") else 1
        else:  # plain characters (or a backslash ending the pattern)
            out.append(token)
            i += len(token)
    return _alternative(pattern, "".join(out).replace(".", " "), gaps)


def _alternative(pattern: str, literal: str, gaps: int) -> Alternative:
    literal = _SPACES.sub(" ", literal).strip()
    chars = sum(map(str.isalnum, literal))
    return Alternative(pattern, literal, chars, gaps)


#: The steps of :func:`fragments`: an escape, a run of plain characters, or one character.
_FRAGMENT_STEP = re.compile(r"\\[\s\S]|[^\\\[*?{+.^$|)(]+|[\s\S]")


def fragments(pattern: str) -> list[str]:
    """Literal runs every match of ``pattern`` must contain (case-insensitively).

    Groups without alternation are read through; a group with ``|`` or an
    optional quantifier is a gap. Used to pick a prefilter key.
    """
    if _PLAIN.fullmatch(pattern) is None:
        return _fragment_steps(pattern)
    out = []
    for run in _PLAIN_RUN.findall(pattern):  # the runs between the gaps, unescaped
        run = _UNESCAPE.sub(r"\1", run) if "\\\\" in run else run.replace("\\", "")
        if run.strip():
            out.append(run)
    return out


def _fragment_steps(pattern: str) -> list[str]:
    """:func:`fragments` of any pattern, step by step."""
    out: list[str] = []
    current = ""
    body = _FLAGS.sub("", pattern)
    i = 0
    end = len(body)
    step = _FRAGMENT_STEP.match
    while i < end:
        token = step(body, i).group()  # type: ignore[union-attr]  # every character is one
        ch = token[0]
        if ch == "\\" and len(token) == 2:
            nxt = token[1]
            if nxt in _CLASS_ESCAPES or nxt.isdigit() or nxt in "xupPNQEkntrfva":
                if current:
                    out.append(current)
                    current = ""
            else:
                current += nxt
            i += 2
        elif ch == "[":
            if current:
                out.append(current)
                current = ""
            close = body.find("]", i + 2)
            i = end if close < 0 else close + 1
        elif ch == "*" or ch == "?":
            if current[:-1]:
                out.append(current[:-1])
            current = ""
            i += 1
        elif ch == "{":
            if body[i + 1 : i + 2] == "0":
                current = current[:-1]
            if current:
                out.append(current)
                current = ""
            close = body.find("}", i)
            i = i + 1 if close < 0 else close + 1
        elif ch in "+.^$|)":
            if current:
                out.append(current)
                current = ""
            i += 1
        elif ch == "(":
            if current:
                out.append(current)
                current = ""
            close = _group_end(body, i)
            inner = body[i + 1 : close].removeprefix("?:")
            quantified = body[close + 1 : close + 2] in ("?", "*", "{")
            if not quantified and "|" not in inner and not inner.startswith("?"):
                out.extend(fragments(inner))
            i = close + 1
        else:  # plain characters (or a backslash ending the pattern)
            current += token
            i += len(token)
    if current:
        out.append(current)
    return [f for f in out if f.strip()]


def _group_end(body: str, start: int) -> int:
    """Index of the ``)`` closing the group opened at ``start`` (the last index if none)."""
    for i, ch, depth in _structure(body[start:]):
        if ch == ")" and depth == 0:
            return start + i
    return len(body) - 1


def prefilter_keys(pattern: str, depth: int = 0) -> list[str] | None:
    """Literals one of which every match of ``pattern`` contains (lower-cased).

    Usually one key: the longest required literal. A branch made only of
    groups with alternation (``(uk|britain).{0,40}(call 999|…)``) gets the
    keys of its first such group's branches. ``None``: no key, always check.
    """
    found = [f.strip().lower() for f in fragments(pattern)]
    found = [f for f in found if f]
    if found:
        return [max(found, key=lambda f: (len(f), f))]
    start = pattern.find("(")
    if depth > 3 or start < 0:
        return None
    end = _group_end(pattern, start)
    if pattern[end + 1 : end + 2] in ("?", "*", "{"):
        return None
    keys: list[str] = []
    for branch in split_alternatives(pattern[start : end + 1]):
        branch_keys = prefilter_keys(branch, depth + 1)
        if not branch_keys:
            return None
        keys.extend(branch_keys)
    return sorted(set(keys)) or None


_NESTED = re.compile(r"\((?:[^()\\]|\\.)*[*+](?:[^()\\]|\\.)*\)[*+{]")


def risky_regex(pattern: str) -> str | None:
    """Why ``pattern`` could backtrack catastrophically in Python ``re``, or ``None``.

    errkb itself matches with RE2 (linear time); this flags, at import, the
    patterns that would hang a backtracking engine on a crafted line (where the
    records go to tools that match with one).
    """
    from bot.match.regexcheck import regex_problem

    problem = regex_problem(pattern)
    if problem is not None:
        return problem
    if _NESTED.search(pattern):
        return "nested quantifier such as (a+)+: exponential backtracking"
    worst = max(analyse(alt).gaps for alt in split_alternatives(pattern))
    if worst >= 3:
        return f"{worst} unbounded gaps (.*) in one branch: polynomial backtracking on long lines"
    return None


def required_literals(pattern: str) -> tuple[list[str], int] | None:
    """Prefilter keys of one alternative and how many of them a line must contain.

    Every literal run of three or more letters or digits that each match contains
    (all of them: an AND filter, so ``out.*of.*memory`` is confirmed only on lines
    holding all three words); otherwise the OR keys of :func:`prefilter_keys`, one
    of which suffices. ``None``: no key, so the alternative is always checked.
    """
    found = {f.strip().lower() for f in fragments(pattern)}
    strong = sorted(f for f in found if sum(map(str.isalnum, f)) >= 3)
    if strong:
        return strong, len(strong)
    keys = prefilter_keys(pattern)
    return (keys, 1) if keys else None
