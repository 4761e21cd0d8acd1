"""The tables of slack_sdk's SQLAlchemy OAuth stores (multi-workspace install), for Alembic.

slack_sdk defines them; migration 0004 creates them, and ``alembic check``
compares them too (``migrations/env.py``), so errkb never calls the stores'
``create_tables()`` and migrations stay the one source of the schema.
"""

from __future__ import annotations

from sqlalchemy import MetaData

INSTALLATIONS = "slack_installations"
BOTS = "slack_bots"
STATES = "slack_oauth_states"


def oauth_metadata() -> MetaData:
    """The installation, bot and OAuth state tables, exactly as slack_sdk's stores use them."""
    from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
    from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore

    metadata = MetaData()
    SQLAlchemyInstallationStore.build_installations_table(metadata, INSTALLATIONS)
    SQLAlchemyInstallationStore.build_bots_table(metadata, BOTS)
    SQLAlchemyOAuthStateStore.build_oauth_states_table(metadata, STATES)
    return metadata
