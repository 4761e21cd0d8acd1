"""What the ranker knows about one record, computed from that record alone.

Everything here is a function of a single record, so an index update can keep
the results of unchanged records: :class:`RecordInfo` (domain, tool words,
services, OS, versions) and :func:`variant_key` (the error
template and message records share when they are variants of one error).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from sys import intern
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from bot.match.evidence import DOMAIN_HINTS, TOOL_WORDS, record_os, services
from bot.match.frozen import Frozen
from bot.match.normalise import template
from bot.records import Record

FAMILIES = {
    "python": {
        "python",
        "pip",
        "pytorch",
        "tensorflow",
        "huggingface",
        "conda",
        "opencv",
        "django",
    },
    "java": {"java", "android", "kafka", "elasticsearch", "gradle", "maven", "kotlin", "spring"},
    "go": {"go", "golang"},
    "rust": {"rust", "cargo"},
    "node": {"node", "npm", "react", "nextjs", "typescript"},
    "typescript": {"node", "npm", "react", "nextjs", "typescript"},
    "dotnet": {"dotnet", "csharp"},
    "php": {"php", "laravel"},
}
ALL_LANGUAGE_DOMAINS = frozenset().union(*FAMILIES.values())
#: Words that only name a language or runtime (``py`` from ``py311``, ``jdk17``): every
#: paste in that language has them, so they say nothing about which library failed.
LANGUAGE_WORDS = frozenset(
    "python py pip conda java jdk jre jvm kotlin go golang rust cargo node npm js ts typescript"
    " dotnet csharp cs php rb ruby".split()
)
#: Domains a paste need not name: kinds of problem rather than tools, and the
#: languages (whose absence ``foreign`` weighs).
NEED_NO_NAME = (
    frozenset("networking api security policy data cloud communication database embedded".split())
    | ALL_LANGUAGE_DOMAINS
)
#: One object for each set of words and each version specifier seen (:class:`RecordInfo`).
_SHARED: dict[Any, Any] = {}
_GENERIC_ENV = frozenset(
    "linux macos windows wsl2 any all api cli os x64 arm64 amd64 none generic".split()
)


@dataclass(frozen=True, slots=True)
class RecordInfo(Frozen):
    """What the ranker needs to know about a record, precomputed at build. An index holds
    one per record: equal sets and specifiers of different records are one object, and
    the words are interned (:meth:`__post_init__`)."""

    id: str
    domain: str
    env_words: frozenset[str]
    versions: tuple[tuple[str, SpecifierSet], ...] = ()
    services: frozenset[str] = frozenset()
    os: str = ""  # the OS the record is written for ("" = any)
    #: the words its id, signature and regex name it by (``bitsandbytes``, ``mongodb``),
    #: kept as a sorted tuple (a tuple of a dozen words is a fraction of such a set's size)
    names: Collection[str] = ()

    def __post_init__(self) -> None:
        shared = _SHARED.setdefault
        for name in ("env_words", "services"):  # few distinct sets, many records
            words = getattr(self, name)
            object.__setattr__(self, name, shared(words, frozenset(map(intern, words))))
        object.__setattr__(self, "names", tuple(sorted(map(intern, set(self.names)))))
        versions = tuple((intern(n), shared(str(spec), spec)) for n, spec in self.versions)
        object.__setattr__(self, "versions", versions)

    @classmethod
    def of(cls, record: Record) -> RecordInfo:
        parts = record.id.lower().split("/")
        env = parts[-1] if len(parts) > 2 else ""
        words = {record.domain.lower(), parts[0]}
        for text in [env, *(v.version for v in record.versions)]:
            words.update(w.rstrip("0123456789.") for w in _ENV_SPLIT(text.lower()))
        words.update(tag for tag in (str(t).lower() for t in record.tags) if tag in TOOL_WORDS)
        words = {w for w in words if len(w) > 1 and w not in _GENERIC_ENV}
        words |= DOMAIN_HINTS.get(record.domain.lower(), frozenset())
        named = " ".join([record.id, record.signature, record.regex]).lower()
        environment = record.extra.get("environment")
        os_name = environment.get("os", "") if isinstance(environment, dict) else ""
        return cls(
            id=record.id,
            domain=record.domain.lower(),
            env_words=frozenset(words),
            versions=tuple(spec for v in record.versions if (spec := _specifier(v.version))),
            services=services(named),
            os=record_os(env) or (os_name.lower() if os_name in ("windows", "macos") else ""),
            # the words of four characters or more, "-" read as "_"
            names=frozenset(_LONG_NAME.findall(named.replace("-", "_"))),
        )


def _specifier(text: str) -> tuple[str, SpecifierSet] | None:
    """``"vllm >=0.4,<0.5"`` → ``("vllm", SpecifierSet(">=0.4,<0.5"))``; None if it is not one."""
    name, _, spec = text.strip().partition(" ")
    if not spec.strip():
        return None
    specifiers = _specifier_set(spec.replace(" ", ""))
    return None if specifiers is None else (name.lower(), specifiers)


@lru_cache(maxsize=4096)  # records share their version ranges; parsing one is slow
def _specifier_set(spec: str) -> SpecifierSet | None:
    try:
        return SpecifierSet(spec)
    except InvalidSpecifier:
        return None


_ENV_SPLIT = re.compile(r"[^a-z0-9.]+").split
_WORDS = re.compile(r"[a-z0-9]+")
#: A name: a letter, then letters, digits, "-" or "_", ending in a letter or digit; the
#: names of four characters or more (a shorter match is a whole run: no longer one is in it).
_LONG_NAME = re.compile(r"[a-z][a-z0-9_-]{2,}[a-z0-9]")


#: A variant key: the record's id slug, its domain with its error template, and its
#: error's message (each "" where the record has none that says enough).
VariantKey = tuple[str, str, str]


def variant_key(record: Record) -> VariantKey:
    """What a record's variants share: its id slug, its domain with its error template,
    and its error's message in any domain.

    ``docker/port-already-allocated/docker24-linux`` and
    ``docker/bind-address-already-in-use/docker27-linux`` carry the same signature;
    ``git/refusing-to-merge-unrelated/git2-linux`` and ``.../git2.40-macos`` the same
    slug; ``cuda/torch-cuda-oom-new/torch2-a100`` (``torch.cuda.OutOfMemoryError: CUDA
    out of memory``) and ``pytorch/cuda-out-of-memory/pytorch2-linux`` (``... CUDA out of
    memory. Tried to allocate 2.00 GiB``) the same message (:func:`message_key`). Records
    sharing any of them are variants of one error (see :mod:`bot.match.variants`).
    """
    parts = record.id.lower().split("/")
    slug = f"{parts[0]}/{parts[1]}" if len(parts) > 2 else ""
    first = record.signature.strip().splitlines()[0] if record.signature.strip() else ""
    masked = template(first).lower()
    words = " ".join(_WORDS.findall(masked))
    signature = f"{record.domain.lower()}|{words}" if len(words) >= 8 else ""
    return slug, signature, message_key(masked)


#: What a line opens with to say only what kind of error it is: ``RuntimeError:``,
#: ``torch.cuda.OutOfMemoryError:``, ``CUDA error:``, ``fatal:``.
_KIND = re.compile(r"^(?:[\w.]+ )?[\w.]*(?:error|exception|warning|fatal)\s*:\s*")
_SENTENCE_END = re.compile(r"(?<=[a-z>])\.\s")
#: A message names one error across domains when it has this many words of its own.
MESSAGE_WORDS = 4


def message_key(masked: str) -> str:
    """The message of an error line (``masked``: its :func:`template`, lower-cased), the
    same wherever it is raised: the names of its kind of error taken off the front, up to
    its first sentence's end. "" when fewer than :data:`MESSAGE_WORDS` of its words are
    its own (not masked values), or when it quotes a name (``module <q> has no attribute
    <q>``): the quoted name is what tells such errors apart, and the template masks it."""
    text = masked
    while (bare := _KIND.sub("", text, count=1)) != text:
        text = bare
    text = _SENTENCE_END.split(text, maxsplit=1)[0]
    words = _WORDS.findall(text)
    # each mask (``<n>``, ``<path>``) is one word of the template's, not the message's
    if "<q>" in text or len(words) - text.count("<") < MESSAGE_WORDS:
        return ""
    return " ".join(words)
