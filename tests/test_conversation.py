"""Turns of conversation in an answered thread, told apart by the extractor and the lexicons."""

from __future__ import annotations

import pytest

from bot.conversation import classify_turn
from bot.i18n import available_locales
from bot.i18n.lexicon import lexicon, lexicon_locales
from bot.match.extract import extract

PASTE = (
    'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\nValueError: '
    "invalid literal for int() with base 10: 'x'"
)
ANSWERED = frozenset(e.template for e in extract(PASTE).errors)


def test_every_locale_errkb_speaks_has_a_lexicon() -> None:
    assert set(available_locales()) <= set(lexicon_locales())
    assert all(lexicon(locale).thanks for locale in lexicon_locales())


@pytest.mark.parametrize("locale", lexicon_locales())
def test_every_thanks_of_every_lexicon_is_thanks_however_it_is_said(locale: str) -> None:
    for phrase in sorted(lexicon(locale).thanks):
        for said in (
            phrase,
            f"<@UBOT> {phrase}!",
            f"<@UBOT> {phrase.upper()} :pray:",
            f"{phrase}。",
        ):
            assert classify_turn(said, answered=ANSWERED) == "thanks", said


@pytest.mark.parametrize(
    "said",
    [
        "thanks a lot!",
        "thank you so much",
        "Thanks, that fixed it 🙏",
        "ok thanks",
        "谢谢",
        "多谢，解决了",
        "非常感谢！",
        "好的，谢谢你",
        "<@UBOT> :pray:",
        "ty :+1:",
    ],
)
def test_thanks(said: str) -> None:
    assert classify_turn(f"<@UBOT> {said}", answered=ANSWERED) == "thanks"


@pytest.mark.parametrize(
    "said", ["<@UBOT>", "<@UBOT>   ", "<@UBOT> …", "<@UBOT> :eyes:", "<@UBOT> !!"]
)
def test_bare(said: str) -> None:
    assert classify_turn(said, answered=ANSWERED) == "bare"


@pytest.mark.parametrize(
    "said",
    [
        "thanks, but it still fails",
        "does this apply to 0.5?",
        "ok?",
        "what about Windows",
        "谢谢，但是还是不行",
        "这个在 0.5 版本也会出现吗？",
        "为什么会这样",
        "we still get the error after a restart",
    ],
)
def test_anything_else_is_a_question(said: str) -> None:
    assert classify_turn(f"<@UBOT> {said}", answered=ANSWERED) == "question"


def test_the_answered_error_again_is_a_question_and_a_new_one_an_error() -> None:
    assert classify_turn(PASTE.replace("'x'", "'y'"), answered=ANSWERED) == "question"
    assert classify_turn("thanks! now: KeyError: 'missing_column'", answered=ANSWERED) == "error"
    assert (
        classify_turn("谢谢！现在又报：\nKeyError: 'missing_column'", answered=ANSWERED) == "error"
    )
    assert classify_turn(PASTE, answered=frozenset()) == "error", "in a thread that never saw it"
