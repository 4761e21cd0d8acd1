"""The pure parts of the Slack surfaces: what counts as "it worked", a reply as a workaround,
what an edit added, whose message an alert is."""

from __future__ import annotations

import pytest

from bot.alerts import alert_text, is_errkb_message, source_app
from bot.edits import added_errors, edit_key
from bot.fixes import fix_workaround, says_it_worked

ERROR = (
    "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization`."
)


@pytest.mark.parametrize(
    "text",
    [
        "that worked, thanks!",
        "Works now 🎉",
        "fixed it, cheers",
        "Solved.",
        "好了，谢谢",
        "可以了！",
        "解决了👍",
        "这个管用",
    ],
)
def test_saying_it_worked(text: str) -> None:
    assert says_it_worked(text)


@pytest.mark.parametrize(
    "text",
    [
        "that has not worked",
        "it still isn't fixed",
        "还是没解决",
        "不管用",
        "没好",
        "worked yesterday\n" + ERROR,
        "framework",
        "thanks",
        "is it solved? " * 30,
    ],
)
def test_not_saying_it_worked(text: str) -> None:
    assert not says_it_worked(text)


def test_a_reply_becomes_a_workaround_with_its_code_as_how() -> None:
    assert fix_workaround(
        "Bump it:\n```python\nllm = LLM(gpu_memory_utilization=0.8)\n```\nthen restart"
    ) == ("Bump it: then restart", "llm = LLM(gpu_memory_utilization=0.8)")
    assert fix_workaround("run `pip install -U vllm` and retry") == (
        "run `pip install -U vllm` and retry",
        "pip install -U vllm",
    )
    assert fix_workaround("restart the worker") == ("restart the worker", "")


def test_an_edit_adds_only_errors_the_old_text_lacked() -> None:
    assert added_errors("looking into it", ERROR)
    assert added_errors(ERROR, ERROR + "\nanyway") == []
    assert added_errors(ERROR, "nvm") == []
    key = edit_key("C1", "1.0", added_errors("", ERROR))
    assert key == edit_key("C1", "1.0", added_errors("hi", ERROR)) and key != edit_key(
        "C1", "2.0", ["x"]
    )


def test_errkbs_messages_are_known_by_bot_app_metadata_or_ids() -> None:
    own = {"bot_id": "BME", "blocks": []}
    ids = {
        "bot_id": "BOTHER",
        "blocks": [{"type": "actions", "elements": [{"action_id": "errkb.vote.fixed"}]}],
    }
    meta = {"bot_id": "BOTHER", "metadata": {"event_type": "errkb_answer"}}
    app = {"bot_id": "BOTHER", "bot_profile": {"app_id": "AME"}}
    other = {
        "bot_id": "BSENTRY",
        "bot_profile": {"app_id": "ASENTRY", "name": "Sentry"},
        "text": ERROR,
    }
    mine = {"bot_ids": ["BME"], "app_ids": ["AME"], "marker_events": ["errkb_answer"]}
    assert all(is_errkb_message(m, **mine) for m in (own, ids, meta, app))  # type: ignore[arg-type]
    assert not is_errkb_message(other, **mine)  # type: ignore[arg-type]
    assert source_app(other) == "Sentry" and source_app({"username": "Datadog"}) == "Datadog"


def test_alert_text_reads_links_tags_labels_and_skips_a_repeating_fallback() -> None:
    message = {
        "text": f":red_circle: [prod] *<https://x.io/1|{ERROR}>*",
        "attachments": [
            {
                "fallback": "ignored when the rest is there",
                "title": "t",
                "text": f"• *Details:* {ERROR} (again)",
            }
        ],
    }
    text = alert_text(message)
    assert text.splitlines()[0] == ERROR and "ignored" not in text
    assert f"{ERROR} (again)" in text.splitlines()
    assert alert_text({"attachments": [{"fallback": ERROR}]}) == ERROR
