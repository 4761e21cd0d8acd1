"""The staleness digest against the loopback Slack: posting once per period, the
buttons (maintainers and owners only), in-place updates and the audit log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import delete, select

from bot.clock import FixedClock
from bot.digest.jobs import DigestSender
from bot.render.ids import ActionId, BlockId, CallbackId, InputId
from bot.render.state import DigestItemState
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.web.metrics import Metrics
from bot.store import digest_repo, jobs_repo, repository
from bot.store.models import AuditRow, JobRow, RecordStateRow
from graph.build import build_graph
from tests.slack.blockkit import assert_valid_message
from tests.slack.conftest import ACK_S, CHANNEL, EN_USER, MAINTAINER, OWNER, TODAY, TOKEN, Bot

DIGEST = "CDIGEST"
STALE = "errkbtest/widget-meltdown"  # confirmed 2021: stale
FRESH = "errkbtest/coolant-pump-stalled"  # confirmed 12 days before TODAY


@pytest.fixture
def sender(bot: Bot) -> Iterator[tuple[DigestSender, FixedClock]]:
    settings = Settings(
        database_url="sqlite://",
        slack_bot_token=TOKEN,
        slack_api_url=bot.fake.api_url,
        digest_channel=DIGEST,
        digest_cron="0 9 * * mon",
        timezone="UTC",
        domain_owners={"python": [OWNER]},
        digest_size=5,
    )  # type: ignore[call-arg]
    gateway = SlackGateway(token=TOKEN, base_url=bot.fake.api_url, metrics=Metrics())
    clock = FixedClock(datetime(2025, 8, 4, 9, 0, 5, tzinfo=UTC))  # a Monday, just after 09:00
    graph = build_graph(bot.records)
    yield (
        DigestSender(
            settings=settings, store=bot.store, gateway=gateway, graph=lambda: graph, clock=clock
        ),
        clock,
    )
    with bot.store.transaction() as session:  # put the package's records back as they were
        session.execute(delete(JobRow).where(JobRow.kind == jobs_repo.DIGEST))
        session.query(RecordStateRow).delete()
        repository.import_records(
            session, records=bot.records, on_conflict="upsert", actor="test", now=TODAY
        )


def _posts(bot: Bot, channel: str) -> list[Any]:
    return [c for c in bot.fake.of("chat.postMessage") if c.params["channel"] == channel]


def test_the_scheduled_digest_is_posted_once_per_period(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    digest, clock = sender
    assert digest.run_due() == [f"channel:{DIGEST}", f"owner:{OWNER}"]
    [post] = _posts(bot, DIGEST)
    assert_valid_message(post.params)
    text = json.dumps(post.params["blocks"])
    assert STALE in text and FRESH not in text
    assert "days overdue" in text and "(s)" not in text  # each rank is explained
    clock.value += timedelta(hours=3)
    assert digest.run_due() == []  # same period: nothing more
    assert len(_posts(bot, DIGEST)) == 1
    clock.value += timedelta(days=7)  # the next Monday
    assert digest.run_due() == [f"channel:{DIGEST}", f"owner:{OWNER}"]
    assert len(_posts(bot, DIGEST)) == 2


def test_a_digest_missed_while_down_is_sent_once_when_back(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    digest, clock = sender
    assert f"channel:{DIGEST}" in digest.run_due()  # Monday 4 August, as scheduled
    clock.value = datetime(
        2025, 8, 14, 15, 0, tzinfo=UTC
    )  # down over Monday 11th: back on Thursday
    restarted = DigestSender(
        settings=digest.settings,
        store=digest.store,
        gateway=digest.gateway,
        graph=digest.graph,
        clock=clock,
    )
    assert f"channel:{DIGEST}" in restarted.run_due()
    assert digest.run_due() == [] and restarted.run_due() == []
    with bot.store.transaction() as session:
        runs = [r for r in digest_repo.runs(session) if r.audience == f"channel:{DIGEST}"]
    assert [(r.period, r.status) for r in runs] == [
        ("2025-08-04T09:00:00Z", "done"),
        ("2025-08-11T09:00:00Z", "done"),
    ]


def test_a_first_start_sends_no_digest_for_a_period_long_past(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    digest, clock = sender
    clock.value = datetime(2025, 8, 7, 15, 0, tzinfo=UTC)  # first start on a Thursday
    fresh = DigestSender(
        settings=digest.settings,
        store=digest.store,
        gateway=digest.gateway,
        graph=digest.graph,
        clock=clock,
    )
    assert fresh.run_due() == [] and _posts(bot, DIGEST) == []
    clock.value = datetime(2025, 8, 11, 9, 0, 30, tzinfo=UTC)  # the next Monday: due
    assert f"channel:{DIGEST}" in fresh.run_due()


def test_the_digest_shows_what_people_corrected_with_undo(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    from bot.store import corrections_repo

    digest, clock = sender
    with bot.store.transaction() as session:
        corrections_repo.teach(
            session,
            template="FrobnicatorOverheatError: <n>",
            sample="FrobnicatorOverheatError: 5",
            record_id="errkbtest/frobnicator-underheat",
            wrong_id="errkbtest/frobnicator-overheat",
            user_id=EN_USER,
            channel=CHANNEL,
            at=clock.value,
        )
    digest.run_due()
    [post] = _posts(bot, DIGEST)
    text = json.dumps(post.params["blocks"], ensure_ascii=False)
    assert "Records people said were wrong" in text and "errkbtest/frobnicator-overheat" in text
    assert "Pastes people taught errkb" in text and ActionId.UNDO_CORRECTION in text
    assert_valid_message(post.params)


def test_a_failed_post_is_retried_and_only_then_marked_done(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    digest, _ = sender
    bot.fake.fail_next("chat.postMessage", 500, times=10)
    assert f"channel:{DIGEST}" not in digest.run_due()
    with bot.store.transaction() as session:
        statuses = {r.audience: r.status for r in digest_repo.runs(session)}
    assert statuses[f"channel:{DIGEST}"] == "failed"
    bot.fake.reset()
    assert f"channel:{DIGEST}" in digest.run_due()
    assert len(_posts(bot, DIGEST)) == 1


def test_owners_get_a_dm_with_their_domains_only(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    digest, _ = sender
    digest.run_due()
    [dm] = _posts(bot, OWNER)
    assert "python" in json.dumps(dm.params["blocks"])
    assert all("llm/" not in json.dumps(block) for block in dm.params["blocks"])


def _digest_message(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> tuple[str, list[dict[str, Any]]]:
    sender[0].run_due()
    [post] = _posts(bot, DIGEST)
    [message_ts] = [ts for channel, ts in bot.fake.messages if channel == DIGEST]
    return message_ts, post.params["blocks"]


def _click(
    bot: Bot,
    action: ActionId,
    user: str,
    ts: str,
    blocks: list[dict[str, Any]],
    record: str = STALE,
    domain: str = "python",
) -> None:
    value = DigestItemState(record=record, domain=domain).dump()
    response = bot.send.interactive(
        {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": user},
            "api_app_id": "A1",
            "trigger_id": "trig-digest",
            "channel": {"id": DIGEST},
            "container": {"type": "message", "message_ts": ts, "channel_id": DIGEST},
            "message": {"ts": ts, "blocks": blocks},
            "response_url": bot.fake.response_url("digest"),
            "actions": [
                {
                    "type": "button",
                    "action_id": action,
                    "block_id": f"{BlockId.DIGEST_ITEM}:{record}",
                    "value": value,
                }
            ],
        }
    )
    assert response.status == 200 and response.seconds < ACK_S


def _last_confirmed(bot: Bot, record_id: str) -> date | None:
    with bot.store.transaction() as session:
        record = repository.get_record(session, record_id=record_id)
    assert record is not None
    return record.last_confirmed


def test_still_valid_from_a_non_maintainer_is_refused_politely(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    ts, blocks = _digest_message(bot, sender)
    before = _last_confirmed(bot, STALE)
    _click(bot, ActionId.DIGEST_CONFIRM, EN_USER, ts, blocks)
    [refusal] = bot.fake.wait_for("response_url")
    assert "only knowledge-base maintainers" in refusal.params["text"]
    assert refusal.params["response_type"] == "ephemeral"
    assert _last_confirmed(bot, STALE) == before
    assert not bot.fake.of("chat.update")


def test_still_valid_confirms_audits_and_updates_the_digest(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    ts, blocks = _digest_message(bot, sender)
    _click(bot, ActionId.DIGEST_CONFIRM, MAINTAINER, ts, blocks)
    [update] = bot.fake.wait_for("chat.update")
    assert update.params["ts"] == ts
    assert_valid_message(update.params)
    updated = {b.get("block_id"): b for b in update.params["blocks"]}
    item = updated[f"{BlockId.DIGEST_ITEM}:{STALE}"]
    assert item["type"] == "context" and "Confirmed still valid by <@UMAINTAIN>" in json.dumps(item)
    assert _last_confirmed(bot, STALE) == TODAY.date()
    with bot.store.transaction() as session:
        audit = session.scalars(
            select(AuditRow).where(AuditRow.record_id == STALE).order_by(AuditRow.id.desc())
        ).first()
    assert (
        audit is not None
        and audit.actor == f"slack:{MAINTAINER}"
        and audit.after == {"last_confirmed": "2025-08-01"}
    )


def test_a_domain_owner_may_snooze(bot: Bot, sender: tuple[DigestSender, FixedClock]) -> None:
    ts, blocks = _digest_message(bot, sender)
    _click(bot, ActionId.DIGEST_SNOOZE, OWNER, ts, blocks)
    bot.fake.wait_for("chat.update")
    with bot.store.transaction() as session:
        state = session.get(RecordStateRow, STALE)
        assert state is not None and state.snoozed_until == TODAY.date() + timedelta(days=30)
        actions = [a.action for a in repository.audit_log(session, record_id=STALE)]
    assert actions[0] == "snooze"
    assert "Snoozed until 2025-08-31 by <@UOWNER>" in json.dumps(
        bot.fake.of("chat.update")[0].params["blocks"]
    )
    sender[1].value += timedelta(days=7)
    sender[0].run_due()
    latest = _posts(bot, DIGEST)[-1]
    assert STALE not in json.dumps(latest.params["blocks"])


def test_an_owner_acts_only_on_records_of_their_domain_whatever_the_button_says(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    ts, blocks = _digest_message(bot, sender)
    other = "llm/accelerate-8bit-model-different-device"  # an llm record; OWNER owns python only
    _click(bot, ActionId.DIGEST_SNOOZE, OWNER, ts, blocks, record=other, domain="python")
    [refusal] = bot.fake.wait_for("response_url")
    assert "only knowledge-base maintainers" in refusal.params["text"]
    with bot.store.transaction() as session:
        assert session.get(RecordStateRow, other) is None, "nothing changed"
    assert not bot.fake.of("chat.update")


def test_deprecate_asks_why_then_deprecates_and_updates(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    ts, blocks = _digest_message(bot, sender)
    _click(bot, ActionId.DIGEST_DEPRECATE, MAINTAINER, ts, blocks)
    [opened] = bot.fake.wait_for("views.open")
    view = opened.params["view"]
    assert view["callback_id"] == CallbackId.DEPRECATE_VIEW

    def submit(reason: str) -> Any:
        return bot.send.interactive(
            {
                "type": "view_submission",
                "team": {"id": "T1"},
                "user": {"id": MAINTAINER},
                "api_app_id": "A1",
                "view": {
                    **view,
                    "state": {
                        "values": {
                            BlockId.DEPRECATE_REASON: {
                                InputId.VALUE: {"type": "plain_text_input", "value": reason}
                            }
                        }
                    },
                },
            }
        )

    empty = submit("   ")
    assert empty.status == 200 and json.loads(empty.body)["response_action"] == "errors"
    ok = submit("Fixed upstream in widget 3.0; the error no longer occurs.")
    assert ok.status == 200
    [update] = bot.fake.wait_for("chat.update")
    assert "Deprecated by <@UMAINTAIN>: Fixed upstream" in json.dumps(update.params["blocks"])
    with bot.store.transaction() as session:
        state = session.get(RecordStateRow, STALE)
        assert state is not None and state.deprecated_reason.startswith("Fixed upstream")  # type: ignore[union-attr]
        assert STALE in digest_repo.deprecated_ids(session)
        assert repository.audit_log(session, record_id=STALE)[0].action == "deprecate"
    assert CHANNEL  # the digest lives in its own channel, not the paste channel


def test_a_claim_left_by_a_dead_replica_is_taken_over_after_its_lease(
    bot: Bot, sender: tuple[DigestSender, FixedClock]
) -> None:
    digest, clock = sender
    period = "2025-08-04T09:00:00Z"
    with bot.store.transaction() as session:  # another replica claimed the period, then died
        assert jobs_repo.claim_keyed_job(
            session,
            key=digest_repo.run_key(period, f"channel:{DIGEST}"),
            kind=jobs_repo.DIGEST,
            payload={"period": period, "audience": f"channel:{DIGEST}"},
            owner="dead:1:x",
            now=clock.value,
            lease=timedelta(seconds=digest.settings.job_lease_seconds),
            deadline=clock.value + timedelta(days=7),
        )
    assert f"channel:{DIGEST}" not in digest.run_due()  # its lease still holds
    assert not _posts(bot, DIGEST)
    clock.value += timedelta(seconds=digest.settings.job_lease_seconds + 1)
    assert f"channel:{DIGEST}" in digest.run_due()
    with bot.store.transaction() as session:
        [run] = [r for r in digest_repo.runs(session) if r.audience == f"channel:{DIGEST}"]
    assert (run.status, run.attempts, run.by) == ("done", 2, digest.owner)
    assert len(_posts(bot, DIGEST)) == 1
