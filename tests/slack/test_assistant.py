"""Slack's assistant view: a new assistant thread gets suggested prompts in the person's language;
a paste there is answered in the thread, with a status while errkb works and the error as the
thread's title; a subcommand there is answered in the thread; the classic Messages tab works."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.render.assistant import EXAMPLE_ERROR
from tests.slack.blockkit import assert_valid_message
from tests.slack.conftest import EN_USER, PASTE, ZH_USER, Bot, wait_done

DM = "D0ERRKB"
FROB = "errkbtest/frobnicator-overheat"


def thread_started(bot: Bot, user: str, thread_ts: str) -> str:
    event_id = f"Ev{bot.send.next_id():08d}"
    event = {
        "type": "assistant_thread_started",
        "event_ts": thread_ts,
        "assistant_thread": {
            "user_id": user,
            "channel_id": DM,
            "thread_ts": thread_ts,
            "context": {"channel_id": "C0ERRORS", "team_id": "T1", "enterprise_id": None},
        },
    }
    assert bot.send.event(event, event_id=event_id).status == 200
    return f"event:{event_id}"


def said(bot: Bot, user: str, text: str, thread_ts: str | None) -> str:
    ts = f"1722500000.{bot.send.next_id():06d}"
    event: dict[str, Any] = {
        "type": "message",
        "channel": DM,
        "channel_type": "im",
        "user": user,
        "text": text,
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    assert bot.send.event(event).status == 200
    return ts


@pytest.mark.parametrize(
    ("user", "title", "search"),
    [
        (EN_USER, "Paste an error", "search out of memory"),
        (ZH_USER, "贴上一条错误", "search 显存不足"),
    ],
)
def test_a_new_assistant_thread_gets_suggested_prompts_in_the_persons_language(
    bot: Bot, user: str, title: str, search: str
) -> None:
    wait_done(bot, thread_started(bot, user, "1722500000.100001"))
    [call] = bot.fake.of("assistant.threads.setSuggestedPrompts")
    assert call.params["channel_id"] == DM and call.params["thread_ts"] == "1722500000.100001"
    prompts = call.params["prompts"]
    assert [p["title"] for p in prompts][0] == title and len(prompts) == 3
    assert [p["message"] for p in prompts] == [EXAMPLE_ERROR, search, "stale"]


def test_a_paste_in_the_assistant_thread_is_answered_there_with_a_status_and_a_title(
    bot: Bot,
) -> None:
    root = "1722500000.200001"
    said(bot, ZH_USER, PASTE, root)
    [post] = bot.fake.wait_for("chat.postMessage")
    assert post.params["channel"] == DM and post.params["thread_ts"] == root
    assert FROB in json.dumps(post.params["blocks"]) and "冷却回路" in json.dumps(
        post.params["blocks"], ensure_ascii=False
    )
    assert_valid_message(post.params)
    [status] = bot.fake.of("assistant.threads.setStatus")
    assert status.params["thread_ts"] == root and "正在知识库中查找" in status.params["status"]
    assert status.at <= post.at  # shown while errkb worked, before the answer
    [title] = bot.fake.wait_for("assistant.threads.setTitle")
    assert title.params["title"].startswith(
        "frobnicate.errors.FrobnicatorOverheatError: frobnicator core"
    )
    assert len(title.params["title"]) <= 80


def test_the_example_prompt_is_answered_with_its_record(bot: Bot) -> None:
    ts = said(bot, EN_USER, EXAMPLE_ERROR, "1722500000.300001")
    [post] = bot.fake.wait_for("chat.postMessage")
    assert "llm/vllm-no-available-memory-for-cache-blocks" in json.dumps(post.params["blocks"])
    wait_done(bot, f"msg:cm-{ts}")  # its title is set after the answer: not in the next test


def test_a_subcommand_in_the_assistant_thread_is_answered_in_the_thread(bot: Bot) -> None:
    root = "1722500000.400001"
    said(bot, EN_USER, "search frobnicator", root)
    [answer] = bot.fake.wait_for("chat.postEphemeral")
    assert answer.params["thread_ts"] == root and FROB in json.dumps(answer.params["blocks"])
    assert bot.fake.of("assistant.threads.setStatus") == []


def test_the_classic_messages_tab_answers_without_assistant_calls(bot: Bot) -> None:
    ts = said(bot, EN_USER, PASTE, None)
    [post] = bot.fake.wait_for("chat.postMessage")
    assert post.params["thread_ts"] == ts and FROB in json.dumps(post.params["blocks"])
    wait_done(bot, f"msg:cm-{ts}")
    assert [c for c in bot.fake.calls if c.method.startswith("assistant.")] == []


def test_a_message_without_an_error_clears_the_status_and_leaves_the_title(bot: Bot) -> None:
    root = "1722500000.500001"
    ts = said(bot, EN_USER, "thanks!", root)
    wait_done(bot, f"msg:cm-{ts}")
    statuses = [c.params["status"] for c in bot.fake.of("assistant.threads.setStatus")]
    assert len(statuses) == 2 and statuses[0] and statuses[-1] == ""  # shown, then cleared
    assert bot.fake.of("assistant.threads.setTitle") == []
    [reply] = bot.fake.of("chat.postEphemeral")
    assert reply.params["thread_ts"] == root and "could not find an error" in reply.params["text"]
