"""``/errkb channel``: each channel's mode, threshold and language, kept in the database,
changed by maintainers and the channel's creator, shown in ``/errkb help``."""

from __future__ import annotations

import json

from bot.channels import THRESHOLDS, ChannelSettings, Mode
from bot.match.features import VOLUNTEER
from bot.store import channel_repo, slack_repo
from tests.slack.blockkit import assert_valid_message
from tests.slack.conftest import CHANNEL, EN_USER, MAINTAINER, PASTE, ZH_USER, Bot, Counted
from tests.slack.fake_slack import Call

NO_LOCALE = "UNOLOCALE"  # Slack does not say this person's language


def _respond(bot: Bot, text: str, user: str = EN_USER, channel: str = CHANNEL) -> Call:
    creators = dict(bot.fake.creators)
    bot.fake.reset()
    bot.fake.creators.update(creators)
    assert bot.send.command(text, user=user, channel=channel).status == 200
    [call] = bot.fake.wait_for("response_url")
    assert call.params["response_type"] == "ephemeral"
    assert_valid_message(call.params)
    return call


def _shown(call: Call) -> str:
    return json.dumps(call.params["blocks"], ensure_ascii=False)


def _settings(bot: Bot) -> ChannelSettings:
    with bot.store.read() as session:
        return channel_repo.channel_settings(session, channel=CHANNEL)


def test_a_channel_nobody_configured_shows_the_defaults_and_how_to_change_them(bot: Bot) -> None:
    shown = _shown(_respond(bot, "channel"))
    assert (
        "*On*" in shown
        and f"*normal* (a match needs a score of {round(VOLUNTEER * 100)} % or more)" in shown
    )
    assert "automatic" in shown and "/errkb channel threshold strict|normal|eager" in shown
    assert "the person who created the channel" in shown


def test_someone_else_is_refused_and_nothing_changes(bot: Bot) -> None:
    call = _respond(bot, "channel off")
    assert (
        "only knowledge-base maintainers and the person who created this channel"
        in call.params["text"]
    )
    assert _settings(bot).mode is Mode.ON and not _settings(bot).configured


def test_a_maintainer_quiets_a_channel(bot: Bot) -> None:
    call = _respond(bot, "channel quiet", user=MAINTAINER)
    assert "Saved." in call.params["text"] and "*Quiet*" in _shown(call)
    found = _settings(bot)
    assert found.mode is Mode.QUIET and found.updated_by == MAINTAINER
    assert not found.may_post(asked=False) and found.may_post(asked=True)


def test_the_channels_creator_sets_the_threshold(bot: Bot) -> None:
    bot.fake.creators[CHANNEL] = EN_USER
    strict = round(THRESHOLDS["strict"] * 100)
    assert f"*strict* (a match needs a score of {strict} % or more)" in _shown(
        _respond(bot, "channel threshold strict")
    )
    assert _settings(bot).min_score == THRESHOLDS["strict"]
    assert "*custom* (a match needs a score of 62 % or more)" in _shown(
        _respond(bot, "channel threshold 62%")
    )
    assert (
        _settings(bot).threshold == 0.62 and _settings(bot).mode is Mode.ON
    )  # the mode is untouched
    _respond(bot, "channel threshold normal")
    assert _settings(bot).threshold is None


def test_the_channels_language_is_for_people_whose_own_errkb_does_not_know(bot: Bot) -> None:
    _respond(bot, "channel lang zh", user=MAINTAINER)
    assert _settings(bot).locale == "zh"
    help_text = _shown(_respond(bot, "help", user=NO_LOCALE))
    assert "errkb 在本频道：*开启*" in help_text and "语言 *中文*" in help_text
    assert "In this channel" in _shown(
        _respond(bot, "help", user=EN_USER)
    )  # their Slack language wins
    _respond(bot, "channel lang auto", user=MAINTAINER)
    assert _settings(bot).locale is None
    assert "In this channel errkb is *on*" in _shown(_respond(bot, "help", user=NO_LOCALE))


def test_help_shows_how_errkb_answers_in_this_channel(bot: Bot) -> None:
    _respond(bot, "channel off", user=MAINTAINER)
    shown = _shown(_respond(bot, "help"))
    assert "/errkb channel [on|quiet|off|threshold …|lang …]" in shown
    assert "In this channel errkb is *off* · threshold *normal*" in shown
    assert "errkb 在本频道：*关闭*" in _shown(_respond(bot, "help", user=ZH_USER))


def test_arguments_errkb_does_not_understand_get_usage(bot: Bot) -> None:
    assert (
        "A threshold is a preset or a percentage"
        in _respond(bot, "channel threshold 300", user=MAINTAINER).params["text"]
    )
    assert (
        "does not speak that language"
        in _respond(bot, "channel lang klingon", user=MAINTAINER).params["text"]
    )
    assert (
        "I did not understand" in _respond(bot, "channel volume 11", user=MAINTAINER).params["text"]
    )
    assert not _settings(bot).configured


def test_a_direct_message_has_no_channel_settings(bot: Bot) -> None:
    call = _respond(bot, "channel off", user=MAINTAINER, channel="D0ERRKB")
    assert "Channel settings are for channels" in call.params["text"]
    assert "In this channel" not in _shown(_respond(bot, "help", channel="D0ERRKB"))


# -- what the settings do to pastes --------------------------------------------------

UNSURE = "FrobnicatorError: frobnicator core got hot"  # a weak match: below the normal threshold


def _set(bot: Bot, words: str) -> None:
    bot.fake.creators[CHANNEL] = EN_USER
    assert "Saved." in _respond(bot, f"channel {words}").params["text"]
    bot.fake.reset()


def _mention(bot: Bot, text: str, ts: str) -> None:
    bot.send.event(
        {
            "type": "app_mention",
            "channel": CHANNEL,
            "user": EN_USER,
            "ts": ts,
            "text": f"<@UBOT> {text}",
            "client_msg_id": f"cm-{ts}",
        }
    )


def test_a_quiet_channel_is_answered_only_when_someone_asks(bot: Bot, counted: Counted) -> None:
    _set(bot, "quiet")
    bot.send.message(PASTE)
    bot.fake.wait_for("chat.postMessage", timeout=1.5)  # give an answer every chance to appear
    assert bot.fake.of("chat.postMessage") == [], "nobody asked: errkb keeps quiet"
    assert counted.value("errkb_declines_total", reason="channel_quiet") == 1
    with bot.store.read() as session:
        assert slack_repo.unknown_errors(session) == [], "a known error is not queued as unknown"
    _mention(bot, PASTE, "1722500100.000001")
    [post] = bot.fake.wait_for("chat.postMessage")
    assert post.params["thread_ts"] == "1722500100.000001"
    assert "Prime the coolant loop" in post.params["text"]


def test_an_off_channel_gets_nothing_in_public_and_the_asker_an_answer_only_they_see(
    bot: Bot,
) -> None:
    _set(bot, "off")
    bot.send.message(PASTE)
    _mention(bot, PASTE, "1722500101.000001")
    [private] = bot.fake.wait_for("chat.postEphemeral")
    assert private.params["user"] == EN_USER and "Prime the coolant loop" in private.params["text"]
    assert bot.fake.of("chat.postMessage") == [], "nothing is posted for the whole channel"


def test_an_eager_threshold_volunteers_weaker_matches_and_normal_does_not(bot: Bot) -> None:
    bot.send.message(UNSURE)
    bot.fake.wait_for("chat.postMessage", timeout=1.5)
    assert bot.fake.of("chat.postMessage") == [], "below the normal threshold nobody is bothered"
    _set(bot, "threshold 10%")
    _, ts = bot.send.message(UNSURE)
    [post] = bot.fake.wait_for("chat.postMessage")
    assert post.params["thread_ts"] == ts and "errkbtest/frobnicator-underheat" in str(
        post.params["blocks"]
    )
