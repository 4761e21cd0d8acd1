"""Paste → cleaned lines with roles, and the distinct errors in it.

A paste arrives as Slack delivers it: HTML entities, code fences, block
quotes, ANSI colours, ``\\r``, zero-width characters, log prefixes
(timestamps, ``[rank3]:``, ``container | ``, glog/vLLM levels), tqdm bars.
Each kept line gets a *role*: ``exception`` (a final exception line, a root
``Caused by:``, ``panic:``, ``error[E0425]:``), ``error`` (an error-bearing
line), ``context``, ``prose`` (the question around it), ``frame`` (stack
frames and source excerpts) or ``marker`` (``Traceback …``, chain headers).

Work is capped: a paste is read within :data:`MAX_CHARS` where its errors are
(:func:`bot.match.excerpt.excerpt`), and at most :data:`MAX_LINES` lines of
:data:`MAX_LINE` chars reach the matcher, chosen as the head, the tail and the
error-bearing lines of the middle, so a huge or hostile paste costs a bounded
amount of time. Line numbers are always the paste's own.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache

import re2

from bot.match.evidence import packages
from bot.match.excerpt import ERROR_LINE, Excerpt
from bot.match.logshape import learn_prefixes, reshape, strip_prefixes
from bot.match.normalise import template
from bot.match.re2util import either, finder, matcher

MAX_CHARS = 400_000
MAX_LINES = 600
MAX_LINE = 1_500
HEAD_LINES = 80
MAX_ERROR_LINES = 200  # error lines told apart by template, the last ones of the paste
#: How many pastes' extractions :func:`extract` keeps, and the longest paste it keeps.
KEPT = 64
KEPT_CHARS = 65_536

ROLE_WEIGHT = {
    "exception": 1.0,
    "error": 0.8,
    "context": 0.55,
    "banner": 0.4,  # an error line before the traceback that ends the paste
    "prose": 0.35,
    "wrapper": 0.3,  # only reports that something more specific in the paste failed
    "frame": 0.15,
    "marker": 0.1,
}


@dataclass(frozen=True)
class Line:
    no: int  # 1-based line number in the paste
    text: str  # cleaned, prefix-stripped, stripped
    role: str
    error_index: int  # index into Extraction.errors, or -1
    root: bool = False  # the root cause of a chained error ("Caused by:", the first of a chain)


@dataclass(frozen=True)
class ExtractedError:
    index: int
    line_no: int
    text: str
    kind: str  # python | java | go | rust | typescript | node | log
    role: str  # exception | error
    template: str


@dataclass(frozen=True)
class Extraction:
    lines: tuple[Line, ...]
    errors: tuple[ExtractedError, ...]
    truncated: bool
    #: the libraries the paste's paths and links show (``site-packages/bitsandbytes/``),
    #: read before log prefixes and warning locations are stripped from its lines
    packages: frozenset[str] = frozenset()


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]{0,200}(?:\x07|\x1b\\)|\x1b[@-_]")
_INVISIBLE = re.compile(r"[\u200b-\u200f\u2028\u2029\u2060\ufeff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_PREFIXES = tuple(
    re.compile(p)
    for p in (
        r"^\s*\[rank\d+\]:\s?",
        # Python's warnings module: "app.py:36: SettingWithCopyWarning: ..."
        r"^\s*[\w./\\~:-]*\.py:\d+:\s+(?=[A-Z]\w*(?:Warning|Error|Exception)\b)",
        r"^\s*what\(\):\s*",  # C++ std::exception
        r"^\s*[\w.-]+(?:-\d+)?\s+\|\s?",  # docker compose
        (  # vLLM
            r"^\s*(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL|TRACE)\s+\d\d-\d\d \d\d:\d\d:\d\d"
            r"\s+[\w.]+:\d+\]\s?"
        ),
        r"^\s*[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+\s+[\w.]+:\d+\]\s?",  # glog
        (  # ISO timestamps
            r"^\s*\[?\d{4}[-/]\d\d[-/]\d\d[T ]\d\d:\d\d(?::\d\d)?(?:[.,]\d+)?\s?(?:Z|[+-]\d\d:?\d\d|UTC)?\]?"
            r"[:\s-]{0,3}"
        ),
        r"^\s*\d\d/\d\d/\d{4} \d\d:\d\d:\d\d\s*-?\s?",
        (  # loguru, after its timestamp: "| ERROR    | module:function:42 - "
            r"^\s*\|\s*(?:TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL)\s*\|"
            r"\s*[\w.<>-]+:[\w.<>-]+:\d+\s+-\s?"
        ),
        r"^\s*[A-Z][a-z]{2} +\d+ \d\d:\d\d:\d\d \S+ [\w./@-]+(?:\[\d+\])?:\s?",  # syslog
        r"^\s*\d\d:\d\d:\d\d(?:[.,]\d+)?\s+",
        r"^\s*\[(?:INFO|WARNING|WARN|DEBUG|TRACE|I|W|D)\]\s*-?\s?",
        r"^\s*(?:>+|[-*+]|\d+\.)\s+(?=\S)",  # quotes, bullets
        r"^\s*(?:\$|#|PS [^>]{0,80}>|[\w@.-]+:[~/][^\s$#]{0,200}[$#])\s+",  # shell prompts
        r"^\s*`+(?:\w+$)?|`+\s*$",
    )
)
_PREFIX = re.compile("|".join(f"(?:{p.pattern})" for p in _PREFIXES))
_PROGRESS = re.compile(r"\d%\|[^|]{0,200}\||[\u2580-\u259f]{4}|\d(?:it/s|s/it)\]")
_BAR_BLOCKS = re.compile(r"[\u2580-\u259f]")
_BAR_END = re.compile(r".*\d(?:it/s|s/it)[^\]\n]{0,80}\]")  # up to the last bar's rate
_FRAME = re.compile(
    r"^(?:File \".*\", line \d+|at [\w$.<>/\[\]-]+\(.*\)$|at (?:async )?\S+ \(.*:\d+:\d+\)$"
    r"|at .+:\d+:\d+$|\.\.\. \d+ (?:more|common frames omitted)|#\d+\s+0x[0-9a-f]+|frame #\d+:"
    r"|/\S+\.go:\d+|goroutine \d+ \[|[\w./*()-]+\.\w+\(.*\)$|-+>\s|\d+\s*\||\|"
    r"|[\^~ ]+$|\[\[.*\]\]$|in <module>$"
    r"|Cell In ?\[\d+\], line \d+|File [^,\s]+:\d+, in \S+"  # IPython / Jupyter frames
    r"|at [\w$.<>`+\[\],-]+ \(.*\)$|at [\w$.<>`+]+\(.*\) in .+:line \d+$)"  # .NET frames
)
_EXCEPTION = re.compile(
    r"^(?:(?:[\w$]+\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault|Failure|Warning)"
    r"(?:\[[^\]]*\])?(?::|$)|Caused by:|Exception in thread|panic:|fatal error:|error\[E\d+\]"
    r"|.*\berror TS\d+:|thread '.*' panicked|FATAL:|Error:|ERROR:|E\s+\w+Error"
    # a qualified exception type whatever its name ends in: "triton.runtime.errors.OutOfResources:"
    r"|(?:[a-z_][\w$]*\.){2,}[A-Z][\w$]*: )"
)
_ERROR_START = re.compile(
    r"(?i)^(?:error|fatal|err!|npm err!|npm error|e:|\[emerg\]|\[error\]|critical|failed|panic|\w*error\b)"
)
# RE2, called on bytes: a long alternation of words costs Python re a try at every
# position, RE2 one linear pass; and RE2's ASCII \b splits "报错Cannot" before "Cannot".
_ERROR_WORD = re2.compile(
    r"(?i)\b(?:error|errno|exception|failed|failure|fatal|denied|refused|cannot|can't|could not"
    r"|couldn't|unable|not found|no such|timed? ?out|invalid|killed|abort(?:ed)?|panic|segmentation"
    r"|warning|unsupported|not supported|exceed(?:s|ed)?|too (?:old|large|many|long)|out of memory"
    r"|oom|mismatch|unrecognized|not allowed|forbidden|unauthorized|rejected|back-off|crashloop\w*"
    r"|conflict|missing|undefined|not (?:compiled|recognized|installed|available|defined)|requires?"
    r"|emerg|refusing|does not|did not|must|only supports?|unknown|overflow\w*|unhealthy|evicted"
    r"|exhausted|resource_?exhausted)\b"
)
_PROSE_OPENING = (
    r"(?i)^(?:i|i'm|i've|we|my|when|it|this|so|hi|hello|please|any|how|why|what|is|does|can|has"
    r"|have|after|but|then|thanks|looks|the following|here|note|also|kindly|however|because)\b"
    r"|^[^a-z]*[\x{3400}-\x{9fff}]{4}"
)
_PROSE = re2.compile(_PROSE_OPENING + r"|[?？]\s*$")
_MARKER = re.compile(
    r"^(?:Traceback \(most recent call last\)|During handling of the above exception"
    r"|The above exception was the direct cause|The full traceback is|Stack trace:|stack backtrace:)"
)
_CJK_LEAD = re.compile(r"^[^a-z]*[\u3400-\u9fff]")
_EMBEDDED = re.compile(
    r"[A-Za-z][\w.]*(?:Error|Exception)\b|(?i:(?<![a-z])(?:cannot|can't|could not|couldn't|unable"
    r"|failed|error|not found|refused|denied|timed out|no such|does not exist)(?![a-z]))"
)
# "the following error occurs:  ValueError: Shapes (None, 11) and (None, 10) are incompatible"
_QUOTED_EXCEPTION = re.compile(
    r"(?:[:：]\s*|\s{2,})((?:[\w$]+\.)*[A-Z]\w*(?:Error|Exception)(?:\[[^\]]*\])?: \S.*)$"
)
_NPM = re.compile(r"^(?:npm|yarn|pnpm) (?:ERR!|error|WARN|warn)\s?")
# A property of a structured dump: Node's util.inspect of an error object ("errno: -111,",
# "[Symbol(errorLabels)]: Set(0) {}", "'key': 'value'"), a JSON or YAML-ish object printed across lines.
_PROPERTY = re.compile(
    r"^(?:[A-Za-z_$][\w$-]*|'[^'\n]*'|\"[^\"\n]*\"|\[[^\]\n]+\])\s*:\s*(?P<value>.*)$"
)
# A line that opens such a dump: ends in "{" or "[" and is a frame, a property, a bare
# opener or a typed one ("<ref *1> ClientRequest {", "Map(2) {"), not code ("if (err) {").
_OPENER = re.compile(
    r"^(?:at\s.*|[}\],\s]*(?:<ref \*\d+> )?(?:\[Object: null prototype\] )?(?:[A-Z][\w$.]*(?:\(\d+\))? )?)[{\[]$"
)
_KINDS = (
    (
        "python",
        re2.compile(
            r"(?i)Traceback \(most|File \"[^\"\n]*\.py\", line|site-packages|\bpython\d?\b"
            r"|\.py:\d+: [A-Z]\w*(?:Warning|Error)\b"
            # exceptions only Python raises, at a line's start: "ImportError: libcudart.so..."
            r"|(?:^|\n)\s*(?:ImportError|ModuleNotFoundError|AttributeError|KeyError|IndexError"
            r"|ValueError|FileNotFoundError|UnboundLocalError|NotImplementedError|OSError): "
        ),
    ),
    ("java", re2.compile(r"\bat [\w$.]+\([\w$]+\.(?:java|kt):\d+\)|Exception in thread|\bjava\.")),
    ("go", re2.compile(r"goroutine \d+ \[|\.go:\d+")),
    ("rust", re2.compile(r"error\[E\d{4}\]|\.rs:\d+|panicked at")),
    ("typescript", re2.compile(r"\bTS\d{4}\b|\.tsx?[:(]")),
    ("node", re2.compile(r"node_modules|npm (?:ERR!|error)|\.m?js:\d+:\d+")),
)


_KIND_TESTS = tuple((name, matcher(pattern)) for name, pattern in _KINDS)
_is_prose = matcher(_PROSE)
_opens_prose = matcher(re2.compile(_PROSE_OPENING))
_has_error_word = matcher(_ERROR_WORD)
#: a middle line worth keeping: an error word, or a line an excerpt keeps for its error
_find_kept = finder(either(_ERROR_WORD, ERROR_LINE))


def clean(text: str) -> str:
    """Undo Slack escaping and terminal noise, line for line (a line stays where it was)."""
    text = html.unescape(text) if "&" in text else text
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n")
    if "\r" in text:  # progress bars rewrite their line: keep the last state
        text = "\n".join(part.rsplit("\r", 1)[-1] or part for part in text.split("\n"))
    return _INVISIBLE.sub("", text.replace("\t", "    "))


def _strip_prefixes(line: str) -> str:
    for _ in range(6):
        prefix = _PREFIX.match(line)
        if prefix is None or not prefix.end():
            break
        line = line[prefix.end() :]
    return line.strip().strip("`").strip()


def _holds_bars(text: str) -> bool:
    """Whether any line of ``text`` can hold a progress bar (:data:`_PROGRESS`): each of its
    forms needs a piece most pastes lack, so one look at the whole paste spares a search of
    every line."""
    return (
        "%|" in text
        or "it/s]" in text
        or "s/it]" in text
        or (not text.isascii() and _BAR_BLOCKS.search(text) is not None)
    )


def _select(lines: list[str]) -> tuple[list[tuple[int, str]], bool]:
    """At most MAX_LINES (number, line) pairs: head, tail, and the middle's last lines that
    hold an error word or that an excerpt keeps for an error (``ValueError: …``,
    ``Traceback``)."""
    if len(lines) <= MAX_LINES:
        return list(enumerate(lines, 1)), False
    tail = MAX_LINES - HEAD_LINES - MAX_LINES // 4
    keep = _last_kept(lines, HEAD_LINES, len(lines) - tail, MAX_LINES // 4)
    head = list(enumerate(lines[:HEAD_LINES], 1))
    ends = list(enumerate(lines[-tail:], len(lines) - tail + 1))
    return head + [(i + 1, lines[i]) for i in keep] + ends, True


def _last_kept(lines: list[str], start: int, end: int, want: int) -> list[int]:
    """The indexes of the last ``want`` lines of ``lines[start:end]`` worth keeping, in order.

    The middle of a long paste is read from its end in blocks that double in size, each
    joined and searched by one RE2 pass that skips to the next line after a hit: the lines
    that hold nothing cost no Python, and the search stops once ``want`` are found."""
    found: list[int] = []
    size = want * 4
    while end > start and len(found) < want:
        first = max(start, end - size)
        block = lines[first:end]
        if max(map(len, block)) > MAX_LINE:
            block = [line[:MAX_LINE] for line in block]
        data = "\n".join(block).encode("utf-8", "surrogatepass")
        hits: list[int] = []
        pos = row = 0  # a byte offset in the block, and the block's line it is on
        while (span := _find_kept(data, pos)) is not None:
            row += data.count(b"\n", pos, span[0])
            hits.append(first + row)
            pos = data.find(b"\n", span[1]) + 1
            if not pos:
                break
            row += 1
        found = hits + found
        end, size = first, size * 2
    return found[-want:]


def _role(text: str, previous: str) -> str:
    if _MARKER.match(text):
        return "marker"
    exception = _EXCEPTION.match(text) is not None
    python_frame = text.startswith('File "')
    if exception and not python_frame:
        return "exception"
    if previous == "pyframe":
        return "frame"
    if _FRAME.match(text) or (python_frame and ", line " in text):
        return "frame"
    if exception:
        return "exception"
    if _ERROR_START.match(text):
        return "error"
    data = text.encode("utf-8", "surrogatepass")
    if _is_prose(data) and not (_CJK_LEAD.match(text) and _EMBEDDED.search(text)):
        # "The connection to the server localhost:8080 was refused - did you specify the
        # right host or port?" asks, but it is the error: a question only when worded as one
        if _has_error_word(data) and not _opens_prose(data):
            return "error"
        return "prose"
    if _has_error_word(data):
        return "error"
    return "context"


def _is_property(line: str) -> bool:
    """A ``key: value`` line whose value is not itself an error ("[cause]: Error: …" is one)."""
    found = _PROPERTY.match(line)
    return found is not None and _EXCEPTION.match(found.group("value")) is None


def _kind(text: str) -> str:
    data = text.encode("utf-8", "surrogatepass")
    for name, found in _KIND_TESTS:
        if found(data):
            return name
    return "log"


def extract(paste: str | Excerpt) -> Extraction:
    """Clean ``paste``, give each kept line a role, and list its distinct errors.

    A paste over :data:`MAX_CHARS` is read where its errors are (:mod:`bot.match.excerpt`);
    so is an :class:`~bot.match.excerpt.Excerpt` still over it. Line numbers are the
    paste's own either way.

    The extractions of the last :data:`KEPT` pastes read whole, of at most
    :data:`KEPT_CHARS` each, are kept: the server reads a message once to tell an error
    from chit-chat before it acknowledges it and again when it answers it, and an
    :class:`Extraction` never changes."""
    read = (paste if isinstance(paste, Excerpt) else Excerpt.whole(paste)).within(MAX_CHARS)
    if not read.runs and len(read.text) <= KEPT_CHARS:
        return _extract_whole(read.text)
    return _extract(read)


@lru_cache(maxsize=KEPT)
def _extract_whole(text: str) -> Extraction:
    return _extract(Excerpt.whole(text))


def forget_extractions() -> None:
    """Forget the extractions :func:`extract` keeps (a benchmark of new pastes' cost)."""
    _extract_whole.cache_clear()


def _extract(read: Excerpt) -> Extraction:
    text = clean(read.text)
    raw_lines = text.split("\n")
    selected, cut = _select(raw_lines)
    kind = _kind(text[:50_000] + text[-50_000:])
    prefixes, stripped = learn_prefixes([raw for _, raw in selected])
    kept: list[tuple[int, str, str]] = []
    previous = ""
    bars = _holds_bars(text)
    npm_errors = 0
    depth = 0  # how deep inside a structured dump (an error object's properties) the line is
    for (at, raw), bare in zip(selected, stripped, strict=True):
        no = read.line(at)
        body = raw if len(raw) <= MAX_LINE else raw[: MAX_LINE // 3] + " … " + raw[-MAX_LINE // 2 :]
        if bars and _PROGRESS.search(body):
            # a progress bar redrawn in place, and what was logged after its last state on
            # the same line ("24/1752 [01:08<1:22:56, 2.88s/it][rank5]: ... timeout"): keep that
            end = _BAR_END.search(body)
            body = body[end.end() :] if end else ""
            if _PROGRESS.search(body) or len(body.strip()) < 3:
                continue
        line = _strip_prefixes(bare if body is raw else strip_prefixes(body, prefixes))
        if not line:
            depth = 0  # a dump is printed without blank lines: one ends it, even unclosed
        elif depth and line[0] in "}]":
            depth -= 1
        if line and len(line) < 3 and _OPENER.match(line.rstrip(",")):
            depth += 1  # "{" or "[" alone: a dump begins
        if not line or len(line) < 3:
            previous = ""
            continue
        npm = _NPM.match(line)
        if npm:  # an npm block: its first two lines say what went wrong
            line = line[npm.end() :].strip()
            npm_errors = npm_errors + 1 if previous in ("npm", "npm-error") else 1
            if len(line) < 3:
                continue
            role = "error" if npm_errors <= 2 and "ERR" in npm.group(0).upper() else "context"
            kept.append((no, line, role))
            previous = "npm"
            continue
        role = _role(line, previous)
        if depth and role != "exception" and _is_property(line):
            role = "context"  # "errno: -111," describes the error above; it is not one
        if line.rstrip(",")[-1:] in ("{", "[") and (
            role in ("exception", "frame")
            or _OPENER.match(line.rstrip(","))
            or _PROPERTY.match(line)
        ):
            depth += 1
        if (
            previous == "exception"
            and kept[-1][1].endswith(":")
            and role in ("context", "prose", "error")
            and not line.startswith(("at ", "File "))
            and len(kept[-1][1]) + len(line) < MAX_LINE
        ):
            # "SettingWithCopyWarning:" then its message on the next line: one error
            kept[-1] = (kept[-1][0], f"{kept[-1][1]} {line}", "exception")
            previous = "continued"
            continue
        if role == "prose" and kept and kept[-1][2] == "exception" and not _PROSE.match(line):
            role = "error"  # continuation of a multi-line exception message
        elif role == "prose" and (quoted := _QUOTED_EXCEPTION.search(line)):
            # a sentence that quotes the exception: the sentence is prose, the quote the error
            kept.append((no, line[: quoted.start()].rstrip(" :："), "prose"))
            line = quoted.group(1)
            role = "exception"
        previous = "pyframe" if role == "frame" and line.startswith('File "') else role
        kept.append((no, line, role))
    kept, causes = reshape(kept)
    roots = _chain_roots(kept) or causes
    errors: list[ExtractedError] = []
    by_template: dict[str, int] = {}
    lines: list[Line] = []
    error_rows = [i for i, (_, _, role) in enumerate(kept) if role in ("exception", "error")]
    tracked = set(error_rows[-MAX_ERROR_LINES:])  # a log of a thousand errors: the last ones
    for row, (no, line, role) in enumerate(kept):
        index = -1
        if row in tracked:
            key = template(line)
            if key not in by_template:
                by_template[key] = len(errors)
                errors.append(ExtractedError(len(errors), no, line, kind, role, key))
            index = by_template[key]
        lines.append(Line(no, line, role, index, row in roots))
    return Extraction(tuple(lines), tuple(errors), read.cut or cut, packages(text.lower()))


_CHAIN = ("During handling of the above exception", "The above exception was the direct cause")


def _chain_roots(kept: list[tuple[int, str, str]]) -> set[int]:
    """Rows holding the root error of a chain: in Python the exception before the first
    "During handling of the above exception" / "The above exception was the direct
    cause" (the rest were raised because of it), in Java the last "Caused by:"."""
    roots: set[int] = set()
    last_exception = -1
    chained = False
    for row, (_, line, role) in enumerate(kept):
        if role == "marker" and line.startswith(_CHAIN):
            if not chained and last_exception >= 0:
                roots.add(last_exception)
            chained = True
        elif role == "exception":
            last_exception = row
            if not line.startswith("Caused by:"):
                continue
            roots -= {r for r in roots if kept[r][1].startswith("Caused by:")}
            roots.add(row)
    return roots
