"""Installation tokens at rest: encrypted with ERRKB_SECRET_KEY, unreadable without it,
read with a previous key after a rotation, and encrypted by migration 0010 where they
were stored in plain text (which needs the key: without it, one line and nothing done)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from cryptography.fernet import Fernet, InvalidToken
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from sqlalchemy import event, select, text

from bot.settings import load_settings
from bot.slack.adapter.install import oauth_settings
from bot.store.db import SCHEMA_REVISION, alembic_config, make_engine, open_store, schema_revision
from bot.store.oauth import BOTS, INSTALLATIONS, STATES, oauth_metadata
from bot.store.secrets import PREFIX, EncryptedInstallationStore, TokenCipher
from tests.store.test_migrations import _errkb, _finish

BOT_TOKEN = "xoxe.xoxb-1-MS0yLTIyMjI" + "x" * 120  # a rotating token is long
REFRESH = "xoxe-1-My0xLTIyMjItMzMzMy" + "y" * 120


def _installation(team: str = "T9") -> Installation:
    return Installation(
        app_id="A1",
        enterprise_id=None,
        team_id=team,
        user_id="U1",
        bot_token=BOT_TOKEN,
        bot_refresh_token=REFRESH,
        bot_id="B1",
        bot_user_id="UBOT",
        bot_scopes="chat:write",
        bot_token_expires_in=43200,
        installed_at=datetime.now(UTC).timestamp(),
    )


def _sql_store(engine: object) -> SQLAlchemyInstallationStore:
    return SQLAlchemyInstallationStore(
        client_id="1111.2222",
        engine=engine,
        bots_table_name=BOTS,  # type: ignore[arg-type]
        installations_table_name=INSTALLATIONS,
    )


def _stored(engine: object) -> list[str]:
    tables = oauth_metadata().tables
    values = []
    with engine.connect() as conn:  # type: ignore[attr-defined]
        for name in (INSTALLATIONS, BOTS):
            table = tables[name]
            for row in conn.execute(select(table.c.bot_token, table.c.bot_refresh_token)):
                values += [v for v in row if v]
    return values


def test_tokens_are_unreadable_in_the_database_without_the_key(blank_database_url: str) -> None:
    key = Fernet.generate_key().decode()
    store = open_store(blank_database_url, migrate=True)
    try:
        wrapped = EncryptedInstallationStore(_sql_store(store.engine), TokenCipher(key))
        wrapped.save(_installation())
        stored = _stored(store.engine)
        assert len(stored) == 4 and all(v.startswith(PREFIX) for v in stored), (
            "both tables, both tokens"
        )
        assert not [v for v in stored if BOT_TOKEN[:20] in v or REFRESH[:20] in v]
        with pytest.raises(InvalidToken):
            TokenCipher(Fernet.generate_key().decode()).decrypt(stored[0])
        found = wrapped.find_bot(enterprise_id=None, team_id="T9")
        assert found is not None and (found.bot_token, found.bot_refresh_token) == (
            BOT_TOKEN,
            REFRESH,
        )
        installed = wrapped.find_installation(enterprise_id=None, team_id="T9")
        assert installed is not None and installed.bot_token == BOT_TOKEN
        other_key = EncryptedInstallationStore(
            _sql_store(store.engine), TokenCipher(Fernet.generate_key().decode())
        )
        assert other_key.find_bot(enterprise_id=None, team_id="T9") is None, (
            "the wrong key reads nothing"
        )
    finally:
        store.dispose()


def test_after_a_rotation_old_rows_are_read_and_new_ones_written_with_the_new_key(
    blank_database_url: str,
) -> None:
    old = Fernet.generate_key().decode()
    new = Fernet.generate_key().decode()
    store = open_store(blank_database_url, migrate=True)
    try:
        EncryptedInstallationStore(_sql_store(store.engine), TokenCipher(old)).save(
            _installation("TOLD")
        )
        rotated = EncryptedInstallationStore(_sql_store(store.engine), TokenCipher(new, [old]))
        found = rotated.find_bot(enterprise_id=None, team_id="TOLD")
        assert found is not None and found.bot_token == BOT_TOKEN, "a previous key still reads"
        rotated.save(_installation("TNEW"))
        only_new = EncryptedInstallationStore(_sql_store(store.engine), TokenCipher(new))
        assert only_new.find_bot(enterprise_id=None, team_id="TNEW") is not None, (
            "the current key writes"
        )
        assert only_new.find_bot(enterprise_id=None, team_id="TOLD") is None
    finally:
        store.dispose()


def test_settings_refuse_a_malformed_key_naming_the_variable_not_the_key() -> None:
    with pytest.raises(Exception, match="ERRKB_SECRET_KEY") as refused:
        load_settings(secret_key="not-a-fernet-key-at-all", _env_file=None)
    assert "not-a-fernet-key-at-all" not in str(refused.value)
    problems = load_settings(
        slack_client_id="1.2", slack_client_secret="s", slack_signing_secret="x", _env_file=None
    ).serve_problems()
    assert [p for p in problems if p.startswith("ERRKB_SECRET_KEY: required with SLACK_CLIENT_ID")]


def _plain_installation_at_0009(url: str) -> None:
    engine = make_engine(url)
    try:
        command.upgrade(alembic_config(engine), "0009")
        _sql_store(engine).save(_installation())
    finally:
        engine.dispose()


def test_the_migration_encrypts_plain_tokens_and_without_a_key_says_so_in_one_line(
    blank_database_url: str, tmp_path: Path
) -> None:
    _plain_installation_at_0009(blank_database_url)
    code, _, err = _finish(_errkb(tmp_path, blank_database_url, "migrate"))
    assert code == 1 and len(err) == 1, err
    assert (
        "ERRKB_SECRET_KEY: required to encrypt the 2 installation(s)" in err[0]
        and "errkb migrate" in err[0]
    )
    engine = make_engine(blank_database_url)
    try:
        with engine.connect() as conn:
            assert schema_revision(conn) == "0009", "nothing was done"
        assert BOT_TOKEN in _stored(engine)
    finally:
        engine.dispose()

    key = Fernet.generate_key().decode()
    code, _, err = _finish(_errkb(tmp_path, blank_database_url, "migrate", ERRKB_SECRET_KEY=key))
    assert code == 0, err
    engine = make_engine(blank_database_url)
    try:
        with engine.connect() as conn:
            assert schema_revision(conn) == SCHEMA_REVISION
            assert conn.execute(text(f"SELECT count(*) FROM {BOTS}")).scalar_one() == 1
        stored = _stored(engine)
        assert len(stored) == 4 and all(v.startswith(PREFIX) for v in stored)
        found = EncryptedInstallationStore(_sql_store(engine), TokenCipher(key)).find_bot(
            enterprise_id=None, team_id="T9"
        )
        assert found is not None and found.bot_refresh_token == REFRESH
    finally:
        engine.dispose()


def test_a_database_without_installations_migrates_without_a_key(
    blank_database_url: str, tmp_path: Path
) -> None:
    engine = make_engine(blank_database_url)
    try:
        command.upgrade(alembic_config(engine), "0009")
    finally:
        engine.dispose()
    code, _, err = _finish(
        _errkb(tmp_path, blank_database_url, "migrate")
    )  # a clean environment: no key
    assert code == 0, err


def test_serve_refuses_a_multi_workspace_install_without_a_key_in_one_line(
    blank_database_url: str, tmp_path: Path
) -> None:
    code, _, err = _finish(_errkb(tmp_path, blank_database_url, "init", "--no-starter"))
    assert code == 0, err
    serve = _errkb(
        tmp_path,
        blank_database_url,
        "serve",
        "--http",
        "--port",
        "0",
        SLACK_CLIENT_ID="1111.2222",
        SLACK_CLIENT_SECRET="client-secret",
        SLACK_SIGNING_SECRET="signing-secret",
    )
    code, _, err = _finish(serve)
    assert (
        code == 1 and len(err) == 1 and "ERRKB_SECRET_KEY: required with SLACK_CLIENT_ID" in err[0]
    ), err


def test_an_installation_is_saved_while_another_writer_commits_beside_it(
    blank_database_url: str,
) -> None:
    """Saving an installation reads, then writes: on SQLite a deferred transaction doing that
    fails at once ("database is locked") when another writer commits in between, however long
    the busy timeout. A busy server's jobs commit all the time: the install must still land."""
    store = open_store(blank_database_url, migrate=True)
    other = make_engine(blank_database_url)
    settings = load_settings(
        database_url=blank_database_url,
        slack_client_id="1111.2222",
        slack_client_secret="s",
        secret_key=Fernet.generate_key().decode(),
    )
    oauth = oauth_settings(settings, store)
    assert oauth is not None
    committed = threading.Event()

    def commit_elsewhere() -> None:
        with other.begin() as conn:
            conn.execute(
                text(f"INSERT INTO {STATES} (state, expire_at) VALUES ('s', :at)"),
                {"at": datetime.now(UTC)},
            )
        committed.set()

    writer = threading.Thread(target=commit_elsewhere)

    def between(conn: object, cursor: object, statement: str, *args: object) -> None:
        if statement.startswith("SELECT") and INSTALLATIONS in statement and not writer.is_alive():
            writer.start()
            committed.wait(0.5)  # as long as such a commit takes, when nothing holds the lock

    event.listen(store.engine, "after_cursor_execute", between)
    try:
        oauth.installation_store.save(_installation())
        writer.join(10)
        assert committed.is_set(), "the other writer committed after the save"
        found = oauth.installation_store.find_bot(enterprise_id=None, team_id="T9")
        assert found is not None and found.bot_token == BOT_TOKEN
    finally:
        event.remove(store.engine, "after_cursor_execute", between)
        other.dispose()
        store.dispose()
