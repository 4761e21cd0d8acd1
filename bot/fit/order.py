"""The fix that fits this paste: workarounds ordered by what the paste shows. Pure.

A record's workarounds are ranked by their curated success rate
(:func:`bot.records.ranked_workarounds`). A paste often says more: the flags and
values it ran with, the versions it names, its OS and its hardware. Read against
each workaround's action, commands and condition, they move a fix up or down
(:func:`fit_score`), the curated rank deciding among equals:

- **fits**: the paste meets the fix's condition (its OS, its hardware, a version
  in the range the fix is for) or contradicts its advice (the fix raises
  ``gpu_memory_utilization`` to 0.92, the paste runs it at 0.5), so it comes first;
- **neutral**: the paste says nothing the fix speaks of;
- **tried**: the paste already does what the fix advises (the flag is at the
  advised value or beyond it in the advised direction, the version is already
  the one the fix upgrades to) or shows an environment the fix is not for, so it
  sinks, saying why.

The rule is general, never a list of cases: settings are read as
``--flag value``, ``--flag=value``, ``key=value`` and ``key: value`` with names
normalised (``--gpu-memory-utilization`` is ``gpu_memory_utilization``);
directions from the words beside a setting ("raise", "reduce", "or lower");
versions compared as versions (:mod:`packaging`); OS and hardware by their
usual names. What a person typed (a command-line flag) and what a fix's condition
states weigh more than what a log echoes of its configuration or a fix mentions
in passing; numbers are compared only with numbers.

:class:`PasteFacts` is what a stored reply keeps of its paste, so an answer
rendered again (a vote, **More**) orders its fixes the same way.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from packaging.version import InvalidVersion, Version

from bot.i18n import t
from bot.match.evidence import paste_os
from bot.match.normalise import is_requirement, version_hints
from bot.records import Record, ranked_workarounds

Kind = Literal[
    "raises", "lowers", "changes", "version", "os", "hardware", "tried", "has_version", "other_os"
]
#: Reasons that move a fix up; the others sink it.
FITS: frozenset[str] = frozenset({"raises", "lowers", "changes", "version", "os", "hardware"})
SCAN_CHARS = 60_000
#: How far before a setting's name a direction word counts ("raise --gpu-memory-...").
DIRECTION_WINDOW = 40
SETTINGS_KEPT = 200

_NAME = r"[A-Za-z][\w.-]*[A-Za-z0-9]"
_VALUE = r"(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s,;)\]}'\"`]+)"
_FLAG = re.compile(rf"(?<![\w-])--({_NAME})(?:[= ](?!-)({_VALUE}))?")
_ASSIGN = re.compile(rf"(?<![\w.-])({_NAME})\s?=\s?({_VALUE})")
_COLON = re.compile(rf"(?m)^\s*({_NAME})\s*:\s+({_VALUE})\s*$")
_PLACEHOLDER = re.compile(r"^<.*>$|^\.\.\.$|^\$")
_TO_VALUE = re.compile(r"\s+(?:to|at|=)\s+(-?\d+(?:\.\d+)?)")
_UP = re.compile(
    r"\b(?:raise|increase|higher|bump|larger|bigger|more|up)\b|at least|or (?:more|higher)"
)
_DOWN = re.compile(
    r"\b(?:reduce|lower|decrease|smaller|less|shrink|limit|cap|drop|cut)\b"
    r"|at most|or (?:less|lower)"
)
_TRUE = frozenset({"true", "1", "yes", "on", ""})
_FALSE = frozenset({"false", "0", "no", "off"})
_NOT_NAMES = frozenset({"version", "took", "line", "at", "in", "of", "v"})
_UNSET = frozenset({"none", "null", "nil", "undefined"})
#: How much a reason weighs: what a person typed or a fix's condition states (2) against
#: what a log echoes or a fix mentions in passing (1).
STRONG = 2
WEAK = 1
_VERSION = re.compile(
    r"(?<![\w.-])([a-z][\w.-]*?)\s*(>=|<=|==|~=|>|<|\s)\s*v?(\d+(?:\.\d+)+)(\+|\.x)?",
    re.IGNORECASE,
)
_UPGRADE = re.compile(r"\b(?:upgrade|update|newer|later|latest|at least)\b", re.IGNORECASE)
_DOWNGRADE = re.compile(r"\b(?:downgrade|older|earlier|pin|below|before)\b", re.IGNORECASE)
#: OS names as a fix's text says them, and the paste's OS as :func:`paste_os` names it.
OS_WORDS: Mapping[str, str] = {
    "windows": "windows",
    "win32": "windows",
    "powershell": "windows",
    "macos": "macos",
    "mac os": "macos",
    "osx": "macos",
    "darwin": "macos",
    "homebrew": "macos",
    "linux": "linux",
    "ubuntu": "linux",
    "debian": "linux",
    "wsl": "linux",
}
#: Hardware a paste shows (words in it) and a fix can be written for.
#: (CUDA and NVIDIA are left out: most GPU fixes assume them, so naming them is no condition.)
HARDWARE: Mapping[str, tuple[str, ...]] = {
    "apple_silicon": ("apple silicon", "mps", " m1", " m2", " m3", "arm64", "aarch64"),
    "amd_gpu": ("rocm", "hip ", "amd gpu", "radeon", "mi250", "mi300"),
    "cpu_only": ("cpu only", "cpu-only", "no gpu", "device='cpu'", 'device="cpu"'),
}
OS_NAMES: Mapping[str, str] = {"windows": "Windows", "macos": "macOS", "linux": "Linux"}


def setting_name(raw: str) -> str:
    """``--gpu-memory-utilization``, ``gpu.memory_utilization`` → ``gpu_memory_utilization``."""
    return re.sub(r"[-.]", "_", raw.strip().lstrip("-").lower())


def _clean(value: str | None) -> str:
    return (value or "").strip().strip("'\"").lower()


def read_settings(text: str) -> dict[str, str]:
    """The settings ``text`` states, name → value as written ("" for a bare flag); the
    first statement of a name wins (a command line before the echo of its defaults).
    A value of none or null is no setting."""
    found: dict[str, str] = {}
    for pattern in (_FLAG, _ASSIGN, _COLON):
        for match in pattern.finditer(text[:SCAN_CHARS]):
            value = _clean(match.group(2))
            if _PLACEHOLDER.match(value) or value in _UNSET:
                continue
            found.setdefault(setting_name(match.group(1)), value)
            if len(found) >= SETTINGS_KEPT:
                return found
    return found


def read_flags(text: str) -> frozenset[str]:
    """The settings ``text`` gives as command-line flags: what a person typed, not what a
    log echoes of its configuration."""
    return frozenset(setting_name(m.group(1)) for m in _FLAG.finditer(text[:SCAN_CHARS]))


def _number(value: str) -> float | None:
    try:
        return float(value)
    except ValueError:
        return None


def _version(value: str) -> Version | None:
    try:
        return Version(value)
    except InvalidVersion:
        return None


def read_versions(text: str) -> dict[str, str]:
    """``name → version`` the paste names (``torch 2.3.1``, ``vllm==0.6.3``, ``cmake version
    3.28.1``), first wins; requirements (``torch>=2.1``, ``requires torch==2.3``) are not
    versions the paste ran."""
    text = text[:SCAN_CHARS]
    found: dict[str, str] = dict(reversed(version_hints(text)))
    for match in _VERSION.finditer(text):
        if is_requirement(text, match.start(1), match.group(2)):
            continue  # what something asks for, not what the paste ran
        name = match.group(1).lower().rstrip("-_.")
        if len(name) > 1 and name not in _NOT_NAMES and _version(match.group(3)) is not None:
            found.setdefault(name, match.group(3))
    return found


def read_hardware(text: str) -> frozenset[str]:
    lowered = " " + text[:SCAN_CHARS].lower()
    return frozenset(name for name, words in HARDWARE.items() if any(w in lowered for w in words))


@dataclass(frozen=True)
class PasteFacts:
    """What a paste shows besides its error: settings, versions, OS and hardware."""

    settings: Mapping[str, str] = field(default_factory=dict)
    versions: Mapping[str, str] = field(default_factory=dict)
    os: str = ""
    hardware: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()  # settings given as command-line flags

    @classmethod
    def of(cls, text: str) -> PasteFacts:
        """What ``text`` shows (the last few texts' facts are kept: an answer reads them
        to order its fixes and to choose among near-duplicate records)."""
        return _facts_of(text)

    def dump(self) -> dict[str, Any]:
        """A plain form a stored reply keeps (:meth:`load` reads it back)."""
        return {
            "settings": dict(self.settings),
            "versions": dict(self.versions),
            "os": self.os,
            "hardware": sorted(self.hardware),
            "flags": sorted(self.flags),
        }

    @classmethod
    def load(cls, data: Mapping[str, Any] | None) -> PasteFacts:
        data = data or {}
        return cls(
            settings={str(k): str(v) for k, v in (data.get("settings") or {}).items()},
            versions={str(k): str(v) for k, v in (data.get("versions") or {}).items()},
            os=str(data.get("os") or ""),
            hardware=frozenset(map(str, data.get("hardware") or ())),
            flags=frozenset(map(str, data.get("flags") or ())),
        )

    @property
    def empty(self) -> bool:
        return not (self.settings or self.versions or self.os or self.hardware)


@dataclass(frozen=True)
class Reason:
    """Why the paste moved a fix: what it shows (``pasted``) against what the fix says."""

    kind: Kind
    subject: str  # a setting, a package, an OS or a hardware name
    pasted: str = ""
    advised: str = ""
    weight: int = WEAK

    @property
    def fits(self) -> bool:
        return self.kind in FITS

    def dump(self) -> dict[str, str | int]:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "pasted": self.pasted,
            "advised": self.advised,
            "weight": self.weight,
        }


def _direction(text: str, start: int) -> int:
    """+1 when the words just before ``start`` on its line (or its clause after it) say
    raise, -1 when they say lower, 0 when they say neither."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(line_start, start - DIRECTION_WINDOW) : start].lower()
    after = text[start : start + DIRECTION_WINDOW * 2].lower()
    after = re.split(r"[.;:\n]|\band\b|\bwhen\b|\bif\b", after, maxsplit=1)[0]
    for words in (before, after):
        up = [m.end() for m in _UP.finditer(words)]
        down = [m.end() for m in _DOWN.finditer(words)]
        if up or down:
            return 1 if max(up, default=-1) > max(down, default=-1) else -1
    return 0


def _mentions(text: str, facts: PasteFacts, *, code: bool) -> list[tuple[str, str, int]]:
    """``(setting, advised value, direction)`` for each mention in ``text`` of a setting the
    paste sets: as a flag or ``key=value`` (in prose only a number is a value) or named in
    words ("raise gpu_memory_utilization to 0.9")."""
    out = []
    for pattern in (_FLAG, _ASSIGN):
        for match in pattern.finditer(text):
            name = setting_name(match.group(1))
            if name not in facts.settings:
                continue
            value = _clean(match.group(2))
            if _PLACEHOLDER.match(value) or (not code and _number(value) is None):
                value = ""
            if not value:
                to = _TO_VALUE.match(text, match.end())
                value = to.group(1) if to else ""
            out.append((name, value, _direction(text, match.start())))
    for name in facts.settings:
        if len(name) < 4 or "_" not in name:
            continue
        words = re.escape(name).replace("_", "[-_. ]")
        for spoken in re.finditer(rf"(?<![\w-]){words}\b", text, re.IGNORECASE):
            to = _TO_VALUE.match(text, spoken.end())
            out.append((name, to.group(1) if to else "", _direction(text, spoken.start())))
    return out


def _advice(record: Record, pos: int, facts: PasteFacts) -> list[tuple[str, str, int]]:
    """Each setting the fix speaks of that the paste sets, once: the first value it
    advises and the first direction it gives, from its action, condition and commands."""
    item = record.workarounds[pos]
    found = _mentions(f"{item.action}\n{item.condition}", facts, code=False)
    found += _mentions(str(item.how), facts, code=True)
    merged: dict[str, tuple[str, int]] = {}
    for name, value, direction in found:
        have_value, have_direction = merged.get(name, ("", 0))
        merged[name] = (have_value or value, have_direction or direction)
    return [(name, value, direction) for name, (value, direction) in merged.items()]


def _setting_reason(name: str, advised: str, direction: int, facts: PasteFacts) -> Reason | None:
    pasted = facts.settings[name]
    weight = STRONG if name in facts.flags else WEAK
    have = _number(pasted)
    want = _number(advised) if advised else None
    if have is not None and (want is not None or direction):
        if direction == 0 and want is not None:
            direction = 1 if want > have else -1 if want < have else 0
        if direction > 0:
            kind: Kind = "tried" if want is not None and have >= want else "raises"
        elif direction < 0:
            kind = "tried" if want is not None and have <= want else "lowers"
        else:
            kind = "tried"
        return Reason(kind, name, pasted, advised, weight)
    if not advised or (advised in _TRUE and pasted in _TRUE | _FALSE):
        # a bare flag the fix turns on: tried when the paste has it on
        if pasted in _TRUE:
            return Reason("tried", name, pasted or "on", "on", weight)
        if pasted in _FALSE:
            return Reason("changes", name, pasted, "on", weight)
        return None
    if advised == pasted:
        return Reason("tried", name, pasted, advised, weight)
    if _number(advised) is None and have is None:
        return Reason("changes", name, pasted, advised, weight)
    return None


def _version_reasons(text: str, facts: PasteFacts, *, condition: bool) -> list[Reason]:
    """A version bound in a fix's advice ("upgrade to torch>=2.1") is tried when the paste
    already meets it and fits when it does not; in its condition ("on torch < 2.0") it
    fits when the paste meets it and sinks when it does not."""
    out = []
    for match in _VERSION.finditer(text):
        name = match.group(1).lower().rstrip("-_.")
        pasted = facts.versions.get(name, "")
        want = _version(match.group(3))
        have = _version(pasted) if pasted else None
        if have is None or want is None:
            continue
        op = match.group(2).strip()
        before = text[max(0, match.start() - DIRECTION_WINDOW) : match.start()]
        if op in (">=", ">") or match.group(4) or (not op and _UPGRADE.search(before)):
            bound = f"≥{want}"
            met = have > want if op == ">" else have >= want
        elif op in ("<", "<=") or (not op and _DOWNGRADE.search(before)):
            bound = f"<{want}" if op != "<=" else f"≤{want}"
            met = have <= want if op == "<=" else have < want
        elif op == "==":
            bound = str(want)
            met = have == want
        else:
            continue
        fits = met if condition else not met
        out.append(Reason("version" if fits else "has_version", name, pasted, bound))
    return out


def _environment_reasons(text: str, facts: PasteFacts, weight: int) -> list[Reason]:
    """The OS and hardware ``text`` names, against the paste's: its own fits, only others
    sink."""
    lowered = " " + text.lower()
    out = []
    named = {os for word, os in OS_WORDS.items() if re.search(rf"\b{re.escape(word)}\b", lowered)}
    if facts.os and named:
        if facts.os in named:
            out.append(Reason("os", facts.os, facts.os, facts.os, weight))
        else:
            out.append(Reason("other_os", ", ".join(sorted(named)), facts.os, "", weight))
    for name in sorted(facts.hardware):
        if any(w in lowered for w in HARDWARE.get(name, ())):
            out.append(Reason("hardware", name, name, name, weight))
    return out


def workaround_reasons(record: Record, pos: int, facts: PasteFacts) -> list[Reason]:
    """What the paste shows about workaround ``pos`` of ``record``, strongest first."""
    item = record.workarounds[pos]
    reasons = [
        found
        for name, advised, direction in _advice(record, pos, facts)
        if (found := _setting_reason(name, advised, direction, facts)) is not None
    ]
    reasons += _version_reasons(f"{item.action}\n{item.how}", facts, condition=False)
    reasons += [
        Reason(r.kind, r.subject, r.pasted, r.advised, STRONG)
        for r in _version_reasons(str(item.condition), facts, condition=True)
    ]
    reasons += _environment_reasons(str(item.action), facts, WEAK)
    reasons += _environment_reasons(str(item.condition), facts, STRONG)
    return sorted(reasons, key=lambda r: (-r.weight, not r.fits))


def fit_score(reasons: Sequence[Reason]) -> int:
    """How the paste places a fix: its strongest fitting reason's weight less its strongest
    sinking one's (positive: it fits; negative: the paste shows it tried or not its case)."""
    fitting = max((r.weight for r in reasons if r.fits), default=0)
    sinking = max((r.weight for r in reasons if not r.fits), default=0)
    return fitting - sinking


@dataclass(frozen=True)
class FixOrder:
    """A record's workarounds in the order shown to this paste, with what decided it."""

    order: tuple[int, ...]
    reasons: Mapping[int, tuple[Reason, ...]] = field(default_factory=dict)
    base: tuple[int, ...] = ()

    @property
    def moved(self) -> bool:
        """The paste changed which fix comes first."""
        return bool(self.order) and self.order[:1] != self.base[:1]

    def why_first(self) -> Reason | None:
        """The reason the first fix comes first, when the paste decided it."""
        if not self.moved:
            return None
        return next((r for r in self.reasons.get(self.order[0], ()) if r.fits), None)

    def tried(self, pos: int) -> Reason | None:
        """Why fix ``pos`` sank, when it did."""
        found = self.reasons.get(pos, ())
        return next((r for r in found if not r.fits), None) if fit_score(found) < 0 else None


def fix_order(record: Record, facts: PasteFacts | None) -> FixOrder:
    """``record``'s workarounds for a paste showing ``facts``, by :func:`fit_score` (the
    fitting first, the tried last), curated rank among equals
    (:func:`bot.records.ranked_workarounds`)."""
    base = tuple(ranked_workarounds(record))
    if facts is None or facts.empty:
        return FixOrder(base, {}, base)
    reasons = {pos: tuple(workaround_reasons(record, pos, facts)) for pos in base}
    rank = {pos: i for i, pos in enumerate(base)}
    order = tuple(sorted(base, key=lambda pos: (-fit_score(reasons[pos]), rank[pos])))
    return FixOrder(order, {p: r for p, r in reasons.items() if r}, base)


def describe(locale: str, reason: Reason) -> str:
    """``reason`` as one short line in ``locale``, plain text (renderers escape it)."""
    subject = reason.subject
    pasted = reason.pasted
    if reason.kind in ("os", "other_os"):
        subject = ", ".join(OS_NAMES.get(s, s) for s in subject.split(", "))
        pasted = OS_NAMES.get(pasted, pasted)
    elif reason.kind == "hardware":
        subject = t(locale, f"fit.hw.{subject}")
    return t(locale, f"fit.{reason.kind}", subject=subject, pasted=pasted, advised=reason.advised)


@functools.lru_cache(maxsize=16)
def _facts_of(text: str) -> PasteFacts:
    settings = read_settings(text)
    return PasteFacts(
        settings=settings,
        flags=read_flags(text) & set(settings),
        versions=read_versions(text),
        os=paste_os(text[:SCAN_CHARS].lower()),
        hardware=read_hardware(text),
    )


__all__ = [
    "FixOrder",
    "PasteFacts",
    "Reason",
    "fix_order",
    "read_flags",
    "read_settings",
    "read_versions",
    "setting_name",
    "describe",
    "fit_score",
    "workaround_reasons",
]
