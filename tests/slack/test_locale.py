"""Choosing the reply's language: pure, in the documented order."""

from __future__ import annotations

import pytest

from bot.i18n import negotiate_locale, t


@pytest.mark.parametrize(
    "choice,slack,channel,paste,expected",
    [
        ("zh", "en-US", "en", "", "zh"),  # the user's own choice wins
        ("auto", "zh-CN", None, "", "zh"),  # auto: the Slack locale; any zh-* is Chinese
        (None, "zh-TW", None, "", "zh"),
        (
            None,
            "en-GB",
            "zh",
            "我的程序报错了",
            "en",
        ),  # a Slack locale errkb speaks beats the channel
        (None, "ja-JP", "zh", "", "zh"),  # one it doesn't: the channel's default
        (None, None, None, "我的程序报错了，怎么办？", "zh"),  # then the paste's own language
        (None, None, None, "RuntimeError: boom", "en"),
        ("klingon", "fr-FR", "de", "", "en"),
    ],
)
def test_negotiate_locale(
    choice: str | None, slack: str | None, channel: str | None, paste: str, expected: str
) -> None:
    assert negotiate_locale(choice, slack, channel, paste) == expected


def test_translate_falls_back_to_english_for_unknown_locales() -> None:
    assert t("fr", "button.share") == "Share in channel"
    assert t("zh-CN", "button.share") == "分享到频道"
    assert t("en", "answer.observed", fixed=7, total=9) == "7 of 9 here"
