"""Token rotation for work outside Bolt's request path: a job (here a welcome queued without a
request, as after a restart) refreshes its workspace's expiring bot token through the stand-in's
``oauth.v2.access`` (``grant_type=refresh_token``), saves it for everyone, and sends the new one."""

from __future__ import annotations

from typing import Any

import pytest

from bot.slack.queue.jobs import JobKind, WelcomeJob
from tests.slack.conftest import Bot
from tests.slack.fake_slack import FakeSlack, Grant
from tests.slack.install_flow import install
from tests.slack.standalone import standalone
from tests.slack.test_uninstall import CLIENT, _paste, installed

TEAM = "T3ROTATE"
TOKEN_0 = "xoxb-3-rotating"
REFRESH_0 = "xoxe-1-refresh"


def _welcome(own: Any, key: str, channel: str) -> None:
    """Queue a welcome for TEAM the way the intake does, outside any Slack request."""
    assert (
        own.slack_bot.intake.submit(
            JobKind.WELCOME, WelcomeJob(channel=channel), key=key, team_id=TEAM, channel=channel
        )
        is None
    )


@pytest.mark.slow
def test_a_job_refreshes_an_expiring_token_and_sends_the_new_one(
    bot: Bot, fake_slack: FakeSlack, blank_database_url: str
) -> None:
    # installed with a token that expires in ten minutes: due for refreshing at its next use
    fake_slack.grants["code-rot"] = Grant(
        team_id=TEAM, token=TOKEN_0, refresh_token=REFRESH_0, expires_in=600
    )
    try:
        with standalone(bot.records, fake_slack, blank_database_url, **CLIENT) as own:
            assert install(own.url, "code-rot").status == 200
            assert installed(own) == [(TEAM, TOKEN_0), (TEAM, TOKEN_0)]
            fake_slack.reset()

            _welcome(own, "welcome-rot-1", "CROT1")
            [post] = fake_slack.wait_for(
                "chat.postMessage", where=lambda c: c.params.get("channel") == "CROT1"
            )
            [refresh] = fake_slack.of("oauth.v2.access")
            assert (
                refresh.params["grant_type"] == "refresh_token"
                and refresh.params["refresh_token"] == REFRESH_0
            )
            new_token = fake_slack.grants["code-rot"].token
            assert new_token != TOKEN_0
            assert post.headers["Authorization"] == f"Bearer {new_token}"
            assert installed(own) == [
                (TEAM, new_token),
                (TEAM, new_token),
            ]  # saved for requests and replicas

            # the new token lives twelve hours: the next job uses it as it is
            _welcome(own, "welcome-rot-2", "CROT2")
            [again] = fake_slack.wait_for(
                "chat.postMessage", where=lambda c: c.params.get("channel") == "CROT2"
            )
            assert again.headers["Authorization"] == f"Bearer {new_token}"
            assert len(fake_slack.of("oauth.v2.access")) == 1
            sent = {
                c.headers.get("Authorization")
                for c in fake_slack.calls
                if c.method != "oauth.v2.access"
            }
            assert sent == {f"Bearer {new_token}"}  # the expiring token was never sent again
    finally:
        fake_slack.grants.clear()


@pytest.mark.slow
def test_a_request_refreshes_through_slack_api_url_too(
    bot: Bot, fake_slack: FakeSlack, blank_database_url: str
) -> None:
    """Bolt's own authorize refreshed through slack.com whatever SLACK_API_URL said."""
    fake_slack.grants["code-rot"] = Grant(
        team_id=TEAM, token=TOKEN_0, refresh_token=REFRESH_0, expires_in=600
    )
    try:
        with standalone(bot.records, fake_slack, blank_database_url, **CLIENT) as own:
            assert install(own.url, "code-rot").status == 200
            fake_slack.reset()
            assert _paste(own, TEAM, "1722500500.000001") == 200
            [post] = fake_slack.wait_for("chat.postMessage")
            assert [c.params["grant_type"] for c in fake_slack.of("oauth.v2.access")] == [
                "refresh_token"
            ]
            assert (
                post.headers["Authorization"]
                == f"Bearer {fake_slack.grants['code-rot'].token}"
                != f"Bearer {TOKEN_0}"
            )
    finally:
        fake_slack.grants.clear()


@pytest.mark.slow
def test_the_digest_of_a_multi_workspace_install_refreshes_its_workspaces_token(
    bot: Bot, fake_slack: FakeSlack, blank_database_url: str
) -> None:
    from datetime import UTC, datetime

    from bot.clock import FixedClock
    from bot.digest.jobs import DigestSender
    from bot.settings import Settings
    from bot.slack.adapter.install import WorkspacePoster
    from graph.build import build_graph

    fake_slack.grants["code-rot"] = Grant(
        team_id=TEAM, token=TOKEN_0, refresh_token=REFRESH_0, expires_in=600
    )
    try:
        with standalone(bot.records, fake_slack, blank_database_url, **CLIENT) as own:
            assert install(own.url, "code-rot").status == 200
            fake_slack.reset()
            settings = Settings(
                database_url=blank_database_url,
                digest_channel="CDIGEST",
                digest_team=TEAM,
                _env_file=None,
            )  # type: ignore[call-arg]
            poster = WorkspacePoster(own.slack_bot.gateway, own.slack_bot.runner.authorize, TEAM)
            monday = datetime(
                2025, 8, 4, 9, 0, 5, tzinfo=UTC
            )  # just after the default cron's 09:00 Monday
            graph = build_graph(bot.records)
            sender = DigestSender(
                settings=settings,
                store=own.store,
                gateway=poster,
                graph=lambda: graph,
                clock=FixedClock(monday),
            )
            assert sender.run_due() == ["channel:CDIGEST"]
            [post] = fake_slack.of("chat.postMessage")
            assert [c.params["grant_type"] for c in fake_slack.of("oauth.v2.access")] == [
                "refresh_token"
            ]
            assert post.headers["Authorization"] == f"Bearer {fake_slack.grants['code-rot'].token}"
            assert post.headers["Authorization"] != f"Bearer {TOKEN_0}"
    finally:
        fake_slack.grants.clear()


class _StaleOnce:
    """The installation store, whose first read is the installation from before another refresh."""

    def __init__(self, store: Any, stale: Any) -> None:
        self.store = store
        self.stale = stale

    def find_installation(self, **kwargs: Any) -> Any:
        stale = self.stale
        self.stale = None
        return stale or self.store.find_installation(**kwargs)

    def save(self, installation: Any) -> None:
        self.store.save(installation)


@pytest.mark.slow
def test_a_job_that_loses_the_refresh_race_takes_the_token_the_winner_saved(
    bot: Bot, fake_slack: FakeSlack, blank_database_url: str
) -> None:
    from bot.slack.adapter.install import JobTokens

    fake_slack.grants["code-rot"] = Grant(
        team_id=TEAM, token=TOKEN_0, refresh_token=REFRESH_0, expires_in=600
    )
    try:
        with standalone(bot.records, fake_slack, blank_database_url, **CLIENT) as own:
            assert install(own.url, "code-rot").status == 200
            tokens = own.slack_bot.runner.authorize
            assert isinstance(tokens, JobTokens)
            before = tokens.installations.find_installation(enterprise_id=None, team_id=TEAM)
            winner = tokens(TEAM)  # one refresh goes first and saves its token
            assert winner != TOKEN_0
            stale = _StaleOnce(tokens.installations, before)
            loser = JobTokens(stale, tokens.rotator)  # type: ignore[arg-type]
            assert (
                loser(TEAM) == winner
            )  # its refresh token was spent: it reads what the winner saved
            refreshes = fake_slack.of("oauth.v2.access")[1:]
            assert [c.params["refresh_token"] for c in refreshes] == [REFRESH_0, REFRESH_0]
    finally:
        fake_slack.grants.clear()
