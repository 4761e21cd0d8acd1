"""``app_uninstalled`` and ``tokens_revoked``: a workspace took errkb's tokens back.

What it means: the installation is removed (a multi-workspace install's row
in the installation store; a single-workspace install's token is marked
revoked in :mod:`bot.slack.adapter.link`, and ``/healthz`` says so); the work still
queued for that workspace ends quietly when a worker takes it (the runner's
token lookup raises :class:`~bot.errors.SlackUninstalled`), so nothing is
sent or retried with a dead token; the knowledge base and what people
taught it stay. Bolt calls no ``authorize`` for these two events, so they
arrive even when the token is already dead.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from slack_sdk.oauth.installation_store import InstallationStore

from bot.slack.adapter.link import SlackLink

log = logging.getLogger(__name__)

#: The context key the middleware puts the :class:`Revocations` under: Bolt gives it to
#: every listener with a parameter of that name.
CONTEXT_KEY = "revocations"


class Revocations:
    """Forget a workspace's tokens: ``installations`` (multi-workspace) or ``link`` (single)."""

    def __init__(self, *, installations: InstallationStore | None, link: SlackLink | None) -> None:
        self.installations = installations
        self.link = link

    def uninstalled(self, *, team_id: str | None, enterprise_id: str | None) -> None:
        log.warning("errkb was uninstalled from a workspace", extra={"request_team": team_id})
        if self.link is not None:
            self.link.revoke("app_uninstalled")
        if self.installations is not None and team_id:
            self.installations.delete_all(enterprise_id=enterprise_id, team_id=team_id)

    def revoked(
        self,
        *,
        team_id: str | None,
        enterprise_id: str | None,
        bots: Sequence[str],
        users: Sequence[str],
    ) -> None:
        """``tokens_revoked``: ``bots`` are the bot users whose tokens went, ``users`` the
        people's."""
        if bots:
            log.warning("a workspace revoked errkb's bot token", extra={"request_team": team_id})
            if self.link is not None:
                self.link.revoke("tokens_revoked")
            if self.installations is not None and team_id:
                # errkb asks for no user scopes: its installation is its bot, so all of it goes
                # (Bolt's authorize would still find the bot token in the installation row)
                self.installations.delete_all(enterprise_id=enterprise_id, team_id=team_id)
        elif self.installations is not None and team_id:
            for user in users:
                self.installations.delete_installation(
                    enterprise_id=enterprise_id, team_id=team_id, user_id=user
                )
