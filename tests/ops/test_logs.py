"""Structured logs: JSON lines off a terminal, a request id per Slack request carried into the
lazy work, and never a token, a secret or the text of a request."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.slack.adapter import scope
from bot.slack.web.logs import configure_logging
from tests.ops.conftest import ServeProcess
from tests.slack.conftest import PASTE, SECRET, TOKEN
from tests.slack.fake_slack import FakeSlack

MARKER = "zebra-quokka-4711"  # text only the request bodies contain


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers = root.handlers[:]
    level = root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    logging.captureWarnings(False)


@pytest.mark.usefixtures("restore_logging")
def test_json_lines_off_a_terminal_with_ids_and_nothing_secret() -> None:
    stream = io.StringIO()
    configure_logging("debug", secrets=["sig-5ecret-value"], stream=stream)
    log = logging.getLogger("bot.test")
    with scope.bound(request_id="r-123", team_id="T1", bot_token="xoxb-should-not-show"):
        log.info(
            "sent with %s and sig-5ecret-value",
            "xoxb-1-2-abcdef",
            extra={"slack_method": "chat.postMessage"},
        )
        try:
            raise RuntimeError("boom xoxp-9-9-leak")
        except RuntimeError:
            log.exception("failed")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["msg"] for line in lines] == ["sent with xoxb-*** and ***", "failed"]
    assert all(line["request_id"] == "r-123" and line["team_id"] == "T1" for line in lines)
    assert lines[0]["slack_method"] == "chat.postMessage" and lines[0]["level"] == "INFO"
    assert "xoxp-***" in lines[1]["exc"]
    text = stream.getvalue()
    assert "xoxb-1-2" not in text and "sig-5ecret" not in text and "should-not-show" not in text


@pytest.mark.usefixtures("restore_logging")
def test_any_extra_value_becomes_a_field_and_chinese_stays_readable() -> None:
    stream = io.StringIO()
    configure_logging("INFO", fmt="json", stream=stream)
    when = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)
    logging.getLogger("bot.test").info(
        "找不到记录", extra={"seen": when, "path": Path("a/b"), "ids": ("x", "y")}
    )
    line = stream.getvalue().strip()
    assert "找不到记录" in line  # not \u-escaped
    data = json.loads(line)
    assert list(data)[:4] == ["ts", "level", "logger", "msg"]
    assert (
        data["seen"].startswith("2024-06-01T12:00:00")
        and data["path"] == "a/b"
        and data["ids"] == ["x", "y"]
    )
    assert datetime.fromisoformat(data["ts"]).tzinfo is not None


@pytest.mark.usefixtures("restore_logging")
def test_text_lines_on_a_terminal() -> None:
    stream = _Tty()
    configure_logging("INFO", stream=stream)
    with scope.bound(request_id="r-9"):
        logging.getLogger("bot.test").info("hello %s", "xoxb-1-2-abc")
    line = stream.getvalue().strip()
    assert "INFO bot.test: hello xoxb-***" in line and "request_id=r-9" in line
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)


@pytest.mark.usefixtures("restore_logging")
def test_chatty_libraries_stay_at_info_even_at_debug() -> None:
    configure_logging("DEBUG", stream=io.StringIO())
    assert logging.getLogger("slack_sdk").getEffectiveLevel() == logging.INFO
    assert logging.getLogger("bot.slack.bolt").getEffectiveLevel() == logging.INFO
    assert logging.getLogger("bot.slack.usecases.answer_paste").getEffectiveLevel() == logging.DEBUG


def _by_request(records: list[dict[str, Any]], request_id: str) -> list[dict[str, Any]]:
    return [r for r in records if r.get("request_id") == request_id]


@pytest.mark.slow
def test_a_served_paste_logs_json_with_one_request_id_into_its_job(
    serve: Any, fake_slack: FakeSlack
) -> None:
    bot: ServeProcess = serve(ERRKB_LOG_LEVEL="DEBUG").ready()
    send = bot.sender(fake_slack)
    response, ts = send.message(f"{PASTE}\n{MARKER}")
    assert response.status == 200
    assert fake_slack.wait_for("chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts)
    assert send.command(f"search {MARKER}").status == 200
    assert fake_slack.wait_for("response_url")
    bot.terminate()
    assert bot.wait() == 0
    records = bot.records()  # every stderr line is a JSON object
    assert all({"ts", "level", "logger", "msg"} <= set(r) for r in records)
    event = next(r for r in records if r["msg"] == "slack request event:message")
    assert event["event_id"] and event["team_id"] == "T1" and event["request_id"]
    same = _by_request(records, event["request_id"])
    done = [r for r in same if r.get("kind") == "paste" and r["msg"] == "job paste done"]
    assert done and done[0]["event_id"] == event["event_id"], (
        "the work done after the acknowledgement logs under the request's id"
    )
    command = next(r for r in records if r["msg"] == "slack request command")
    assert command["request_id"] != event["request_id"]
    text = "\n".join(bot.lines)
    assert TOKEN not in text and SECRET not in text
    assert MARKER not in text and "frobnicator core temperature" not in text, (
        "no request text in the logs"
    )
    assert "Traceback" not in text
