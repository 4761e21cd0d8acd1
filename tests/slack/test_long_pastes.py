"""Long pastes over signed HTTP: read where the error is, in a message, a snippet and /errkb,
with a note in the reader's language saying what was skipped."""

from __future__ import annotations

import json

import pytest

from tests.slack.blockkit import assert_valid_message, read_text
from tests.slack.conftest import PASTE, ZH_USER, Bot

NOISE = "2024-05-01 12:00:01 INFO worker step {n} ok, loss=0.31 throughput=5012 tok/s\n"


def log(chars: int, where: str) -> str:
    """A log of about ``chars`` characters holding PASTE at its start, middle or end."""
    noise = "".join(NOISE.format(n=n) for n in range(chars // len(NOISE)))
    cut = {"start": 0, "middle": noise.index("\n", len(noise) // 2) + 1, "end": len(noise)}[where]
    return noise[:cut] + PASTE.strip("\n") + "\n" + noise[cut:]


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_a_long_snippet_is_answered_wherever_its_error_is(bot: Bot, where: str) -> None:
    body = log(230_000, where)
    bot.fake.files["train.log"] = body
    bot.send.file_share(bot.fake.url + "/files/train.log", name="train.log", size=len(body))
    posts = bot.fake.wait_for("chat.postMessage", timeout=20)
    assert len(posts) == 1
    text = read_text(posts[0].params["blocks"])
    assert "frobnicator-overheat" in text or "Prime the coolant loop" in text
    assert f"{body.count(chr(10)) + 1:,} lines" in text and "skipped the rest" in text
    assert "only the first" not in text
    assert_valid_message(posts[0].params)


def test_a_chinese_reader_is_told_in_chinese_what_was_skipped(bot: Bot) -> None:
    response, _ = bot.send.message(log(300_000, "end"), user=ZH_USER)
    assert response.status == 200
    posts = bot.fake.wait_for("chat.postMessage", timeout=20)
    assert len(posts) == 1 and "其余部分已跳过" in read_text(posts[0].params["blocks"])


def test_errkb_reads_a_long_paste_where_its_error_is(bot: Bot) -> None:
    response = bot.send.command(log(230_000, "middle"))
    assert response.status == 200
    calls = bot.fake.wait_for("response_url", timeout=20)
    assert len(calls) == 1
    text = json.dumps(calls[0].params["blocks"], ensure_ascii=False)
    assert "errkbtest/frobnicator-overheat" in text and "skipped the rest" in text
    assert_valid_message(calls[0].params)


def test_a_short_paste_carries_no_note(bot: Bot) -> None:
    bot.send.message(PASTE)
    posts = bot.fake.wait_for("chat.postMessage")
    assert "skipped" not in read_text(posts[0].params["blocks"])
