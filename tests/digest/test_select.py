"""Selecting and ranking stale records with an injected clock."""

from __future__ import annotations

from datetime import date, timedelta

from bot.digest.select import Candidate, Importance, StalePolicy, is_stale, select_stale

TODAY = date(2026, 11, 29)


def candidate(rid: str, days_ago: int | None, **kw: object) -> Candidate:
    confirmed = None if days_ago is None else TODAY - timedelta(days=days_ago)
    base: dict[str, object] = {"domain": "llm", "verification_tier": "verified", "signature": rid}
    base.update(kw)
    return Candidate(record_id=rid, last_confirmed=confirmed, **base)  # type: ignore[arg-type]


def ids(items: list) -> list[str]:  # type: ignore[type-arg]
    return [i.record_id for i in items]


def test_threshold_is_the_default_unless_an_override_is_stricter() -> None:
    policy = StalePolicy(180, by_domain={"llm": 90}, by_tier={"ai_generated": 60})
    assert policy.threshold("web", "verified") == 180
    assert policy.threshold("llm", "verified") == 90
    assert policy.threshold("llm", "ai_generated") == 60
    assert policy.threshold("web", "ai_generated") == 60


def test_only_records_older_than_their_threshold_are_stale() -> None:
    policy = StalePolicy(180, by_tier={"ai_generated": 30})
    items = select_stale(
        [
            candidate("fresh", 10),
            candidate("edge", 180),
            candidate("old", 181),
            candidate("machine", 31, verification_tier="ai_generated"),
        ],
        importance={},
        policy=policy,
        today=TODAY,
    )
    assert sorted(ids(items)) == ["machine", "old"]


def test_deprecated_and_snoozed_records_are_left_out_until_the_snooze_ends() -> None:
    policy = StalePolicy(30)
    snoozed = candidate("snoozed", 400, snoozed_until=TODAY + timedelta(days=3))
    woke = candidate("woke", 400, snoozed_until=TODAY)
    gone = candidate("gone", 400, deprecated=True)
    assert not is_stale(snoozed, policy, TODAY)
    assert is_stale(woke, policy, TODAY)
    assert ids(select_stale([snoozed, woke, gone], importance={}, policy=policy, today=TODAY)) == [
        "woke"
    ]
    later = TODAY + timedelta(days=4)
    assert "snoozed" in ids(select_stale([snoozed], importance={}, policy=policy, today=later))


def test_usage_and_centrality_outrank_age_alone() -> None:
    records = [candidate("ancient-unused", 900), candidate("busy", 200), candidate("hub", 200)]
    importance = {
        "busy": Importance(matches=23),
        "hub": Importance(leads_in=4, pagerank=0.2),
        "ancient-unused": Importance(pagerank=0.01),
    }
    items = select_stale(records, importance=importance, policy=StalePolicy(180), today=TODAY)
    assert ids(items) == ["busy", "hub", "ancient-unused"]


def test_ties_break_by_days_overdue_then_id() -> None:
    records = [candidate("b", 300), candidate("a", 300), candidate("c", 400)]
    items = select_stale(records, importance={}, policy=StalePolicy(180), today=TODAY)
    assert ids(items) == ["c", "a", "b"]


def test_each_rank_is_explained() -> None:
    records = [candidate("x", 390), candidate("never", None)]
    importance = {"x": Importance(matches=23, leads_in=4)}
    items = {
        i.record_id: i
        for i in select_stale(records, importance=importance, policy=StalePolicy(180), today=TODAY)
    }
    assert [(r.key, dict(r.params)) for r in items["x"].reasons] == [
        ("digest.reason.matches", {"count": 23}),
        ("digest.reason.leads_in", {"count": 4}),
        ("digest.reason.overdue", {"count": 210}),
    ]
    assert [r.key for r in items["never"].reasons] == ["digest.reason.never_confirmed"]


def test_domain_filter_and_limit() -> None:
    records = [candidate(f"llm{i}", 200 + i) for i in range(5)] + [
        candidate("web", 999, domain="web")
    ]
    items = select_stale(
        records, importance={}, policy=StalePolicy(180), today=TODAY, domains=["llm"], limit=2
    )
    assert ids(items) == ["llm4", "llm3"]


def test_selection_is_deterministic_whatever_the_input_order() -> None:
    records = [candidate(f"r{i}", 181 + (i * 37) % 50) for i in range(40)]
    importance = {f"r{i}": Importance(matches=i % 3) for i in range(40)}
    first = select_stale(records, importance=importance, policy=StalePolicy(180), today=TODAY)
    second = select_stale(
        list(reversed(records)), importance=importance, policy=StalePolicy(180), today=TODAY
    )
    assert first == second


def test_explanations_read_naturally_in_english_and_chinese() -> None:
    from bot.digest.select import explain
    from bot.i18n import t

    [item] = select_stale(
        [candidate("x", 390)],
        importance={"x": Importance(matches=23, leads_in=4)},
        policy=StalePolicy(180),
        today=TODAY,
    )
    assert (
        explain(item, t, "en")
        == "matched 23 times in the last 30 days; 4 errors lead to it; 210 days overdue"
    )
    [one] = select_stale(
        [candidate("x", 181)],
        importance={"x": Importance(matches=1, leads_in=1)},
        policy=StalePolicy(180),
        today=TODAY,
    )
    assert (
        explain(one, t, "en")
        == "matched 1 time in the last 30 days; 1 error leads to it; 1 day overdue"
    )
    assert explain(one, t, "zh") == "近 30 天匹配 1 次；1 个错误会导致它；已超期 1 天"
    assert explain(item, t, "zh") == "近 30 天匹配 23 次；4 个错误会导致它；已超期 210 天"
