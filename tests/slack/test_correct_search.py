"""**Not this error** searches the whole knowledge base: an ``external_select`` whose options
errkb serves over signed HTTP (``block_suggestion``), labelled in full words, beside the top
candidates; a record chosen by search is what errkb learns."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from slack_sdk.models.blocks import Option
from sqlalchemy import delete, select

from bot.render.correct import OPTION_TEXT, option_label, shorten
from bot.render.ids import ActionId, BlockId, InputId
from bot.store.models import AuditRow, CorrectionRow
from tests.slack.blockkit import assert_valid_view, read_text
from tests.slack.conftest import EN_USER, ZH_USER, Bot
from tests.slack.test_corrections import OTHER, RIGHT, WRONG, _answer, _click

#: No candidate for the frobnicator paste: found by search only.
SEARCHED = "llm/torch-cuda-out-of-memory"


@pytest.fixture(autouse=True)
def _forget_corrections(request: pytest.FixtureRequest) -> Iterator[None]:
    """The audit log outlives a test (the package's tables are kept): drop what these taught."""
    yield
    if "bot" in request.fixturenames:
        bot: Bot = request.getfixturevalue("bot")
        with bot.store.transaction() as session:
            session.execute(delete(AuditRow).where(AuditRow.action == "correction"))


def _open_modal(bot: Bot, user: str = EN_USER) -> tuple[str, dict[str, Any]]:
    answer_ts, first = _answer(bot)
    _click(bot, first, ActionId.NOT_THIS, answer_ts, user=user)
    [opened] = bot.fake.wait_for("views.open")
    return answer_ts, opened.params["view"]


def _suggest(bot: Bot, view: dict[str, Any], typed: str, user: str = EN_USER, **kwargs: Any) -> Any:
    payload = {
        "type": "block_suggestion",
        "team": {"id": "T1"},
        "user": {"id": user},
        "api_app_id": "A1",
        "action_id": InputId.SEARCH,
        "block_id": BlockId.CORRECT_SEARCH,
        "value": typed,
        "view": {"id": "V9", "type": "modal", "private_metadata": view["private_metadata"]},
    }
    return bot.send.interactive(payload, **kwargs)


def _labels(response: Any) -> dict[str, str]:
    """The options Slack got, checked with slack_sdk's own model (text at most 75 characters)."""
    assert response.status == 200
    options = response.json()["options"]
    for option in options:
        Option(label=option["text"]["text"], value=option["value"]).validate_json()
    return {o["value"]: o["text"]["text"] for o in options}


def _in_whole_words(shown: str, line: str) -> bool:
    """``shown`` is the end of ``line`` from some word on, or a part of it that stops at a word
    boundary, then an ellipsis: never a word cut in two."""
    kept = shown.removesuffix("…")
    at = line.find(kept)
    if not kept or at < 0:
        return False
    rest = line[at + len(kept) :]
    if not rest:
        return shown == kept
    cjk = "\u3400" <= kept[-1] <= "\u9fff" or "\uff00" <= kept[-1] <= "\uffef"
    return shown.endswith("…") and (
        rest[0] in " ,;:/).…，。：；" or kept[-1] in ",;:/)，。：；" or cjk
    )


def test_the_modal_offers_a_search_beside_the_candidates(bot: Bot) -> None:
    _, view = _open_modal(bot)
    assert_valid_view(view)
    [search] = [b for b in view["blocks"] if b.get("block_id") == BlockId.CORRECT_SEARCH]
    assert (
        search["element"]["type"] == "external_select"
        and search["element"]["action_id"] == InputId.SEARCH
    )
    assert search["optional"] is True and "search the knowledge base" in search["label"]["text"]
    [choice] = [b for b in view["blocks"] if b.get("block_id") == BlockId.CORRECT_CHOICE]
    labels = [o["text"]["text"] for o in choice["element"]["options"]]
    assert any(label.startswith(RIGHT + " — ") for label in labels), labels
    assert all(len(label) <= OPTION_TEXT for label in labels)


def test_the_options_endpoint_answers_a_search_with_full_word_labels(bot: Bot) -> None:
    _, view = _open_modal(bot)
    labels = _labels(_suggest(bot, view, "cuda out of memory"))
    assert SEARCHED in labels and WRONG not in labels, "the wrong answer is not offered again"
    for record_id, label in labels.items():
        head, _, shown = label.partition(" — ")
        record = next(r for r in bot.records if r.id == record_id)
        line = " ".join(str(record.signature).strip().splitlines()[0].split())
        assert head == record_id and len(label) <= OPTION_TEXT
        assert _in_whole_words(shown, line), (label, line)


def test_a_record_id_typed_whole_comes_first(bot: Bot) -> None:
    _, view = _open_modal(bot)
    labels = _labels(_suggest(bot, view, RIGHT))
    assert next(iter(labels)) == RIGHT


def test_a_chinese_modal_searches_in_chinese_and_labels_in_chinese(bot: Bot) -> None:
    _, view = _open_modal(bot, user=ZH_USER)
    assert "或者搜索知识库" in json.dumps(view, ensure_ascii=False)
    labels = _labels(_suggest(bot, view, "显存不足", user=ZH_USER))
    assert SEARCHED in list(labels)[:3]  # several records are about GPU memory
    record = next(r for r in bot.records if r.id == SEARCHED)
    line = " ".join(str(record.localized("zh").signature).strip().splitlines()[0].split())
    head, _, shown = labels[SEARCHED].partition(" — ")
    assert head == SEARCHED and "显存不足" in shown and _in_whole_words(shown, line), shown


def test_nothing_found_is_no_options_not_an_error(bot: Bot) -> None:
    _, view = _open_modal(bot)
    assert _labels(_suggest(bot, view, "qwzxv blorpt")) == {}


def test_a_forged_or_malformed_options_request_is_refused(bot: Bot) -> None:
    _, view = _open_modal(bot)
    assert _suggest(bot, view, "cuda", secret="not-the-secret").status == 401
    broken = {**view, "private_metadata": "not state"}
    assert _suggest(bot, broken, "cuda").status == 400


def _submit_search(bot: Bot, view: dict[str, Any], record_id: str) -> Any:
    body = {
        "type": "view_submission",
        "team": {"id": "T1"},
        "user": {"id": EN_USER},
        "api_app_id": "A1",
        "view": {
            **view,
            "id": f"V{bot.send.next_id()}",
            "state": {
                "values": {
                    BlockId.CORRECT_CHOICE: {
                        InputId.VALUE: {"type": "radio_buttons", "selected_option": None}
                    },
                    BlockId.CORRECT_SEARCH: {
                        InputId.SEARCH: {
                            "type": "external_select",
                            "selected_option": {"value": record_id},
                        }
                    },
                }
            },
        },
    }
    return bot.send.interactive(body)


def test_choosing_a_searched_record_records_the_correction(bot: Bot) -> None:
    answer_ts, view = _open_modal(bot)
    assert _submit_search(bot, view, SEARCHED).status == 200
    [corrected] = bot.fake.wait_for("chat.update", where=lambda c: c.params["ts"] == answer_ts)
    text = read_text(corrected.params["blocks"])
    assert f"this is `{SEARCHED}`" in text and WRONG not in text
    with bot.store.read() as session:
        [row] = session.scalars(select(CorrectionRow)).all()
    assert (row.record_id, row.wrong_id) == (SEARCHED, WRONG)
    _, again = _answer(bot, OTHER, temp=777)
    assert SEARCHED in read_text(again["blocks"]), "the next paste of the error is answered with it"


@pytest.mark.parametrize("chosen", ["errkbtest/no-such-record", "x" * 400])
def test_a_searched_record_that_does_not_exist_is_an_error_in_the_modal(
    bot: Bot, chosen: str
) -> None:
    _, view = _open_modal(bot)
    response = _submit_search(bot, view, chosen)
    assert response.status == 200
    body = response.json()
    assert (
        body["response_action"] == "errors"
        and "no record" in body["errors"][BlockId.CORRECT_SEARCH]
    )
    with bot.store.read() as session:
        assert session.scalars(select(CorrectionRow)).all() == []


@given(
    st.text(alphabet=st.sampled_from("ab cd: 内存。,xyz"), max_size=200),
    st.integers(min_value=8, max_value=120),
)
def test_a_shortened_text_fits_and_is_a_prefix_ending_at_a_word(text: str, limit: int) -> None:
    shown = shorten(text, limit)
    assert len(shown) <= limit
    if shown != text:
        kept = shown.removesuffix("…")
        assert shown.endswith("…") and text.startswith(kept)


@pytest.mark.parametrize(
    ("record_id", "line", "expected"),
    [
        (
            "errkbtest/frobnicator-underheat",
            (
                "frobnicate.errors.FrobnicatorUnderheatError: "
                "frobnicator core temperature 12 below minimum 40"
            ),
            "errkbtest/frobnicator-underheat — FrobnicatorUnderheatError: frobnicator…",
        ),
        ("python/key-error", "KeyError: 'x'", "python/key-error — KeyError: 'x'"),
        (
            "llm/x",
            (
                "RuntimeError: 内存不足错误：无法为KV缓存块分配内存。"
                "请求块大小：16，空闲块：0，并且这是一个很长的中文错误行需要被截断"
            ),
            (
                "llm/x — RuntimeError: 内存不足错误：无法为KV缓存块分配内存。"
                "请求块大小：16，空闲块：0，并且这是一个很长的中文错误行需要被…"
            ),
        ),
    ],
)
def test_option_labels(record_id: str, line: str, expected: str) -> None:
    assert option_label(record_id, line) == expected and len(expected) <= OPTION_TEXT
