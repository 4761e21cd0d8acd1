"""App Home as errkb publishes it for a maintainer who asked about the starter example pastes.

The view is what ``bot.slack.usecases.app_home.publish_home`` gathers, gathered from the
starter knowledge base instead of a database: the maintainer's recent answers
are errkb's replies to the example pastes (:mod:`scripts.starter_answers`),
the stale records are chosen by the digest's own ``select_stale`` (matches
from those replies, centrality from the graph, the default policy, on
:data:`~scripts.starter_answers.DAY`), the figures by
``bot.i18n.coverage``. Nobody has pasted an unknown error or corrected an
answer yet, so those parts are empty. Rendered by ``render_home``.

Needs ``bot/render/home.py``; ``scripts/pictures.py`` checks that it is there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, time
from typing import Any

from bot.digest.select import Candidate, StalePolicy, importance_of, select_stale
from bot.i18n import available_locales
from bot.i18n.coverage import coverage
from bot.render.home import HomeView, KbStats, RecentAnswer, render_home
from scripts.starter_answers import CHANNEL, DAY, Knowledge, Posted

#: When the maintainer opens the tab (the replies were given the same day).
NOW = datetime.combine(DAY, time(9, 30), tzinfo=UTC)


def home_view(kb: Knowledge, replies: Sequence[Posted], locale: str) -> dict[str, Any]:
    """The Home tab (``views.publish``'s view) of a maintainer in ``locale``."""
    records = [r for r in map(kb.index.record, kb.graph.record_ids) if r is not None]
    answered = [p for p in replies if p.locale == locale and p.records]
    recent = [
        RecentAnswer(
            reply_id=n,
            channel=CHANNEL,
            at=NOW,
            record=record,
            closest=posted.outcome == "candidates",
        )
        for n, posted in enumerate(reversed(answered), start=1)
        if (record := kb.index.record(posted.records[0])) is not None
    ]
    candidates = [
        Candidate(r.id, r.domain, r.verification_tier, r.signature, r.last_confirmed)
        for r in records
    ]
    matches = Counter(rid for p in answered for rid in p.records)
    centrality = {rid: (c.in_degree, c.pagerank) for rid, c in kb.graph.centralities().items()}
    weights = importance_of(
        [c.record_id for c in candidates], matches=matches, centrality=centrality
    )
    stale = select_stale(candidates, importance=weights, policy=StalePolicy(), today=DAY)
    shares = {found.locale: found.percent for found in coverage(records, available_locales())}
    view = HomeView(
        locale=locale,
        today=DAY,
        recent=recent,
        maintainer=True,
        stale=stale,
        stale_total=len(stale),
        stats=KbStats(len(records), shares, stale=len(stale), unknown=0),
    )
    return render_home(view, NOW)


__all__ = ["NOW", "home_view"]
