"""Error-line templates, version hints and tokens: pure text functions.

``template`` masks the parts of an error line that vary between occurrences
(numbers, hex addresses, paths, URLs, UUIDs, quoted names) so that the same
error from two machines gets the same template; it is idempotent.
``version_hints`` keeps what masking throws away: ``vllm==0.4.2`` → ``("vllm",
"0.4.2")``. ``tokens`` is what the similarity index and the ranker compare.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
        ),
        "<uuid>",
    ),
    (re.compile(r"\b[a-z][a-z0-9+.-]{1,15}://[^\s\"'<>()]{1,500}"), "<url>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,}\b"), "<hex>"),
    (re.compile(r"(?:\b[A-Za-z]:)?(?:[\\/][\w.@+~-]{1,200}){2,}[\\/]?"), "<path>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"'[^'\n<>]{1,200}'|\"[^\"\n<>]{1,200}\"|`[^`\n<>]{1,200}`"), "<q>"),
    (re.compile(r"\b\d+(?:\.\d+)+\b"), "<ver>"),
    (re.compile(r"\d+"), "<n>"),
)
_DIGIT = re.compile(r"\d").search
#: A cheap test per mask: can it match at all? (Most lines have no UUID, URL or IP.)
_MASK_NEEDS = (
    lambda t: "-" in t,  # uuid
    lambda t: "://" in t,  # url
    lambda t: "0x" in t or "0X" in t,  # hex address
    lambda t: _DIGIT(t) is not None,  # long hex string
    lambda t: "/" in t or "\\" in t,  # path
    lambda t: "." in t,  # ip
    lambda t: "'" in t or '"' in t or "`" in t,  # quoted
    lambda t: "." in t,  # version
    lambda t: _DIGIT(t) is not None,  # number
)
_SPACE = re.compile(r"\s+")
_VERSION_RUN = re.compile(r"<(?:n|ver)>(?:\.<(?:n|ver)>)+")
_QUOTE_RUN = re.compile(r"<q>(?:<q>)+")
_TEMPLATE_CAP = 2000


@lru_cache(maxsize=4096)  # extraction and ranking both ask for the same error lines
def template(line: str) -> str:
    """The line with its variable parts masked; ``template(template(x)) == template(x)``."""
    text = line[:_TEMPLATE_CAP]
    for (pattern, mask), needs in zip(_MASKS, _MASK_NEEDS, strict=True):
        if needs(text):
            text = pattern.sub(mask, text)
    text = _SPACE.sub(" ", text).strip()
    # Masks can make new neighbours (``<n>.<n>``): fold them until stable.
    while True:
        folded = _VERSION_RUN.sub("<ver>", text)
        folded = _QUOTE_RUN.sub("<q>", folded)
        if folded == text:
            return text
        text = folded


_VERSION = re.compile(
    r"(?i)\b([a-z][a-z0-9_-]{1,30}?)((?:[\s=@:v-]|==|>=|<=|~=|\s+version\s+){1,3})"
    r"(\d+(?:\.\d+){0,3})(?![\w.])"
)
# A version after a comparator (``torch>=2.1``), or named right after words that ask for
# one (pip's ``vllm 0.4.2 requires torch==2.3.0, but you have torch 2.1.0``, ``No
# matching distribution found for torch==2.3``), is a requirement, not what is installed.
_COMPARATOR = re.compile(r"[<>~!^]")
_ASKS_FOR = re.compile(r"(?i)\b(?:requires?|required|requirements?|needs|depends on|found for)\s*$")
#: How far before a version's name :data:`_ASKS_FOR` is looked for.
_ASKS_WINDOW = 24


def is_requirement(text: str, name_start: int, separator: str) -> bool:
    """Whether the version whose name starts at ``name_start`` in ``text``, written after
    ``separator``, is one something asks for rather than one the machine has."""
    if _COMPARATOR.search(separator):
        return True
    return bool(_ASKS_FOR.search(text[max(0, name_start - _ASKS_WINDOW) : name_start]))


def version_hints(text: str, *, limit: int = 20) -> list[tuple[str, str]]:
    """``(name, version)`` pairs seen in a paste: ``torch 2.3``, ``CUDA 12.1``, ``vllm==0.4.2``;
    never a requirement (:func:`is_requirement`): ``torch>=2.1`` says nothing of the torch
    the paste ran."""
    found: dict[tuple[str, str], None] = {}
    text = text[:20000]
    for match in _VERSION.finditer(text):
        if is_requirement(text, match.start(1), match.group(2)):
            continue
        name = match.group(1).lower()
        version = match.group(3)
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


#: Chinese words people use around an English error, and the English words of the
#: records they point to: "最后报错超时" is about a timeout, whatever the paste shows.
_GLOSSARY: dict[str, tuple[str, ...]] = {
    "超时": ("timeout", "timed", "out"),
    "内存不足": ("out", "memory"),
    "内存溢出": ("out", "memory", "overflow"),
    "显存": ("cuda", "memory", "gpu"),
    "爆显存": ("cuda", "out", "memory"),
    "找不到": ("not", "found"),
    "未找到": ("not", "found"),
    "不存在": ("not", "exist"),
    "没有权限": ("permission", "denied"),
    "权限不足": ("permission", "denied"),
    "拒绝访问": ("access", "denied"),
    "连接被拒绝": ("connection", "refused"),
    "无法连接": ("connection", "connect", "failed"),
    "连接失败": ("connection", "failed"),
    "连接超时": ("connection", "timeout", "timed", "out"),
    "崩溃": ("crash", "crashed"),
    "闪退": ("crash", "crashed"),
    "不兼容": ("incompatible", "version"),
    "版本": ("version",),
    "证书": ("certificate", "ssl"),
    "代理": ("proxy",),
    "端口": ("port",),
    "端口被占用": ("address", "already", "use", "port"),
    "磁盘空间不足": ("no", "space", "left", "device"),
    "空间不足": ("no", "space", "left"),
    "限流": ("rate", "limit"),
    "频率限制": ("rate", "limit"),
    "配额": ("quota", "exceeded"),
    "额度": ("quota", "exceeded"),
    "未授权": ("unauthorized",),
    "认证失败": ("authentication", "failed", "unauthorized"),
    "登录": ("login",),
    "死锁": ("deadlock",),
    "编译": ("compile", "build"),
    "依赖": ("dependency", "dependencies"),
    "冲突": ("conflict",),
    "段错误": ("segmentation", "fault"),
    "被杀": ("killed",),
    "下载失败": ("download", "failed"),
    "安装失败": ("install", "failed"),
    "导入失败": ("import", "error"),
    "环境变量": ("environment", "variable"),
    "令牌": ("token",),
    "死循环": ("infinite", "loop"),
    "栈溢出": ("stack", "overflow"),
}


#: Short forms and error codes, and the words a record is more likely to be written
#: in: a paste says ``x509`` or ``ECONNREFUSED``, the record "certificate" or
#: "connection refused". Both sides get the words, so either spelling meets the other.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "x509": ("certificate", "ssl", "verify"),  # Go's wording of a failed verification
    "econnrefused": ("connection", "refused"),
    "econnreset": ("connection", "reset"),
    "etimedout": ("timed", "out", "timeout"),
    "enoent": ("such", "file", "directory"),
    "eacces": ("permission", "denied"),
    "eperm": ("operation", "permitted"),
    "eaddrinuse": ("address", "already", "use"),
    "enospc": ("space", "left", "device"),
    "enomem": ("out", "memory"),
    "sigsegv": ("segmentation", "fault"),
    "segfault": ("segmentation", "fault"),
    "sigkill": ("killed",),
    "oom": ("out", "memory"),
    "k8s": ("kubernetes",),
}


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xAC00 <= code <= 0xD7AF


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; CamelCase split too; CJK runs as character bigrams."""
    return _scan(text, phrases=False)


def terms(text: str) -> list[str]:
    """:func:`tokens` plus each pair of neighbouring words (``"model type"``).

    A record and a line that share a phrase agree more than two that share the
    same words scattered (``out of memory`` is not ``out of date``). Stop words
    are skipped, not counted as a break; other scripts and masks break a phrase;
    an identifier's parts are a phrase too (``CrashLoopBackOff`` ~ ``back off``).
    """
    return _scan(text, phrases=True)


@lru_cache(maxsize=512)
def recent_terms(text: str) -> tuple[str, ...]:
    """:func:`terms`, remembered for the last texts asked: a regex literal is scanned for
    its alternative's words, then for its record's context terms."""
    return tuple(_scan(text, phrases=True))


_MASK_NAMES = frozenset({"uuid", "url", "hex", "path", "ip", "ver", "q", "n"})


def _scan(text: str, *, phrases: bool) -> list[str]:
    out: list[str] = []
    append = out.append
    previous = ""
    for word in _WORD.findall(text[:20000]):
        if not word.isascii():
            out += _mixed_tokens(word)
            previous = ""
            continue
        lower = word.lower()
        if lower in _STOP:  # (no stop word is a mask name or a number)
            continue
        mask = lower.isdigit() or lower in _MASK_NAMES  # breaks a phrase, and is in none
        if mask:
            previous = ""
        if len(lower) < 2 or lower.isdigit():
            continue
        append(lower)
        if lower in _SYNONYMS:
            out += _SYNONYMS[lower]
        # an identifier (not plain letters in one case, or Capitalised): its parts too
        if not (word.isalpha() and (word.islower() or word.isupper() or word[1:].islower())):
            parts = _CAMEL.findall(word)
            if len(parts) > 1:
                kept = [p.lower() for p in parts if len(p) > 2 and not p.isdigit()]
                out += kept
                if phrases:
                    out += [f"{a} {b}" for a, b in pairwise(kept)]
        if phrases and not mask:
            if previous:
                append(f"{previous} {lower}")
            previous = lower
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
            out.extend(w for term, english in _GLOSSARY.items() if term in run for w in english)
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
