"""Multi-workspace install (OAuth): Bolt's OAuth flow on slack_sdk's SQLAlchemy stores.

With ``SLACK_CLIENT_ID`` and ``SLACK_CLIENT_SECRET`` set, ``GET /slack/install``
redirects to Slack's authorize page (with a state kept in the database and a
cookie), ``GET /slack/oauth_redirect`` exchanges the code (``oauth.v2.access``)
and stores the installation, and each request is then answered with the
installing workspace's bot token. Installations and states live in errkb's
own database (tables from migration 0004), so every replica sees them; their
tokens are encrypted with ``ERRKB_SECRET_KEY`` (:mod:`bot.store.secrets`).
"""

from __future__ import annotations

import logging

from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

from bot.errors import ConfigError
from bot.settings import Settings
from bot.store.db import Store
from bot.store.oauth import BOTS, INSTALLATIONS, STATES
from bot.store.secrets import EncryptedInstallationStore, TokenCipher

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
STATE_SECONDS = 600


def oauth_settings(settings: Settings, store: Store) -> OAuthSettings | None:
    """Bolt's OAuth settings for a multi-workspace install; None for a single-workspace token."""
    if settings.slack_client_id is None or settings.slack_client_secret is None:
        return None
    logger = logging.getLogger("bot.slack.bolt")
    client_id = settings.slack_client_id
    if settings.secret_key is None:
        raise ConfigError("ERRKB_SECRET_KEY: required with SLACK_CLIENT_ID (installation tokens are encrypted)")
    cipher = TokenCipher.from_settings(
        settings.secret_key.get_secret_value(),
        settings.secret_key_previous.get_secret_value() if settings.secret_key_previous else None,
    )
    installations = EncryptedInstallationStore(
        SQLAlchemyInstallationStore(client_id=client_id, engine=store.engine, bots_table_name=BOTS,
                                    installations_table_name=INSTALLATIONS, logger=logger),
        cipher,
    )  # fmt: skip
    states = SQLAlchemyOAuthStateStore(
        expiration_seconds=STATE_SECONDS, engine=store.engine, table_name=STATES, logger=logger
    )
    return OAuthSettings(
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
        logger=logger,
    )
