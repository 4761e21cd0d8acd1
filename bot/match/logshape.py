"""The shape of a log around its errors: what a line is besides its words.

The extractor (:mod:`bot.match.extract`) gives each line a role from the line
alone. Some roles can only be read from the whole paste, and this module reads
them, as plain functions over the paste's lines:

- a **repeated line prefix** that the log's writer put on every line (``| ``,
  BuildKit's ``#12 2.474 ``, Cloud Build's ``Step #2 - "build": ``, journald's
  ``host unit[pid]: ``): learnt from the paste itself, as the longest run of
  leading words most flush-left lines share once their numbers are masked, so a
  tool nobody listed is read as well as one somebody did (:func:`learn_prefix`);
- a **wrapper line**, one that only reports that something else failed (``FAILURE:
  Build failed with an exception``, ``make: *** [all] Error 1``, ``npm ERR! code 1``,
  ``Process completed with exit code 1``): when the paste shows anything more
  specific, the wrapper only wraps it (:func:`is_wrapper`);
- a **structured field**, a ``Key: value`` line of a report (``kubectl describe``'s
  ``Reason: OOMKilled``, ``Exit Code: 137``) whose value says what went wrong, and
  a report's heading (Spring's ``Description:``) whose next line does
  (:func:`field_role`, :data:`WHAT_HEADINGS`), with the advice after ``Action:``
  read as prose (:data:`ADVICE_HEADINGS`);
- a **retried failure**, an attempt that failed and is tried again (pip's
  ``Retrying (...) after connection broken by 'ProxyError(...)'``): what fails
  after it in the same log is its consequence (:func:`is_retry`);
- a **banner**, a notice about the environment a program prints before the traceback
  that ends it ("python version not supported", a deprecation): the traceback says
  what failed (:func:`is_banner`).

:func:`reshape` applies the last four to the extractor's rows.
"""

from __future__ import annotations

import re
from collections import Counter

import re2

from bot.match.re2util import matcher

#: How many leading words a learnt prefix may hold, and how long it may be.
PREFIX_WORDS = 6
PREFIX_CHARS = 60
#: The share of a paste's non-empty lines that must carry a prefix for it to be the
#: log's own, and the fewest lines that make a log.
PREFIX_SHARE = 0.6
PREFIX_LINES = 3
#: A long log's prefix is learnt from this many lines at its start and as many at its end.
PREFIX_SAMPLE = 60

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_PIECES = re.compile(r"(0| )")
# the words of a line's start, each with the spaces after it
_WORD = re.compile(r"\S+\s+")
_LETTERS = re.compile(r"[^\W\d_]+")
# a prefix is punctuation or numbers around words ("#0 0.0 ", "svc-0  | ", "host sshd[0]: "),
# never words alone ("Error: ", "at ", "File ")
_PREFIX_MARK = re.compile(r"[0|#\[\]>\u2500-\u257f]")
# nor says how bad the line is: "[ERROR] ", "error[E0425]: " are the line's own words
_LEVEL = re.compile(r"(?i)err|fatal|fail|warn|crit|panic|severe|exception")


def _shape(text: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("0", text))


def learn_prefix(lines: list[str]) -> re.Pattern[str] | None:
    """The prefix the log's writer put on most of its lines, as a pattern, or None.

    Candidates are the first one to :data:`PREFIX_WORDS` words of each flush-left line
    with its numbers masked and its spaces folded (``#12 2.474 `` and ``#8 10.1   `` are
    both ``#0 0.0 ``); those that :data:`PREFIX_SHARE` of the non-empty lines start with,
    that hold a number or a log's punctuation (box drawing too), end in one (not in a
    word the lines share, ``npm``) and name no severity are the prefix, and a line loses
    the longest of them it carries (BuildKit's ``#12 2.474 `` on its output, ``#12 `` on
    its step headers). Indented lines (stack frames, source excerpts) count as lines,
    never as carriers."""
    filled = [line for line in lines if line.strip()]
    if len(filled) < PREFIX_LINES:
        return None
    if len(filled) > 2 * PREFIX_SAMPLE:  # a log's writer prefixes its start as its end
        filled = filled[:PREFIX_SAMPLE] + filled[-PREFIX_SAMPLE:]
    need = max(PREFIX_LINES, PREFIX_SHARE * len(filled))
    # a log's lines share their masked heads: each distinct head is read once
    raw = Counter(
        _DIGITS.sub("0", line[: PREFIX_CHARS + 20])  # masking keeps the words where they are
        for line in filled
        if not line[:1].isspace()
    )
    heads: Counter[str] = Counter()
    for head, times in raw.items():
        heads[_SPACES.sub(" ", head)] += times
    # every prefix begins with a first word most lines share: most pastes stop here
    firsts: Counter[str] = Counter()
    for head, times in heads.items():
        if found := _WORD.match(head):
            firsts[found.group()] += times
    if not any(n >= need for n in firsts.values()):
        return None
    counts: Counter[str] = Counter()
    for head, times in heads.items():
        for n, word in enumerate(_WORD.finditer(head)):
            if n >= PREFIX_WORDS or word.end() > PREFIX_CHARS:
                break
            counts[head[: word.end()]] += times
    shared = [
        shape
        for shape, n in counts.items()
        if n >= need
        and _PREFIX_MARK.search(shape)
        and not _LEVEL.search(shape)
        and not shape.rstrip()[-1:].isalpha()
    ]
    if not shared:
        return None
    folded: Counter[str] = Counter()
    for head, times in heads.items():
        folded[_LETTERS.sub("a", head)] += times
    # each head as written beside its folded form: its spaces' widths say where a line's
    # own indentation begins
    spaced = [(_SPACES.sub(" ", head), head) for head in raw]
    shared = [
        shape
        for shape in shared
        if _constant_tail(shape, shared, counts, folded) and not _indented(shape, shared, spaced)
    ]
    if not shared:
        return None
    shapes = sorted(shared, key=len, reverse=True)  # the longest a line carries is stripped
    return re.compile("^(?:" + "|".join(_pattern(shape, spaced) for shape in shapes) + ")")


#: Flush-left lines' masked heads, each with its spaces folded and as written.
Spaced = list[tuple[str, str]]
#: The space after a head's first n words, by n.
_GAP = [re.compile(r"(?:\S+\s+){" + str(n) + r"}\S+(\s+)") for n in range(PREFIX_WORDS)]


def _gap(head: str, words: int) -> int:
    """How wide the space after the first ``words`` words of ``head`` is, as written."""
    found = _GAP[words - 1].match(head)
    return len(found.group(1)) if found else 0


def _pattern(shape: str, spaced: Spaced) -> str:
    """The regular expression of a prefix's ``shape``: any number where it has ``0``, any
    spaces between its words, and at its end as many spaces as the narrowest its lines
    show (a writer that pads its prefix to a column pads every line), so a line keeps the
    indentation it had before the writer put the prefix in front of it."""
    words = shape.count(" ")
    end = min(_gap(head, words) for folded, head in spaced if folded.startswith(shape))
    pieces = [{"0": r"\d+", " ": r"\s+"}.get(p, re.escape(p)) for p in _PIECES.split(shape[:-1])]
    return "".join(pieces) + (r"\s" if end <= 1 else r"\s{" + str(end) + "}")


def _indented(shape: str, shared: list[str], spaced: Spaced) -> bool:
    """Whether the words ``shape`` adds after a shorter shared prefix are the start of
    indented lines: under the writer's prefix, a line the log indented (``kubectl get
    events``' columns, a stack frame) has a wider space after that prefix than the lines
    the log wrote flush left, and its words are its own, as they are without the prefix."""
    for outer in shared:
        if len(outer) >= len(shape) or not shape.startswith(outer):
            continue
        words = outer.count(" ")
        inside = [_gap(head, words) for folded, head in spaced if folded.startswith(shape)]
        outside = [
            _gap(head, words)
            for folded, head in spaced
            if folded.startswith(outer) and not folded.startswith(shape)
        ]
        if outside and min(inside) > max(outside):
            return True
    return False


def _fold(text: str) -> str:
    return _LETTERS.sub("a", _shape(text))


def _constant_tail(
    shape: str, shared: list[str], counts: Counter[str], folded: Counter[str]
) -> bool:
    """Whether the words ``shape`` adds after its marked head are the writer's, not the lines'.

    Words with no number or log punctuation after the last marked word (``E: `` after
    BuildKit's ``#0 0.0 ``, where apt's lines begin ``E: ``) belong to the prefix only
    when every line carrying the head carries words of the same form there (Cloud
    Build's ``- "build": `` on each line of its step): words that only most lines share
    are those lines' own, as they are in the log without the prefix. ``folded`` counts
    the flush-left lines' masked heads with their letters folded too (:func:`_fold`)."""
    heads = [
        other
        for other in shared
        if len(other) < len(shape)
        and shape.startswith(other)
        and _PREFIX_MARK.search(_WORD.findall(other)[-1])
    ]
    if not heads:
        return True
    head = max(heads, key=len)
    if _PREFIX_MARK.search(shape[len(head) :]):
        return True
    form = _fold(shape)
    carried = sum(n for head, n in folded.items() if head.startswith(form))
    return carried >= counts[head]


def strip_prefix(line: str, prefix: re.Pattern[str] | None) -> str:
    """``line`` without the learnt ``prefix`` (unchanged when it does not carry it)."""
    if prefix is None:
        return line
    found = prefix.match(line)
    return line[found.end() :] if found else line


#: How many prefixes deep a log is read: a tool's log inside another's (Terraform's
#: ``│ `` inside a CI runner's timestamps) carries both.
PREFIX_DEPTH = 3


def learn_prefixes(lines: list[str]) -> tuple[list[re.Pattern[str]], list[str]]:
    """The prefixes of a log, outermost first, and its lines without them: each prefix
    learnt (:func:`learn_prefix`) from the lines with the ones before it stripped, so a
    nested log reads as it does alone (a line that was only the outer prefix is an empty
    line again). The lines returned are :func:`strip_prefixes` of each line."""
    found: list[re.Pattern[str]] = []
    while len(found) < PREFIX_DEPTH:
        prefix = learn_prefix(lines)
        if prefix is None:
            break
        found.append(prefix)
        lines = [strip_prefix(line, prefix) for line in lines]
    return found, lines


def strip_prefixes(line: str, prefixes: list[re.Pattern[str]]) -> str:
    """``line`` without each of the learnt ``prefixes`` it carries, outermost first."""
    for prefix in prefixes:
        line = strip_prefix(line, prefix)
    return line


# -- roles read from the whole paste -----------------------------------------------------

# RE2: a wrapper ends in words ("exited with code 1") after anything, which Python's re
# tries from every position of a long line; RE2 reads the line once.
_WRAPPER = re2.compile(
    r"(?i)^(?:"
    r"FAILURE: Build failed with an exception|BUILD FAIL(?:ED|URE)\b|APPLICATION FAILED TO START$"
    r"|Task :\S+ FAILED$"
    r"|Execution failed for task '[^']*'\.?$"
    r"|Compilation (?:error|failed)[.;] See (?:the )?(?:log|compiler error output)"
    r"|thread '[^']*' panicked at [^\s']+:\d+(?::\d+)?:?$"
    r"|(?:code|errno) (?:\d+|ELIFECYCLE)$|command failed$|Exit status \d+$"
    r"|Failed at the \S+ \S+ script|A complete log of this run can be found"
    r"|(?:g?make|ninja)(?:\[\d+\])?: \*\*\* .*\bError \d+\b"
    r"|(?:Error: |##\[error\])?Process completed with exit code \d+"
    r"|(?:error )?Command failed with exit code \d+"
    r"|error: could not compile `[^`]+`?"
    r"|error: failed to (?:push|fetch|clone) some refs to "
    r"|(?:ERROR: )?Job failed: exit code \d+"
    r"|script returned exit code \d+"
    r"|.*\bexited with (?:exit )?(?:code|status) \d+\.?$"
    r"|.*\breturned non-zero exit status \d+\.?$"
    r"|.*\bsubprocess-exited-with-error"
    r"|.*\bdid not complete successfully: exit code: \d+$"
    r"|.*\bstep exited with non-zero status: \d+$"
    r"|(?:error: )?(?:the )?(?:request|operation) timed out\.?$"
    r")"
)
_is_wrapper = matcher(_WRAPPER)
_RETRY = re.compile(
    r"(?i)\b(?:retrying|retry(?:ing)? in|will retry|retries left|backing off|back-off restarting"
    r"|attempt \d+(?: of \d+)?|trying again|reconnecting)\b"
)
_BANNER = re.compile(
    r"(?i)\b(?:not (?:officially |yet )?supported|unsupported|deprecated|is recommended"
    r"|please (?:upgrade|update)|consider (?:upgrading|updating)|may not work|untested)\b"
)
_FAILURE = re.compile(
    r"(?i)(?:error|exception)\b|\b(?:cannot|could not|failed|no such|not found|denied|refused)\b"
)
#: Report headings whose next line says what went wrong (Spring Boot's failure analysis,
#: Gradle's "* What went wrong:").
WHAT_HEADINGS = frozenset({"description", "problem", "what went wrong"})
#: Report headings whose lines give advice, not errors.
ADVICE_HEADINGS = frozenset({"action", "try", "solution", "suggestion", "hint", "fix"})
_HEADING = re.compile(r"^\*?\s*([A-Za-z][A-Za-z ]{0,30}?)\s*:$")
_FIELD = re.compile(r"^([A-Z][A-Za-z]*(?: [A-Za-z]+){0,2})\s*:\s+(\S.{0,200})$")
_STATE_KEYS = frozenset({"reason", "state", "last state", "status", "phase", "error", "message"})
_CODE_KEYS = frozenset({"exit code", "exitcode", "exit status", "signal"})
_BAD_VALUE = re.compile(
    r"(?i)error|fail|kill|back-?off|evict|oom|crash|invalid|denied|refused|unhealthy"
    r"|not ?found|timeout|exceeded|unschedulable|forbidden"
)


def is_wrapper(text: str) -> bool:
    """The line only reports that something else failed: a build, a task, a command, a
    process's exit code, a panic whose message is elsewhere, a generic time-out."""
    return _is_wrapper(text.encode("utf-8", "surrogatepass"))


def is_banner(text: str) -> bool:
    """The line is a notice about the environment a program starts in (a version not
    supported, a deprecation, an upgrade advised), not a failure."""
    return _BANNER.search(text) is not None and _FAILURE.search(text) is None


def is_retry(text: str) -> bool:
    """The line says an attempt failed and is being tried again."""
    return _RETRY.search(text) is not None


def field_role(text: str) -> str | None:
    """``exception`` for a ``Key: value`` line whose value says what went wrong (``Reason:
    OOMKilled``, ``Exit Code: 137``), else None."""
    found = _FIELD.match(text)
    if found is None:
        return None
    key = found.group(1).lower()
    value = found.group(2).strip()
    if key in _CODE_KEYS:
        return "exception" if value.isdigit() and value != "0" else None
    if key in _STATE_KEYS and _BAD_VALUE.search(value):
        return "exception"
    return None


def heading(text: str) -> str | None:
    """The lower-cased name of a report heading (``Description:``, ``* What went wrong:``)."""
    found = _HEADING.match(text)
    return found.group(1).strip().lower() if found else None


def reshape(rows: list[tuple[int, str, str]]) -> tuple[list[tuple[int, str, str]], set[int]]:
    """The extractor's ``(number, text, role)`` rows with the roles only the whole paste
    shows, and the rows that are causes (a retried failure before what failed after it).

    Roles given: ``exception`` to a structured field (neighbouring fields joined into
    one line) and ``exception`` to the line after a
    :data:`WHAT_HEADINGS` heading; ``prose`` to advice; ``wrapper`` to a wrapper line when
    something more specific is there; ``banner`` to a notice (:func:`is_banner`) before a
    traceback that ends in an exception."""
    out = list(rows)
    under = ""
    fields: set[int] = set()
    for i, (no, text, role) in enumerate(out):
        name = heading(text)
        if name is not None:
            under = name
            continue
        if under in WHAT_HEADINGS:
            if role not in ("frame", "marker") and not is_wrapper(text):
                out[i] = (no, text, "exception")
            under = ""
            continue
        if under in ADVICE_HEADINGS:
            out[i] = (no, text, "prose")
            continue
        under = ""
        if role in ("context", "prose"):
            field = field_role(text)
            if field is not None:
                out[i] = (no, " ".join(text.split()), field)
                fields.add(i)
    out = _join_fields(out, fields)
    errors = [i for i, (_, _, role) in enumerate(out) if role in ("exception", "error")]
    specific = [i for i in errors if not is_wrapper(out[i][1])]
    if specific and len(specific) < len(errors):
        for i in errors:
            if is_wrapper(out[i][1]):
                out[i] = (out[i][0], out[i][1], "wrapper")
    traceback = next(
        (i for i, (_, text, role) in enumerate(out) if role == "marker" and "Traceback" in text),
        -1,
    )
    if traceback > 0 and any(role == "exception" for _, _, role in out[traceback:]):
        for i in range(traceback):
            if out[i][2] == "error" and is_banner(out[i][1]):
                out[i] = (out[i][0], out[i][1], "banner")
    return out, _retried_causes(out)


def _join_fields(rows: list[tuple[int, str, str]], fields: set[int]) -> list[tuple[int, str, str]]:
    """Neighbouring structured fields as one error line ("Reason: OOMKilled; Exit Code:
    137"): together they say what happened, as the one line a record is written for."""
    out: list[tuple[int, str, str]] = []
    for i, row in enumerate(rows):
        if i in fields and i - 1 in fields and out:
            out[-1] = (out[-1][0], f"{out[-1][1]}; {row[1]}", out[-1][2])
        else:
            out.append(row)
    return out


def _retried_causes(rows: list[tuple[int, str, str]]) -> set[int]:
    """The first row of a retried failure that a different, later error follows."""
    errors = [i for i, (_, _, role) in enumerate(rows) if role in ("exception", "error")]
    if len(errors) < 2:
        return set()
    last = errors[-1]
    if is_retry(rows[last][1]):
        return set()
    first = next((i for i in errors if is_retry(rows[i][1])), -1)
    return {first} if 0 <= first < last else set()
