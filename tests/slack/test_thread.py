"""Once per thread: what errkb does with a mention, or the look-up shortcut, in a thread it
already answered. Thanks and bare mentions get a reaction, a question a pointer only the
asker sees (in the asker's language, naming the record, linking the answer), a new error
an answer; never the whole answer again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.i18n import t
from bot.render.ids import ActionId, CallbackId
from bot.render.pointer import render_pointer
from bot.store import slack_repo
from tests.slack.blockkit import assert_valid_message, buttons, read_text
from tests.slack.conftest import CHANNEL, EN_USER, PASTE, ZH_USER, Bot, wait_done

ANSWERED = "errkbtest/frobnicator-overheat"  # what PASTE is answered with
PUMP = "CoolantPumpStalledError: coolant pump 3 reports zero flow for 30 seconds"
UNKNOWN = "ZorgleBlorpException: qwzx vrrp ktchk reactor 7"


def _answered_thread(
    bot: Bot, *, user: str = EN_USER, text: str = PASTE, mention: bool = False
) -> tuple[str, str]:
    """A paste answered in public; (the thread's ts, the ts of errkb's answer)."""
    root = f"1722800000.{bot.send.next_id():06d}"
    bot.fake.add_message(CHANNEL, root, text, user=user)
    if mention:
        event = {
            "type": "app_mention",
            "channel": CHANNEL,
            "user": user,
            "ts": root,
            "client_msg_id": f"cm-{root}",
            "text": f"<@UBOT> {text}",
        }
        bot.send.event(event)
    else:
        bot.send.message(text, user=user, ts=root)
    bot.fake.wait_for("chat.postMessage", where=lambda c: c.params.get("thread_ts") == root)
    wait_done(bot, f"msg:cm-{root}")
    [answer_ts] = [
        ts
        for (_, ts), m in bot.fake.messages.items()
        if m.get("thread_ts") == root and m.get("bot_id")
    ]
    return root, answer_ts


def _mention(bot: Bot, root: str, text: str, *, user: str = EN_USER) -> str:
    """``text`` said to errkb in the thread (the message exists in Slack, as it would)."""
    ts = f"1722800001.{bot.send.next_id():06d}"
    said = f"<@UBOT> {text}".rstrip()
    bot.fake.add_message(CHANNEL, ts, said, user=user, thread_ts=root)
    event = {
        "type": "app_mention",
        "channel": CHANNEL,
        "user": user,
        "ts": ts,
        "thread_ts": root,
        "client_msg_id": f"cm-{ts}",
        "text": said,
    }
    assert bot.send.event(event).status == 200
    wait_done(bot, f"msg:cm-{ts}")
    return ts


def _lookup(
    bot: Bot, ts: str, text: str, *, user: str = EN_USER, thread_ts: str | None = None
) -> dict[str, Any]:
    """The look-up shortcut on a message; what errkb sent to its response_url."""
    n = bot.send.next_id()
    message = {
        "text": text,
        "ts": ts,
        "user": EN_USER,
        **({"thread_ts": thread_ts} if thread_ts else {}),
    }
    bot.send.interactive(
        {
            "type": "message_action",
            "callback_id": CallbackId.LOOKUP_SHORTCUT,
            "trigger_id": f"t-look{n}",
            "team": {"id": "T1"},
            "user": {"id": user},
            "channel": {"id": CHANNEL},
            "response_url": bot.fake.response_url(f"look{n}"),
            "message": message,
        }
    )
    wait_done(bot, f"shortcut:t-look{n}")
    [reply] = [c for c in bot.fake.of("response_url") if c.params["name"] == f"look{n}"]
    return reply.params


def _permalink(answer_ts: str) -> str:
    return f"https://test.slack.com/archives/{CHANNEL}/p{answer_ts}"


def _posts(bot: Bot, root: str) -> list[Any]:
    return [c for c in bot.fake.of("chat.postMessage") if c.params.get("thread_ts") == root]


@pytest.mark.parametrize(
    "said",
    [
        "thanks!",
        "Thank you so much :pray:",
        "great, that fixed it!",
        "谢谢",
        "多谢，解决了",
        "太感谢了！",
        "搞定了，谢谢大家",
    ],
)
def test_thanks_get_a_reaction_not_a_second_answer(bot: Bot, said: str) -> None:
    root, _ = _answered_thread(bot)
    ts = _mention(bot, root, said)
    assert bot.fake.reactions.get((CHANNEL, ts)) == ["+1"]
    [react] = bot.fake.of("reactions.add")
    assert react.params["timestamp"] == ts and react.params["channel"] == CHANNEL
    assert len(_posts(bot, root)) == 1, "the answer is posted once"
    assert bot.fake.of("chat.postEphemeral") == []


@pytest.mark.parametrize("user", [EN_USER, ZH_USER])
def test_a_bare_mention_gets_a_reaction_and_nothing_else(bot: Bot, user: str) -> None:
    root, _ = _answered_thread(bot, user=user)
    ts = _mention(bot, root, "", user=user)
    assert bot.fake.reactions.get((CHANNEL, ts)) == ["eyes"]
    assert len(_posts(bot, root)) == 1 and bot.fake.of("chat.postEphemeral") == []


def test_a_question_gets_a_private_pointer_naming_the_record_and_linking_the_answer(
    bot: Bot,
) -> None:
    root, answer_ts = _answered_thread(bot)
    _mention(bot, root, "does this also happen on the new firmware?")
    assert len(_posts(bot, root)) == 1, "no second answer"
    [pointer] = bot.fake.of("chat.postEphemeral")
    params = pointer.params
    assert (
        params["user"] == EN_USER and params["thread_ts"] == root and params["channel"] == CHANNEL
    )
    text = read_text(params["blocks"])
    assert "I answered this above with" in text and ANSWERED in text
    assert "temperature 512 exceeded limit 300" in text, "the person's error line"
    assert _permalink(answer_ts) in text and "See the answer" in text
    assert ActionId.SHOW_RECORD in buttons(params["blocks"])
    assert len(text) < 600, "a pointer, not the answer again"
    assert_valid_message(params)
    assert bot.fake.of("reactions.add") == []


def test_a_chinese_question_gets_a_chinese_pointer(bot: Bot) -> None:
    root, answer_ts = _answered_thread(bot, user=ZH_USER)
    _mention(bot, root, "这个在新固件上也会出现吗？", user=ZH_USER)
    assert len(_posts(bot, root)) == 1
    [pointer] = bot.fake.of("chat.postEphemeral")
    text = read_text(pointer.params["blocks"])
    assert "我在上面已经回答过" in text and ANSWERED in text and _permalink(answer_ts) in text
    assert "查看回答" in text and "查看" in json.dumps(
        buttons(pointer.params["blocks"]), ensure_ascii=False
    )
    assert_valid_message(pointer.params)


@pytest.mark.parametrize(
    ("asker", "asked", "expect", "answered_in"),
    [
        (ZH_USER, "我也遇到了，怎么办？", "我在上面已经回答过", "The frobnicator"),
        (EN_USER, "same here, any idea why?", "I answered this above", "冷却回路"),
    ],
)
def test_another_person_in_another_language_gets_a_pointer_in_theirs(
    bot: Bot, asker: str, asked: str, expect: str, answered_in: str
) -> None:
    poster = EN_USER if asker == ZH_USER else ZH_USER
    root, answer_ts = _answered_thread(bot, user=poster)
    [answer] = _posts(bot, root)
    assert answered_in in str(answer.params["blocks"]), "answered in the poster's language"
    _mention(bot, root, asked, user=asker)
    assert len(_posts(bot, root)) == 1, "no second public answer"
    [pointer] = bot.fake.of("chat.postEphemeral")
    assert pointer.params["user"] == asker
    text = read_text(pointer.params["blocks"])
    assert expect in text and ANSWERED in text and _permalink(answer_ts) in text


@pytest.mark.parametrize("user", [EN_USER, ZH_USER])
def test_the_answered_error_pasted_again_is_pointed_at_not_answered_again(
    bot: Bot, user: str
) -> None:
    root, answer_ts = _answered_thread(bot, user=user)
    _mention(bot, root, PASTE.replace("512", "640"), user=user)
    assert len(_posts(bot, root)) == 1
    [pointer] = bot.fake.of("chat.postEphemeral")
    assert ANSWERED in read_text(pointer.params["blocks"]) and _permalink(answer_ts) in read_text(
        pointer.params["blocks"]
    )


@pytest.mark.parametrize(
    ("user", "said"),
    [(EN_USER, f"thanks! now I get this:\n{PUMP}"), (ZH_USER, f"现在又报这个错：\n{PUMP}")],
)
def test_a_mention_with_a_new_error_answers_that_error(bot: Bot, user: str, said: str) -> None:
    root, _ = _answered_thread(bot, user=user)
    _mention(bot, root, said, user=user)
    posts = _posts(bot, root)
    assert len(posts) == 2, "the new error is answered in the thread"
    assert "errkbtest/coolant-pump-stalled" in read_text(posts[1].params["blocks"])
    assert bot.fake.of("chat.postEphemeral") == [] and bot.fake.of("reactions.add") == []


@pytest.mark.parametrize(
    ("user", "expect", "link"),
    [
        (EN_USER, "I answered this above with", "See the answer"),
        (ZH_USER, "我在上面已经回答过", "查看回答"),
    ],
)
def test_the_shortcut_on_an_answered_message_points_to_the_answer_privately(
    bot: Bot, user: str, expect: str, link: str
) -> None:
    root, answer_ts = _answered_thread(bot)
    reply = _lookup(bot, root, PASTE, user=user)
    assert reply["response_type"] == "ephemeral"
    text = read_text(reply["blocks"])
    assert expect in text and ANSWERED in text and _permalink(answer_ts) in text and link in text
    assert len(_posts(bot, root)) == 1, "no second public post"
    assert_valid_message(reply)


#: What a pointer says about an error errkb did not answer, by what errkb had said of it.
UNANSWERED = {
    EN_USER: {"nothing": "errkb does not know this error yet", "unsure": "I was not sure about"},
    ZH_USER: {"nothing": "errkb 还不认识这个错误", "unsure": "没有把握"},
}


@pytest.mark.parametrize("user", [EN_USER, ZH_USER])
def test_the_shortcut_on_a_message_marked_unknown_points_to_that_reply(bot: Bot, user: str) -> None:
    root, answer_ts = _answered_thread(bot, text=UNKNOWN, mention=True)
    [said] = _posts(bot, root)
    shown = str(said.params["blocks"])
    assert "Nothing in the knowledge base" in shown or "Not sure" in shown
    reply = _lookup(bot, root, f"<@UBOT> {UNKNOWN}", user=user)
    text = read_text(reply["blocks"])
    expect = UNANSWERED[user]["nothing" if "Nothing in the knowledge base" in shown else "unsure"]
    assert expect in text and "ZorgleBlorpException" in text and _permalink(answer_ts) in text
    assert len(_posts(bot, root)) == 1


def test_a_thanks_in_a_thread_errkb_never_answered_is_not_a_turn(bot: Bot) -> None:
    root = f"1722800002.{bot.send.next_id():06d}"
    bot.fake.add_message(CHANNEL, root, "lunch at noon?")
    _mention(bot, root, "thanks!")
    assert bot.fake.of("reactions.add") == []
    [hint] = bot.fake.of("chat.postEphemeral")
    assert "could not find an error" in hint.params["text"]


def test_the_answer_keeps_what_it_covered_and_where_it_is(bot: Bot) -> None:
    root, answer_ts = _answered_thread(bot)
    with bot.store.read() as session:
        [reply] = slack_repo.thread_answers(session, channel=CHANNEL, thread_ts=root)
    assert reply.args["ts"] == answer_ts and reply.args["seen"]


@pytest.mark.parametrize("user", [EN_USER, ZH_USER])
def test_the_answered_error_pasted_again_unasked_is_left_alone(bot: Bot, user: str) -> None:
    root, _ = _answered_thread(bot)
    ts = f"1722800003.{bot.send.next_id():06d}"
    bot.send.message(PASTE.replace("512", "515"), user=user, ts=ts, thread_ts=root)
    wait_done(bot, f"msg:cm-{ts}")
    assert len(_posts(bot, root)) == 1 and bot.fake.of("chat.postEphemeral") == []
    assert bot.fake.of("reactions.add") == []
    bot.send.message(PUMP, user=user, ts=f"{ts}1", thread_ts=root)  # a new error is still answered
    bot.fake.wait_for("chat.postMessage", 2, where=lambda c: c.params.get("thread_ts") == root)
    assert len(_posts(bot, root)) == 2


@pytest.mark.parametrize(
    ("user", "expect"), [(EN_USER, "I was not sure about"), (ZH_USER, "没有把握")]
)
def test_a_question_after_uncertain_candidates_points_to_them(
    bot: Bot, user: str, expect: str
) -> None:
    root, answer_ts = _answered_thread(
        bot, text="FrobnicatorError: frobnicator core got hot", mention=True
    )
    [said] = _posts(bot, root)
    assert "Not sure" in str(said.params["blocks"]) or "没有把握" in str(said.params["blocks"])
    _mention(bot, root, "which one is it then?" if user == EN_USER else "那到底是哪个？", user=user)
    [pointer] = bot.fake.of("chat.postEphemeral")
    text = read_text(pointer.params["blocks"])
    assert expect in text and "errkbtest/" in text and _permalink(answer_ts) in text
    assert len(_posts(bot, root)) == 1


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_every_pointer_renders_valid_blocks_in_each_language(locale: str) -> None:
    link = _permalink("1700000000.000001")
    for records, sure, key in (
        ([ANSWERED], True, "thread.pointer"),
        ([ANSWERED], False, "thread.pointer.unsure"),
        ([], True, "thread.pointer.unknown"),
    ):
        payload = render_pointer(locale, records=records, line=UNKNOWN, permalink=link, sure=sure)
        assert_valid_message(payload)
        text = read_text(payload["blocks"])
        assert t(locale, key, id=f"`{ANSWERED}`", line=f"`{UNKNOWN}`") in text and link in text
    nowhere = render_pointer(locale, records=[ANSWERED], line=None, permalink=None)
    assert t(locale, "thread.pointer.nolink") in read_text(nowhere["blocks"])


def test_an_answer_whose_first_post_failed_is_still_answered_once_then_thanked(bot: Bot) -> None:
    bot.fake.fail_next(
        "chat.postMessage", 429
    )  # the first attempt stores its reply, then Slack says wait
    root = f"1722800004.{bot.send.next_id():06d}"
    bot.fake.add_message(CHANNEL, root, PASTE)
    bot.send.message(PASTE, ts=root)
    bot.fake.wait_for("chat.postMessage", 2, where=lambda c: c.params.get("thread_ts") == root)
    wait_done(bot, f"msg:cm-{root}")
    ts = _mention(bot, root, "thanks!")
    assert bot.fake.reactions.get((CHANNEL, ts)) == ["+1"]
    assert len(_posts(bot, root)) == 2, "the refused post and its retry: one answer in the thread"
