"""installation tokens encrypted at rest

The bot, refresh and user tokens of ``slack_installations`` and ``slack_bots``
become ``fernet:`` values encrypted with ``ERRKB_SECRET_KEY``
(:mod:`bot.store.secrets`); their columns become TEXT, since an encrypted
token is longer than slack_sdk's 200 characters. Tokens stored in plain text
are encrypted here, which needs the key: without it, a database holding any
is left at the revision before, with one line saying what to set. A database
holding none (any single-workspace install) needs no key. Downgrading would
need the key as well and is not offered.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOKENS = {
    "slack_installations": ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token"),
    "slack_bots": ("bot_token", "bot_refresh_token"),
}


def upgrade() -> None:
    from bot.errors import ConfigError
    from bot.settings import KEY_COMMAND, load_settings
    from bot.store.secrets import TokenCipher

    for table, columns in TOKENS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(
                    column,
                    type_=sa.Text(),
                    existing_type=sa.String(length=200),
                    existing_nullable=True,
                )
    bind = op.get_bind()
    plain: list[tuple[str, int, dict[str, str]]] = []
    for table, columns in TOKENS.items():
        rows = bind.execute(sa.text(f"SELECT id, {', '.join(columns)} FROM {table}")).mappings()
        for row in rows:
            values = {c: row[c] for c in columns if row[c] and not TokenCipher.encrypted(row[c])}
            if values:
                plain.append((table, row["id"], values))
    if not plain:
        return
    settings = load_settings()
    if settings.secret_key is None:
        raise ConfigError(
            f"ERRKB_SECRET_KEY: required to encrypt the {len(plain)} installation(s) whose tokens "
            "are stored in plain text; set it (make one: "
            f"{KEY_COMMAND}) and run errkb migrate again"
        )
    previous = settings.secret_key_previous
    cipher = TokenCipher.from_settings(
        settings.secret_key.get_secret_value(), previous.get_secret_value() if previous else None
    )
    for table, row_id, values in plain:
        sets = ", ".join(f"{c} = :{c}" for c in values)
        encrypted = {c: cipher.encrypt(v) for c, v in values.items()}
        bind.execute(
            sa.text(f"UPDATE {table} SET {sets} WHERE id = :row_id"),
            {**encrypted, "row_id": row_id},
        )


def downgrade() -> None:
    raise NotImplementedError("the tokens would have to be decrypted: restore a backup instead")
