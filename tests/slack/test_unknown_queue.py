"""The unknown-error queue keeps error lines, grouped by template: a Node paste queues its
error, not the properties Node prints under it (``errno: -111,``, ``code: 'ECONNREFUSED',``)."""

from __future__ import annotations

from bot.store import slack_repo
from tests.match.test_extract_dumps import AGGREGATE, PG_REFUSED
from tests.slack.conftest import CHANNEL, EN_USER, Bot, wait_done


def _mention(bot: Bot, text: str) -> None:
    ts = f"1722900000.{bot.send.next_id():06d}"
    event = {
        "type": "app_mention",
        "channel": CHANNEL,
        "user": EN_USER,
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
        "text": f"<@UBOT> {text}",
    }
    assert bot.send.event(event).status == 200
    wait_done(bot, f"msg:cm-{ts}")


#: The real Node paste with its error made one no knowledge base holds (the starter base
#: now knows connection errors): the shape of the error object is what is tested.
UNKNOWN_NODE = PG_REFUSED.replace("connect ECONNREFUSED", "frobnicator handshake EFROB")


def test_a_node_paste_queues_its_error_not_the_error_objects_properties(bot: Bot) -> None:
    _mention(bot, UNKNOWN_NODE)
    _mention(bot, UNKNOWN_NODE.replace("5432", "6543").replace("-111", "-61"))
    with bot.store.read() as session:
        queued = slack_repo.unknown_errors(session, limit=50)
    assert [(u.example, u.count) for u in queued] == [
        ("Error: frobnicator handshake EFROB 127.0.0.1:5432", 2)
    ]
    assert not any("errno" in u.template or "syscall" in u.template for u in queued)


def test_errors_inside_a_dump_are_queued_once_each_template(bot: Bot) -> None:
    _mention(bot, AGGREGATE.replace("connect ECONNREFUSED", "frobnicator handshake EFROB"))
    with bot.store.read() as session:
        queued = slack_repo.unknown_errors(session, limit=50)
    examples = sorted(u.example for u in queued)
    assert all(not e.startswith(("errno", "code:", "port:", "address:")) for e in examples), (
        examples
    )
    assert any(e.startswith("Error: frobnicator handshake EFROB") for e in examples)
