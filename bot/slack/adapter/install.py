"""Multi-workspace install (OAuth): Bolt's OAuth flow on slack_sdk's SQLAlchemy stores.

With ``SLACK_CLIENT_ID`` and ``SLACK_CLIENT_SECRET`` set, ``GET /slack/install``
redirects to Slack's authorize page (with a state kept in the database and a
cookie), ``GET /slack/oauth_redirect`` exchanges the code (``oauth.v2.access``)
and stores the installation, and each request is then answered with the
installing workspace's bot token. Installations and states live in errkb's
own database (tables from migration 0004), so every replica sees them; their
tokens are encrypted with ``ERRKB_SECRET_KEY`` (:mod:`bot.store.secrets`).

With token rotation (the manifest's ``token_rotation_enabled``) a bot token
expires and its refresh token buys the next one (``oauth.v2.access`` with
``grant_type=refresh_token``). Bolt's authorize does that for each request;
:class:`JobTokens` does the same for work outside a request (the job
runner, and through :class:`WorkspacePoster` the digest), so nothing sends an
expired token.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from slack_bolt.authorization.authorize import InstallationStoreAuthorize
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk import WebClient
from slack_sdk.errors import SlackRequestError, SlackTokenRotationError
from slack_sdk.oauth.installation_store import Installation, InstallationStore
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from slack_sdk.oauth.token_rotation.rotator import TokenRotator
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from bot.errors import ConfigError, SlackUnavailable, SlackUninstalled, StorageUnavailable
from bot.settings import Settings
from bot.slack.adapter import scope
from bot.slack.adapter.gateway import TRANSIENT_ERRORS, Sent, SlackGateway
from bot.slack.adapter.tls import client_context
from bot.store.db import Store
from bot.store.oauth import BOTS, INSTALLATIONS, STATES
from bot.store.secrets import EncryptedInstallationStore, TokenCipher

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
STATE_SECONDS = 600
#: A bot token is refreshed when it expires within this many minutes (Bolt's default).
ROTATE_MINUTES = 120


def oauth_settings(settings: Settings, store: Store) -> OAuthSettings | None:
    """Bolt's OAuth settings for a multi-workspace install; None for a single-workspace token."""
    if settings.slack_client_id is None or settings.slack_client_secret is None:
        return None
    logger = logging.getLogger("bot.slack.bolt")
    client_id = settings.slack_client_id
    if settings.secret_key is None:
        raise ConfigError(
            "ERRKB_SECRET_KEY: required with SLACK_CLIENT_ID (installation tokens are encrypted)"
        )
    cipher = TokenCipher.from_settings(
        settings.secret_key.get_secret_value(),
        settings.secret_key_previous.get_secret_value() if settings.secret_key_previous else None,
    )
    installations = EncryptedInstallationStore(
        _installations(client_id, store.reading, logger),
        cipher,
        writes=_installations(client_id, store.writing, logger),
    )
    # consuming a state reads it, then deletes it: one write unit
    states = SQLAlchemyOAuthStateStore(
        expiration_seconds=STATE_SECONDS, engine=store.writing, table_name=STATES, logger=logger
    )
    oauth = OAuthSettings(
        client_id=client_id,
        client_secret=settings.slack_client_secret.get_secret_value(),
        scopes=list(settings.slack_scopes),
        user_scopes=[],
        redirect_uri=settings.slack_redirect_uri,
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        install_page_rendering_enabled=False,  # straight to Slack's authorize page
        installation_store=installations,
        state_store=states,
        state_expiration_seconds=STATE_SECONDS,
        token_rotation_expiration_minutes=ROTATE_MINUTES,
        logger=logger,
    )
    # Bolt's own authorize refreshes tokens through a client of slack.com; this one asks
    # SLACK_API_URL like every other call
    oauth.authorize = InstallationStoreAuthorize(
        logger=logger,
        client_id=client_id,
        client_secret=oauth.client_secret,
        installation_store=installations,
        token_rotation_expiration_minutes=ROTATE_MINUTES,
        client=WebClient(base_url=settings.slack_api_url, ssl=client_context()),
    )
    return oauth


def _installations(
    client_id: str, engine: Engine, logger: logging.Logger
) -> SQLAlchemyInstallationStore:
    return SQLAlchemyInstallationStore(
        client_id=client_id,
        engine=engine,
        bots_table_name=BOTS,
        installations_table_name=INSTALLATIONS,
        logger=logger,
    )


class JobTokens:
    """A workspace's bot token for a job, refreshed when it is about to expire and saved for
    everyone, as Bolt's authorize does for a request (without its ``auth.test``: a job
    needs only the token). A workspace with no installation (uninstalled) raises
    :class:`~bot.errors.SlackUninstalled`: its work ends, nothing is tried with a dead token."""

    def __init__(self, installations: InstallationStore, rotator: TokenRotator) -> None:
        self.installations = installations
        self.rotator = rotator
        self._lock = threading.Lock()  # one refresh at a time: a refresh token is good once

    def __call__(self, team: str | None) -> str | None:
        if not team:
            return None
        used: str | None = None  # the refresh token this refresh sends
        try:
            with self._lock:
                found = self._find(team)
                if found is None or not found.bot_token:
                    raise SlackUninstalled(f"no installation for workspace {team}")
                if found.bot_refresh_token:
                    used = found.bot_refresh_token
                    refreshed = self.rotator.perform_token_rotation(
                        installation=found, minutes_before_expiration=ROTATE_MINUTES
                    )
                    if refreshed is not None:
                        self.installations.save(refreshed)
                        found = refreshed
        except SlackTokenRotationError as exc:
            response = exc.api_error.response
            code = str(response.get("error") or f"http_{response.status_code}")
            if (
                response.status_code >= 500
                or response.status_code == 429
                or code in TRANSIENT_ERRORS
            ):
                raise SlackUnavailable(f"Slack oauth.v2.access failed: {code}") from None
            latest = self._saved_since(team, used)
            if latest is not None:  # a request (Bolt's authorize) refreshed it first
                return latest
            # Slack will not refresh it (revoked): this workspace's work ends
            raise SlackUninstalled(f"workspace {team}: token refresh refused ({code})") from None
        except (SlackRequestError, OSError) as exc:
            raise SlackUnavailable(
                f"Slack oauth.v2.access unreachable: {type(exc).__name__}"
            ) from None
        except SQLAlchemyError as exc:
            raise StorageUnavailable(f"installations unreadable: {type(exc).__name__}") from None
        return str(found.bot_token)

    def _find(self, team: str) -> Installation | None:
        """A workspace's install, else an org-wide one (a job of an org install is keyed by its
        enterprise, :meth:`bot.slack.queue.intake.Intake.submit`)."""
        return self.installations.find_installation(enterprise_id=None, team_id=team) or (
            self.installations.find_installation(
                enterprise_id=team, team_id=None, is_enterprise_install=True
            )
        )

    def _saved_since(self, team: str, used: str | None) -> str | None:
        """The token another refresh saved while this one sent the same refresh token, if any."""
        latest = self._find(team)
        if latest is None or not latest.bot_token or latest.bot_refresh_token == used:
            return None
        return str(latest.bot_token)


def job_tokens(oauth: OAuthSettings, settings: Settings) -> JobTokens:
    """:class:`JobTokens` over the install's store, refreshing through ``SLACK_API_URL``."""
    rotator = TokenRotator(
        client_id=oauth.client_id,
        client_secret=oauth.client_secret,
        client=WebClient(base_url=settings.slack_api_url, ssl=client_context()),
    )
    return JobTokens(oauth.installation_store, rotator)


class WorkspacePoster:
    """The digest's Slack in one workspace of a multi-workspace install (``ERRKB_DIGEST_TEAM``):
    the gateway, with that workspace's bot token found and refreshed as a job's is."""

    def __init__(
        self, gateway: SlackGateway, tokens: Callable[[str | None], str | None], team: str
    ) -> None:
        self.gateway = gateway
        self.tokens = tokens
        self.team = team

    def post_message(self, *, channel: str, text: str, blocks: Sequence[dict[str, object]]) -> Sent:
        with scope.bound(team_id=self.team, bot_token=self.tokens(self.team)):
            return self.gateway.post_message(channel=channel, text=text, blocks=blocks)

    def user_locale(self, user_id: str) -> str | None:
        with scope.bound(team_id=self.team, bot_token=self.tokens(self.team)):
            return self.gateway.user_locale(user_id)
