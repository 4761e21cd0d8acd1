"""Once ``errkb serve --http`` listens it names each URL the Slack app's configuration needs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.ops.conftest import ServeProcess


def settings_lines(bot: ServeProcess) -> dict[str, str]:
    return {r["setting"]: r["url"] for r in bot.records() if "setting" in r and "url" in r}


@pytest.mark.slow
def test_serve_prints_the_request_urls_at_the_address_it_binds(serve: Any) -> None:
    bot: ServeProcess = serve().listening()
    bot.wait_for_line("Interactivity")
    urls = settings_lines(bot)
    events = f"http://127.0.0.1:{bot.port}/slack/events"
    assert urls == {
        "Event Subscriptions → Request URL": events,
        "Slash Commands → /errkb → Request URL": events,
        "Interactivity & Shortcuts → Request URL": events,
    }
    bot.terminate()
    assert bot.wait() == 0


@pytest.mark.slow
def test_a_multi_workspace_install_gets_its_public_oauth_urls_too(serve: Any) -> None:
    bot: ServeProcess = serve(
        SLACK_BOT_TOKEN="",
        SLACK_CLIENT_ID="1.2",
        SLACK_CLIENT_SECRET="client-secret",
        ERRKB_SECRET_KEY="zrhl8QamLKGBNKS3UZa7yKBc8QRmcauK0pvn6iW55tg=",
        SLACK_REDIRECT_URI="https://errkb.example.com/slack/oauth_redirect",
    ).listening()
    bot.wait_for_line("install page")
    urls = settings_lines(bot)
    assert urls["Event Subscriptions → Request URL"] == "https://errkb.example.com/slack/events"
    assert (
        urls["OAuth & Permissions → Redirect URLs"]
        == "https://errkb.example.com/slack/oauth_redirect"
    )
    assert urls["install page for each workspace"] == "https://errkb.example.com/slack/install"
    bot.terminate()
    assert bot.wait() == 0
