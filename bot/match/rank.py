"""The ranker: evidence for each candidate record → one calibrated score.

Features (each about 0..1), weighted by :data:`WEIGHTS`:

- ``regex``: the strongest regex hit, weighted by the role of the line it
  hit (final exception line ≫ context ≫ frame) and by how long the literal
  part of the alternative that fired is (``6.4`` is weak, ``CUDA out of
  memory`` strong); ``cover``: how much of that line the literal covers;
  ``bare``: the hit is only an exception type name on a line that says more;
  ``lonely``: a hit the record's own text does not support;
- ``overlap``: IDF-weighted share of the record's text (words and phrases, all
  locales) found in the best error line, weighted by line role; ``explained``:
  the share of that line the record explains, as far as the line is specific;
- ``bm25``: normalised BM25 of the paste's error lines against the record;
- ``env``: the record's tool words (``vllm``, ``kubelet``) appear in the paste,
  amplifying text evidence; ``absent``: a tool record whose tool the paste
  never names; ``foreign``: the paste is plainly another language's;
  ``offtopic``: a technical paste vs a record whose signature is no error;
- ``version``: the paste's versions (``torch 2.3``) fall in or out of the
  record's version range; record confidence and verification tier.

The score is a logistic function of the weighted sum; ``high``/``medium`` mean
the top match is very likely right, anything else is ``low`` and declined.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from functools import lru_cache

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from bot.match.extract import ROLE_WEIGHT, ExtractedError, Extraction, Line
from bot.match.normalise import template, terms, tokens, version_hints
from bot.match.similarity import Similarity
from bot.records import Record

HIGH = 0.70
MEDIUM = 0.50
#: Fitted with benchmarks/fit_ranker.py over 280 labelled real pastes (the dev set and
#: six held-out sets of ML and general-software errors from public issues), signs held
#: to what each feature means; foreign, offtopic, confidence, reviewed and version are
#: fixed priors, not fitted. Five-fold cross-validation of that search: 0.81 of the
#: positive pastes answered with a right record, 0.71 of the negative ones declined.
WEIGHTS = {"bias": -5.75, "regex": 9.07, "cover": 0.0, "bare": -2.25, "overlap": 0.43, "bm25": 0.38,
           "env": 3.12, "explained": 4.28, "foreign": -2.5, "offtopic": -3.0, "confidence": 1.0,
           "reviewed": 0.2, "version": 0.5, "absent": -3.84, "lonely": -5.43}  # fmt: skip
FEATURES = ("regex", "cover", "bare", "overlap", "bm25", "env", "explained", "foreign", "offtopic",
            "confidence", "reviewed", "version", "absent", "lonely")  # fmt: skip
_FEATURE_WEIGHTS = tuple(WEIGHTS[name] for name in FEATURES)
#: The paste naming a record's tool only adds to text evidence: full weight once the
#: regex or the signature overlap reaches this, less below (react in the paste does
#: not make a react record the answer to an npm error).
ENV_GATE = 0.2
#: A regex hit counts in full only when the record's text explains at least this much of
#: the line: broad regexes ("transaction.*timeout") fire on other tools' errors.
LONELY = 0.2
SIM_CANDIDATES = 12
SPECIFIC_WEIGHT = 20.0  # IDF weight of a record text specific enough to count in full
MAX_RANKED = 48  # candidates given the full ranking, chosen by regex strength + BM25
QUERY_LINES = 12

FAMILIES = {
    "python": {"python", "pip", "pytorch", "tensorflow", "huggingface", "conda", "opencv", "django"},
    "java": {"java", "android", "kafka", "elasticsearch", "gradle", "maven", "kotlin", "spring"},
    "go": {"go", "golang"},
    "rust": {"rust", "cargo"},
    "node": {"node", "npm", "react", "nextjs", "typescript"},
    "typescript": {"node", "npm", "react", "nextjs", "typescript"},
    "dotnet": {"dotnet", "csharp"},
    "php": {"php", "laravel"},
}  # fmt: skip
_ALL_LANGUAGE_DOMAINS = set().union(*FAMILIES.values())
#: Words that only name a language or runtime (``py`` from ``py311``, ``jdk17``): every
#: paste in that language has them, so they say nothing about which library failed.
_LANGUAGE_WORDS = frozenset(
    "python py pip conda java jdk jre jvm kotlin go golang rust cargo node npm js ts typescript"
    " dotnet csharp cs php rb ruby".split()
)
#: Words in a paste that place it in a domain without naming it: the tools, commands
#: and libraries of that ecosystem (``kubelet`` is Kubernetes, ``ollama`` an LLM).
DOMAIN_HINTS: dict[str, frozenset[str]] = {
    domain: frozenset(words.split())
    for domain, words in {
        "kubernetes": "k8s kubectl kubelet kubeadm kube minikube helm pod pods kustomize eks gke aks",
        "docker": "dockerd dockerfile buildx buildkit containerd moby oci runc",
        "cicd": "ci workflow workflows runner jenkins gitlab circleci actions",
        "huggingface": "hf transformers huggingface_hub hub tokenizers safetensors accelerate peft",
        "llm": "openai ollama llama gpt chatgpt anthropic claude langchain llamaindex vllm tiktoken",
        "pytorch": "torch torchrun cuda nccl autograd",
        "tensorflow": "tf keras tensorboard",
        "cuda": "nvidia nvcc cudnn cublas nccl gpu",
        "database": "postgres postgresql psql mysql mariadb sqlite sql",
        "mongodb": "mongo mongod mongosh",
        "redis": "redis-cli",
        "elasticsearch": "elastic opensearch kibana",
        "git": "github gitlab",
        "aws": "boto3 botocore s3 iam ec2 lambda sts",
        "cloud": "gcp gcloud azure",
        "nextjs": "next",
        "react": "jsx",
        "node": "npm yarn pnpm nodejs",
        "typescript": "tsc tsx",
        "pip": "setuptools wheel pypi",
        "php": "composer laravel",
        "dotnet": "nuget msbuild csproj",
        "rust": "rustc",
        "go": "goroutine",
        "java": "jvm jdk maven gradle spring",
        "networking": "tcp dns ssl tls http https",
        "nginx": "upstream",
    }.items()
}
#: Domains a paste need not name: kinds of problem rather than tools, and the
#: languages (whose absence ``foreign`` weighs).
_NEED_NO_NAME = (
    frozenset("networking api security policy data cloud communication database embedded".split())
    | _ALL_LANGUAGE_DOMAINS
)
_MASK_WORDS = frozenset({"uuid", "url", "hex", "path", "ip", "ver"})
_GENERIC_ENV = frozenset(
    [
        "linux",
        "macos",
        "windows",
        "any",
        "all",
        "api",
        "cli",
        "os",
        "x64",
        "arm64",
        "amd64",
        "none",
        "generic",
    ]
)
_TECHNICAL = re.compile(
    r"(?i)[a-z][A-Z]|error|exception|fail|fatal|denied|refused|cannot|can't|unable|not found|invalid"
    r"|time[d ]?out|exceed|[\w)]\.\w+\(|[_/]\w|\bE[A-Z]{3,}|\w:\s|\[\w+\]|\b\d{3}\b|warning|panic"
)


@dataclass(frozen=True)
class RecordInfo:
    """What the ranker needs to know about a record, precomputed at build."""

    id: str
    domain: str
    env_words: frozenset[str]
    technical: bool
    confidence: float
    reviewed: bool
    versions: tuple[tuple[str, SpecifierSet], ...] = ()

    @classmethod
    def of(cls, record: Record) -> RecordInfo:
        parts = record.id.lower().split("/")
        words = {record.domain.lower(), parts[0]}
        for text in [parts[-1] if len(parts) > 2 else "", *(v.version for v in record.versions)]:
            words.update(w.rstrip("0123456789.") for w in re.split(r"[^a-z0-9.]+", text.lower()))
        words = {w for w in words if len(w) > 1 and w not in _GENERIC_ENV}
        words |= DOMAIN_HINTS.get(record.domain.lower(), frozenset())
        return cls(
            id=record.id,
            domain=record.domain.lower(),
            env_words=frozenset(words),
            technical=bool(_TECHNICAL.search(record.signature)),
            confidence=record.confidence if record.confidence is not None else 0.7,
            reviewed=record.verification_tier.lower()
            in ("human_reviewed", "verified", "confirmed"),
            versions=tuple(spec for v in record.versions if (spec := _specifier(v.version))),
        )


def _specifier(text: str) -> tuple[str, SpecifierSet] | None:
    """``"vllm >=0.4,<0.5"`` → ``("vllm", SpecifierSet(">=0.4,<0.5"))``; None if it is not one."""
    name, _, spec = text.strip().partition(" ")
    try:
        return (name.lower(), SpecifierSet(spec.replace(" ", ""))) if spec.strip() else None
    except InvalidSpecifier:
        return None


def _version_fit(info: RecordInfo, hints: dict[str, list[Version]]) -> float:
    """1: the paste names a version the record is about; -1: only versions it is not about."""
    fit = 0.0
    for name, spec in info.versions:
        seen = hints.get(name)
        if seen:
            if any(spec.contains(v, prereleases=True) for v in seen):
                return 1.0
            fit = -1.0
    return fit


def _hints(text: str) -> dict[str, list[Version]]:
    found: dict[str, list[Version]] = {}
    for name, version in version_hints(text):
        try:
            found.setdefault(name, []).append(Version(version))
        except InvalidVersion:
            continue
    return found


@dataclass(frozen=True)
class Hit:
    """Record ``record``'s regex fired on line ``position`` via an alternative."""

    record: int
    position: int
    literal: int
    type_only: bool  # the alternative that fired is just an exception type name


@dataclass(frozen=True)
class Match:
    record_id: str
    score: float
    band: str  # high | medium | low
    error_index: int
    line: str
    line_no: int
    features: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Triage:
    errors: tuple[ExtractedError, ...]
    matches: tuple[Match, ...]
    per_error: tuple[tuple[int, tuple[Match, ...]], ...]
    truncated: bool = False

    @property
    def best(self) -> Match | None:
        return self.matches[0] if self.matches else None

    @property
    def answered(self) -> bool:
        return bool(self.matches) and self.matches[0].band in ("high", "medium")

    def primary(self) -> list[Match]:
        """The best confident match of each distinct error, in paste order."""
        return [ms[0] for _, ms in self.per_error if ms and ms[0].band != "low"]

    def answer_ids(self) -> list[str]:
        """The records that answer the paste: one per distinct error, in paste order
        (the best overall when no single error has a confident match of its own)."""
        ids = [m.record_id for m in self.primary()]
        if not ids and self.answered and self.best is not None:
            ids = [self.best.record_id]
        return list(dict.fromkeys(ids))


def band(score: float) -> str:
    return "high" if score >= HIGH else "medium" if score >= MEDIUM else "low"


_PASTE_WORD = re.compile(r"[a-z][a-z0-9]*")


def _paste_facts(extraction: Extraction) -> tuple[set[str], str, bool, list[str]]:
    lowered = [line.text.lower() for line in extraction.lines]
    words = set(_PASTE_WORD.findall("\n".join(lowered)))
    kinds = {e.kind for e in extraction.errors}
    kind = next(iter(kinds)) if len(kinds) == 1 else "log"
    technical = kind != "log" or any(l.role in ("exception", "frame") for l in extraction.lines)
    return words, kind, technical or len(extraction.errors) > 0, lowered


def _paste_versions(
    lines: tuple[Line, ...], lowered: list[str], names: set[str]
) -> dict[str, list[Version]]:
    """Version hints from the lines that name one of ``names`` (the candidates' packages);
    stack frames are left out (their paths name the language, not what failed)."""
    if not names:
        return {}
    text = "\n".join(
        low
        for line, low in zip(lines, lowered, strict=True)
        if line.role != "frame" and any(n in low for n in names)
    )
    return _hints(text) if text else {}


@lru_cache(maxsize=4096)  # a repeated line (a retry loop, a log) is looked at once
def _line_terms(text: str) -> tuple[frozenset[str], int]:
    """The terms a line is compared by, and how many letters and digits its template has.

    The template masks quoted names, but a short quoted name ('tensorflow',
    'Session', "bash") is often what tells a specific record from a generic one
    (``module 'X' has no attribute 'Y'``), so its words count too; quoted paths
    and long quoted texts do not.
    """
    masked = template(text)
    quoted = (m.group(0)[1:-1] for m in _QUOTED.finditer(text))
    named = [t for q in quoted if len(q) <= 40 and not _PATHISH.search(q) for t in tokens(q)]
    return frozenset(terms(masked)).union(named) - _MASK_WORDS, len(_ALNUM.findall(masked)) or 1


_ALNUM = re.compile(r"[^\W_]")
_QUOTED = re.compile(r"'[^'\n<>]{1,60}'|\"[^\"\n<>]{1,60}\"|`[^`\n<>]{1,60}`")
_PATHISH = re.compile(r"[/\\]|://")


class _Lines:
    """Per-line templates and terms, computed only for the lines that are looked at."""

    def __init__(self, extraction: Extraction) -> None:
        self.lines = extraction.lines
        self._terms: dict[int, frozenset[str]] = {}
        self._size: dict[int, int] = {}
        self._weight: dict[int, float] = {}

    def _fill(self, pos: int) -> None:
        self._terms[pos], self._size[pos] = _line_terms(self.lines[pos].text)

    def weight(self, pos: int, similarity: Similarity) -> float:
        if pos not in self._weight:
            self._weight[pos] = similarity.line_weight(self.terms(pos))
        return self._weight[pos]

    def terms(self, pos: int) -> frozenset[str]:
        if pos not in self._terms:
            self._fill(pos)
        return self._terms[pos]

    def size(self, pos: int) -> int:
        if pos not in self._size:
            self._fill(pos)
        return self._size[pos]


def _important(extraction: Extraction) -> list[int]:
    """The lines that say what went wrong: exceptions first, then the last error lines."""
    lines = extraction.lines
    exceptions = [i for i, l in enumerate(lines) if l.role == "exception"]
    errors = [i for i, l in enumerate(lines) if l.role == "error"]
    chosen = sorted(
        set(
            exceptions[-QUERY_LINES:]
            + errors[-(QUERY_LINES - min(len(exceptions), QUERY_LINES // 2)) :]
        )
    )
    if not chosen:
        chosen = [i for i, l in enumerate(lines) if l.role in ("context", "prose")][-QUERY_LINES:]
    return chosen[-QUERY_LINES:]


def _env(info: RecordInfo, words: set[str]) -> float:
    """1: the record's tool/library words are in the paste; 0.5: only its language is."""
    seen = info.env_words & words
    return 0.0 if not seen else 0.5 if seen <= _LANGUAGE_WORDS else 1.0


def _foreign(info: RecordInfo, family: set[str], words: set[str]) -> float:
    """1: the paste is plainly another language's; 0.5: a language record, no sign of it."""
    if info.domain not in _ALL_LANGUAGE_DOMAINS:
        return 0.0
    if family:
        return 0.0 if info.domain in family else 1.0
    return 0.0 if info.env_words & words else 0.5


def rank(
    extraction: Extraction,
    hits: list[Hit],
    similarity: Similarity,
    infos: list[RecordInfo],
    *,
    limit: int = 10,
) -> Triage:
    """Score every candidate and return the ranked triage of one paste."""
    lines = extraction.lines
    cache = _Lines(extraction)
    important = _important(extraction)
    query = [t for i in important for t in cache.terms(i)]
    bm25 = similarity.scores(query) if query and similarity.size else None
    best_regex: dict[int, tuple[float, int, float, float]] = {}
    for hit in hits:
        weight = ROLE_WEIGHT[lines[hit.position].role]
        cover = min(1.0, hit.literal / cache.size(hit.position))
        # a hit on the exception type alone, while the message says much more, only
        # shows the class of error: it counts for as much of the line as it covers
        bare = 1.0 if hit.type_only and cover < 0.5 else 0.0
        strength = weight * (1 - math.exp(-hit.literal / 12)) * (max(cover, 0.25) if bare else 1.0)
        if strength > best_regex.get(hit.record, (-1.0, 0, 0.0, 0.0))[0]:
            best_regex[hit.record] = (strength, hit.position, weight * cover, weight * bare)
    candidates = set(best_regex)
    if bm25 is not None:
        candidates.update(similarity.top_ids(bm25, SIM_CANDIDATES))
    if len(candidates) > MAX_RANKED:  # keep ranking cost flat however many records share a hit

        def first_look(record: int) -> tuple[float, int]:
            rough = best_regex.get(record, (0.0,))[0] + (
                float(bm25[record]) if bm25 is not None else 0.0
            )
            return -rough, record

        candidates = set(sorted(candidates, key=first_look)[:MAX_RANKED])
    words, kind, technical, lowered = _paste_facts(extraction)
    names = {n for r in candidates for n, _ in infos[r].versions} & words
    hints = _paste_versions(lines, lowered, names)
    family = FAMILIES.get(kind, set())
    rows: list[tuple[float, float, str, int, tuple[float, ...]]] = []
    weights, bias = _FEATURE_WEIGHTS, WEIGHTS["bias"]
    # per line looked at: its terms, their IDF weight, its role's weight, how specific it is
    looked = set(important) | {v[1] for r, v in best_regex.items() if r in candidates}
    seen = {
        pos: (
            cache.terms(pos),
            cache.weight(pos, similarity),
            ROLE_WEIGHT[lines[pos].role],
            min(1.0, cache.weight(pos, similarity) / SPECIFIC_WEIGHT),
        )
        for pos in looked
    }
    base, important_set = sorted(important), set(important)
    idf, doc_terms, doc_weight = similarity.idf, similarity.doc_terms, similarity.doc_weight
    for record in candidates:
        info = infos[record]
        regex, regex_pos, cover, bare = best_regex.get(record, (0.0, -1, 0.0, 0.0))
        overlap, overlap_pos, explained = 0.0, regex_pos, 0.0
        # a record whose text is one or two common words ("AssertionError") is found in
        # countless lines: finding all of it says less than finding a long, specific text
        specific = min(1.0, doc_weight[record] / SPECIFIC_WEIGHT)
        doc = doc_terms[record]
        positions = (
            base if regex_pos < 0 or regex_pos in important_set else sorted([*base, regex_pos])
        )
        for pos in positions:
            line_terms, line_weight, role_weight, informative = seen[pos]
            common = doc & line_terms
            if not common:
                continue
            found = sum(map(idf.__getitem__, common))
            recall, precision = found / doc_weight[record], found / line_weight
            value = recall * specific * (0.3 + 0.7 * precision) * role_weight
            if value > overlap:
                # explaining all of "==> get this error" says nothing: count a line's share
                # explained only as far as the line itself says something specific
                overlap, overlap_pos, explained = value, pos, precision * informative
        env = _env(info, words) * min(1.0, max(regex, overlap) / ENV_GATE)
        values = (
            regex,
            cover,
            bare,
            overlap,
            min(float(bm25[record]), 1.0) * specific if bm25 is not None else 0.0,
            env,
            explained,
            _foreign(info, family, words),
            1.0 if technical and not info.technical else 0.0,
            info.confidence - 0.85,
            1.0 if info.reviewed else 0.0,
            _version_fit(info, hints) if hints and info.versions else 0.0,
            1.0 if not env and info.domain not in _NEED_NO_NAME else 0.0,
            regex * max(0.0, 1.0 - max(overlap, explained) / LONELY),
        )
        z = bias + sum(map(operator.mul, weights, values))
        pos = regex_pos if regex_pos >= 0 and regex >= overlap * 0.5 else overlap_pos
        rows.append((-z, -regex, info.id, pos, values))
    rows.sort(key=lambda row: row[:3])  # by score; ties by regex strength, then id

    def as_match(row: tuple[float, float, str, int, tuple[float, ...]]) -> Match:
        z, _, record_id, pos, values = row
        score = round(1 / (1 + math.exp(z)), 4)
        line = lines[pos] if pos >= 0 else None
        return Match(
            record_id=record_id,
            score=score,
            band=band(score),
            error_index=line.error_index if line else -1,
            line=line.text if line else "",
            line_no=line.no if line else 0,
            features=tuple(zip(FEATURES, values, strict=True)),
        )

    ordered = [as_match(row) for row in rows[:limit]]
    by_error: dict[int, list[Match]] = {e.index: [] for e in extraction.errors}
    for rank_no, row in enumerate(rows):
        index = lines[row[3]].error_index if row[3] >= 0 else -1
        chosen = by_error.get(index)
        if chosen is not None and len(chosen) < limit:
            chosen.append(ordered[rank_no] if rank_no < limit else as_match(row))
    per_error = tuple((index, tuple(chosen)) for index, chosen in by_error.items())
    return Triage(extraction.errors, tuple(ordered[:limit]), per_error, extraction.truncated)
