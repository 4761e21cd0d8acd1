"""Choosing and ranking stale records. Pure: records, usage, centrality, policy and
``today`` come in; a ranked list with the reasons for each rank comes out.

A record is stale when ``last_confirmed`` is older than its threshold: the
default, or a per-domain or per-tier override (the strictest that applies).
Deprecated records and records snoozed past ``today`` are left out. Recent
matches, how many errors lead to it, its PageRank and how far overdue it is
all raise a record; each reason is kept so the digest can explain the rank.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date

NEVER_CONFIRMED_OVERDUE = 365


@dataclass(frozen=True)
class StalePolicy:
    default_days: int = 180
    by_domain: Mapping[str, int] = field(default_factory=dict)
    by_tier: Mapping[str, int] = field(default_factory=dict)

    def threshold(self, domain: str, tier: str) -> int:
        """Days after which a record of this domain and tier is stale (strictest applies)."""
        found = [days for days in (self.by_domain.get(domain), self.by_tier.get(tier)) if days]
        return min(found) if found else self.default_days


@dataclass(frozen=True)
class Candidate:
    record_id: str
    domain: str
    verification_tier: str
    signature: str
    last_confirmed: date | None
    deprecated: bool = False
    snoozed_until: date | None = None
    #: the signature in other locales (``zh`` → its ``signature_zh``)
    signatures: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Importance:
    matches: int = 0  # times matched in Slack over the usage window
    leads_in: int = 0  # distinct errors that lead to this one
    pagerank: float = 0.0


@dataclass(frozen=True)
class Reason:
    """One part of an explanation: an i18n key and its parameters."""

    key: str
    params: Mapping[str, int]


@dataclass(frozen=True)
class StaleItem:
    record_id: str
    domain: str
    signature: str
    last_confirmed: date | None
    threshold_days: int
    days_overdue: int
    importance: Importance
    score: float
    reasons: tuple[Reason, ...]
    signatures: Mapping[str, str] = field(default_factory=dict)

    def title(self, locale: str) -> str:
        """The signature in ``locale`` (its own where untranslated), as one telling line:
        a first line that only names the exception type runs on into the next."""
        text = self.signatures.get(locale.split("_")[0].lower()) or self.signature
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()] or [""]
        title = lines[0]
        if len(lines) > 1 and (title.endswith(":") or len(title) < 24):
            title = f"{title} {lines[1]}"
        return title


def is_stale(candidate: Candidate, policy: StalePolicy, today: date) -> bool:
    if candidate.deprecated:
        return False
    if candidate.snoozed_until is not None and candidate.snoozed_until > today:
        return False
    if candidate.last_confirmed is None:
        return True
    age = (today - candidate.last_confirmed).days
    return age > policy.threshold(candidate.domain, candidate.verification_tier)


def _overdue(candidate: Candidate, policy: StalePolicy, today: date) -> int:
    if candidate.last_confirmed is None:
        return NEVER_CONFIRMED_OVERDUE
    threshold = policy.threshold(candidate.domain, candidate.verification_tier)
    return (today - candidate.last_confirmed).days - threshold


def _reasons(candidate: Candidate, importance: Importance, overdue: int) -> tuple[Reason, ...]:
    reasons = []
    if importance.matches:
        reasons.append(Reason("digest.reason.matches", {"count": importance.matches}))
    if importance.leads_in:
        reasons.append(Reason("digest.reason.leads_in", {"count": importance.leads_in}))
    if candidate.last_confirmed is None:
        reasons.append(Reason("digest.reason.never_confirmed", {}))
    else:
        reasons.append(Reason("digest.reason.overdue", {"count": overdue}))
    return tuple(reasons)


def select_stale(
    candidates: Iterable[Candidate],
    *,
    importance: Mapping[str, Importance],
    policy: StalePolicy,
    today: date,
    domains: Iterable[str] | None = None,
    limit: int | None = None,
) -> list[StaleItem]:
    """Stale records, most important first; ties by days overdue, then id."""
    wanted = set(domains) if domains is not None else None
    stale = [
        c
        for c in candidates
        if (wanted is None or c.domain in wanted) and is_stale(c, policy, today)
    ]
    top_rank = max((importance.get(c.record_id, Importance()).pagerank for c in stale), default=0.0)
    items = []
    for candidate in stale:
        weight = importance.get(candidate.record_id, Importance())
        overdue = _overdue(candidate, policy, today)
        centrality = weight.pagerank / top_rank if top_rank > 0 else 0.0
        score = (
            1.5 * math.log1p(weight.matches)
            + 0.6 * math.log1p(weight.leads_in)
            + 0.8 * centrality
            + 0.5 * math.log1p(max(overdue, 0) / 30)
        )
        items.append(
            StaleItem(
                record_id=candidate.record_id,
                domain=candidate.domain,
                signature=candidate.signature,
                last_confirmed=candidate.last_confirmed,
                threshold_days=policy.threshold(candidate.domain, candidate.verification_tier),
                days_overdue=overdue,
                importance=weight,
                score=round(score, 6),
                reasons=_reasons(candidate, weight, overdue),
                signatures=candidate.signatures,
            )
        )
    items.sort(key=lambda item: (-item.score, -item.days_overdue, item.record_id))
    return items[:limit] if limit is not None else items


def importance_of(
    record_ids: Iterable[str],
    *,
    matches: Mapping[str, int],
    centrality: Mapping[str, tuple[int, float]],
) -> dict[str, Importance]:
    """Usage and graph weight per record; ``centrality`` maps id → (leads_in, pagerank)."""
    out = {}
    for record_id in record_ids:
        leads_in, rank = centrality.get(record_id, (0, 0.0))
        out[record_id] = Importance(
            matches=matches.get(record_id, 0), leads_in=leads_in, pagerank=rank
        )
    return out


def explain(item: StaleItem, translate: Callable[..., str], locale: str) -> str:
    """One line: "matched 23 times this month; 4 errors lead to it; 210 days overdue"."""
    return translate(locale, "digest.reason.join").join(
        translate(locale, reason.key, **reason.params) for reason in item.reasons
    )
