"""The tables of slack_sdk's SQLAlchemy OAuth stores (multi-workspace install), for Alembic.

slack_sdk defines them (but for the token columns, which hold encrypted tokens); migration 0004
creates them, and ``alembic check`` compares them too (``migrations/env.py``), so errkb never calls
the stores' ``create_tables()`` and migrations stay the one source of the schema.
"""

from __future__ import annotations

from sqlalchemy import MetaData, Text

INSTALLATIONS = "slack_installations"
BOTS = "slack_bots"
STATES = "slack_oauth_states"
#: The token columns, TEXT here (slack_sdk says 200 characters): an encrypted token is longer
#: (migration 0010, :mod:`bot.store.secrets`).
TOKEN_COLUMNS = ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token")


def oauth_metadata() -> MetaData:
    """The installation, bot and OAuth state tables, exactly as slack_sdk's stores use them."""
    from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
    from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

    metadata = MetaData()
    installations = SQLAlchemyInstallationStore.build_installations_table(metadata, INSTALLATIONS)
    bots = SQLAlchemyInstallationStore.build_bots_table(metadata, BOTS)
    SQLAlchemyOAuthStateStore.build_oauth_states_table(metadata, STATES)
    for table, names in ((installations, TOKEN_COLUMNS), (bots, TOKEN_COLUMNS[:2])):
        for name in names:
            table.c[name].type = Text()
    return metadata
