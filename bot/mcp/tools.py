"""What the MCP tools do, free of the protocol: each takes plain arguments and returns a model.

:class:`Tools` holds what they work with, wired once by ``errkb mcp``: the live
match index and graph (reloaded as the Slack bot's are), the database, the
settings and a clock. Pastes are cleaned and cut exactly as in Slack
(:func:`bot.answer.read_paste`, ``ERRKB_PASTE_LIMIT``). Everything reads,
except :meth:`Tools.report_outcome`, which counts a verdict in the same
observed success as a Slack vote. A failure is an :class:`~bot.errors.ErrkbError`
with a one-line message; the server turns it into a tool error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from bot.clock import Clock
from bot.errors import ErrkbError, RecordNotFound, UnknownDomain
from bot.i18n import t
from bot.match.index import MatchIndex
from bot.mcp.models import (
    Edge,
    Neighbours,
    Node,
    Observed,
    Outcome,
    SearchHit,
    SearchResult,
    StaleList,
    StaleRecord,
)
from bot.records import Record
from bot.report import AnswerRecord, TriageReport, answer_record, build_report
from bot.settings import Settings
from bot.store.db import Store
from graph.build import KnowledgeGraph

#: Longest client name and voter kept with a verdict (the vote table's user column is 50).
CLIENT_CHARS = 40
VOTER_CHARS = 46
NOTE_CHARS = 1_000
#: How long a call waits for the knowledge base's first load before saying it is loading.
LOAD_WAIT_SECONDS = 30.0


@dataclass(frozen=True)
class Tools:
    index: Callable[[], MatchIndex | None]
    graph: Callable[[], KnowledgeGraph | None]
    store: Store
    settings: Settings
    clock: Clock
    #: Waits (up to the seconds given) for the first load; the server answers the handshake
    #: at once and loads a large knowledge base meanwhile.
    loaded: Callable[[float], object] = lambda _seconds: None

    # -- lookups ---------------------------------------------------------------------

    def _index(self) -> MatchIndex:
        index = self.index()
        if index is None:
            self.loaded(LOAD_WAIT_SECONDS)
            index = self.index()
        if index is None:
            raise ErrkbError(
                "the knowledge base is still loading (or failed to; see the server log)"
            )
        return index

    def _record(self, record_id: str) -> Record:
        found = self._index().record(record_id)
        if found is None:
            raise RecordNotFound(record_id)
        return found

    def _counts(self, ids: list[str]) -> dict[tuple[str, int], tuple[int, int]]:
        from bot.store.slack_repo import workaround_counts

        if not ids:
            return {}
        with self.store.transaction() as session:
            return workaround_counts(session, record_ids=ids)

    # -- the tools -------------------------------------------------------------------

    def triage(self, paste: str, lang: str) -> TriageReport:
        from bot.answer import read_paste
        from bot.fit.duplicates import prefer_general
        from bot.match.reader import prefer_reader

        index = self._index()
        read = read_paste(paste, self.settings.paste_limit)
        triage = prefer_general(index.triage(read), read.text, index.record)
        result = prefer_reader(triage, lang, index.record)
        return build_report(
            result,
            index.record,
            self.graph(),
            locale=lang,
            counts=self._counts(result.answer_ids()),
            read=read,
        )

    def search(self, words: str, limit: int, lang: str) -> SearchResult:
        index = self._index()
        hits = []
        for rid, score in index.search(words, limit=limit):
            record = index.record(rid)
            if record is not None:
                signature = str(record.text("signature", lang)[0])
                hits.append(
                    SearchHit(id=rid, score=score, domain=record.domain, signature=signature)
                )
        return SearchResult(words=words, hits=hits)

    def show(self, record_id: str, lang: str) -> AnswerRecord:
        record = self._record(record_id)
        return answer_record(record, lang, self._counts([record.id]))

    def record_json(self, record_id: str) -> str:
        """The record in its native JSON form (what ``errkb export`` writes)."""
        return json.dumps(self._record(record_id).to_native(), ensure_ascii=False, indent=2)

    def neighbours(self, record_id: str, hops: int, lang: str) -> Neighbours:
        from graph.draw import neighbourhood

        self._index()
        kg = self.graph()
        if kg is None or record_id not in kg:
            raise RecordNotFound(record_id)
        nb = neighbourhood(kg, record_id, depth=hops, locale=lang)
        return Neighbours(
            centre=nb.centre,
            depth=nb.depth,
            locale=nb.locale,
            left_out=nb.left_out,
            nodes=[Node.model_validate(n, from_attributes=True) for n in nb.nodes],
            edges=[Edge.model_validate(e, from_attributes=True) for e in nb.edges],
            observed=[
                Observed(
                    source=e.source,
                    target=e.target,
                    count=e.count,
                    first_seen=e.first_seen.isoformat(),
                    last_seen=e.last_seen.isoformat(),
                )
                for e in kg.observed_from(record_id)
            ],
        )

    def stale(self, domain: str | None, limit: int, lang: str) -> StaleList:
        from bot.digest.jobs import collect, local_today
        from bot.digest.select import explain

        index = self._index()
        now = self.clock.now()
        with self.store.transaction() as session:
            try:
                items = collect(
                    session,
                    settings=self.settings,
                    graph=self.graph(),
                    now=now,
                    domains=[domain] if domain else None,
                )
            except UnknownDomain as exc:
                raise exc.in_locale(lang) from None
        records = []
        for item in items[:limit]:
            record = index.record(item.record_id)
            signature = str(record.text("signature", lang)[0]) if record else item.signature
            records.append(
                StaleRecord(
                    id=item.record_id,
                    domain=item.domain,
                    signature=signature,
                    last_confirmed=item.last_confirmed,
                    threshold_days=item.threshold_days,
                    days_overdue=item.days_overdue,
                    score=item.score,
                    matches=item.importance.matches,
                    leads_in=item.importance.leads_in,
                    why=explain(item, t, lang),
                )
            )
        today = local_today(self.settings, now)
        return StaleList(today=today, domain=domain, total=len(items), records=records)

    def report_outcome(
        self,
        record_id: str,
        workaround: int,
        worked: bool,
        note: str | None,
        *,
        client: str,
        voter: str,
    ) -> Outcome:
        """Count whether ``workaround`` (its position in the record) fixed the error, as the
        vote of ``voter`` (who holds the credentials, not the name ``client`` gives itself):
        one verdict per voter, record and workaround in each UTC day, changeable within it.
        Sessions cost nothing to open, so a vote per session would let one agent be a crowd;
        the day lets the same agent's later, separate fixes count again."""
        from bot.store import repository, slack_repo

        record = self._record(record_id)
        if not 0 <= workaround < len(record.workarounds):
            raise ErrkbError(
                f"record {record_id!r} has no workaround {workaround} "
                f"(positions 0 to {len(record.workarounds) - 1})"
            )
        verdict: Literal["fixed", "failed"] = "fixed" if worked else "failed"
        user = f"mcp:{voter[:VOTER_CHARS]}"
        now = self.clock.now()
        with self.store.transaction() as session:
            outcome = slack_repo.cast_vote(
                session,
                user_id=user,
                record_id=record_id,
                position=workaround,
                thread=f"mcp:{now.date().isoformat()}",
                verdict=verdict,
                at=now,
            )
            if verdict == "fixed" and outcome.changed:
                slack_repo.record_evidence(
                    session, record_id=record_id, actor=user, today=now.date(), at=now
                )
            if outcome.changed:
                after = {
                    "workaround": workaround,
                    "verdict": verdict,
                    "note": (note or "")[:NOTE_CHARS],
                    "client": client[:CLIENT_CHARS],
                }
                repository.add_audit(
                    session,
                    actor=user,
                    record_id=record_id,
                    action="outcome",
                    at=now,
                    before={"verdict": outcome.previous},
                    after=after,
                )
            counts = slack_repo.workaround_counts(session, record_ids=[record_id])
        fixed, failed = counts.get((record_id, workaround), (0, 0))
        action = str(record.text("workarounds", "en")[0][workaround])
        return Outcome(
            record_id=record_id,
            workaround=workaround,
            action=action,
            verdict=verdict,
            changed=outcome.changed,
            previous=outcome.previous,  # type: ignore[arg-type]
            fixed=fixed,
            failed=failed,
            client=client,
        )


__all__ = ["Tools"]
