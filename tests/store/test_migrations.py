"""Migrations and models never drift, on whichever database the suite runs."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from bot.errors import SchemaOutOfDate
from bot.store import digest_repo, jobs_repo, models, repository, tables
from bot.store.db import SCHEMA_REVISION, Store, alembic_config, make_engine, open_store, upgrade
from bot.store.oauth import oauth_metadata
from tests.ops.conftest import clean_env, errkb_command
from tests.slack.conftest import SECRET, TOKEN


def test_upgrade_head_then_alembic_check_finds_nothing(store: Store) -> None:
    upgrade(store.engine)  # idempotent on an up-to-date database
    command.check(alembic_config(store.engine))  # raises when models and migrations differ


def test_the_orm_maps_the_core_tables_and_declares_none_of_its_own() -> None:
    """The schema is declared once, in ``bot.store.tables`` (what Alembic compares); a mapped
    class that declared a table of its own would be missed by code reading plain rows."""
    declared = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, bot.store.tables as t; print(json.dumps(sorted(t.metadata.tables)))",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    mapped = {mapper.local_table for mapper in models.mapper_registry.mappers}
    assert mapped <= set(tables.metadata.tables.values())
    assert models.mapper_registry.metadata is tables.metadata
    assert json.loads(declared) == sorted(tables.metadata.tables)


def test_schema_has_the_tables_the_bot_asks_for(store: Store) -> None:
    tables = set(inspect(store.engine).get_table_names())
    assert {
        "records",
        "record_translations",
        "workarounds",
        "dead_ends",
        "links",
        "audit_log",
    } <= tables


def test_slack_oauth_store_tables_come_from_the_migrations_and_match_slack_sdk(
    store: Store,
) -> None:
    metadata = oauth_metadata()
    assert set(metadata.tables) <= set(inspect(store.engine).get_table_names())
    with store.engine.connect() as conn:
        diffs = compare_metadata(
            MigrationContext.configure(conn, opts={"compare_type": True}), metadata
        )
    ours = [
        d
        for d in diffs
        if "slack_installations" in str(d) or "slack_bots" in str(d) or "slack_oauth" in str(d)
    ]
    assert ours == []


# -- migrations run on request, under a lock; everything else refuses an old schema ----


def _errkb(tmp_path: Path, url: str, *args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        errkb_command(*args),
        env=clean_env(tmp_path, ERRKB_DATABASE_URL=url, **env),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, list[str]]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, [line for line in err.splitlines() if line.strip()]


def test_schema_revision_names_the_newest_migration(store: Store) -> None:
    from alembic.script import ScriptDirectory

    assert (
        ScriptDirectory.from_config(alembic_config(store.engine)).get_current_head()
        == SCHEMA_REVISION
    )


def test_a_database_without_the_schema_is_refused_in_one_line(
    blank_database_url: str, tmp_path: Path
) -> None:
    with pytest.raises(SchemaOutOfDate, match=r"no errkb schema .*run `errkb init`"):
        open_store(blank_database_url)
    code, _, err = _finish(_errkb(tmp_path, blank_database_url, "stats"))
    assert code == 1 and len(err) == 1 and "errkb init" in err[0], err
    code, out, err = _finish(_errkb(tmp_path, blank_database_url, "init", "--json"))
    assert code == 0, err
    assert json.loads(out)["added"] > 0
    open_store(blank_database_url).dispose()


def test_an_old_schema_is_refused_by_serve_then_migrated_keeping_the_version(
    blank_database_url: str, tmp_path: Path
) -> None:
    engine = make_engine(blank_database_url)
    try:
        command.upgrade(alembic_config(engine), "0004")
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO kb_state (key, value) VALUES ('kb_version', 7)"))
    finally:
        engine.dispose()
    with pytest.raises(
        SchemaOutOfDate,
        match=rf"at revision 0004, this errkb needs {SCHEMA_REVISION}: run `errkb migrate`",
    ):
        open_store(blank_database_url)
    serve = _errkb(
        tmp_path,
        blank_database_url,
        "serve",
        "--http",
        "--port",
        "0",
        "--host",
        "127.0.0.1",
        SLACK_BOT_TOKEN=TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
    )
    code, _, err = _finish(serve)
    assert code == 1 and len(err) == 1, err
    assert "0004" in err[0] and SCHEMA_REVISION in err[0] and "errkb migrate" in err[0]
    code, out, err = _finish(_errkb(tmp_path, blank_database_url, "migrate", "--json"))
    assert code == 0, err
    assert json.loads(out) | {"database": ""} == {
        "database": "",
        "before": "0004",
        "after": SCHEMA_REVISION,
    }
    store = open_store(blank_database_url)
    try:
        with store.read() as session:
            assert repository.knowledge_version(session) == 7
            assert not repository.knowledge_changes(
                session, since=6
            ).complete  # from before the feed
            assert repository.knowledge_changes(session, since=7).complete
    finally:
        store.dispose()


def test_processes_migrating_at_once_do_it_once(blank_database_url: str, tmp_path: Path) -> None:
    procs = [_errkb(tmp_path, blank_database_url, "migrate", "--json") for _ in range(3)]
    results = [_finish(p) for p in procs]
    assert all(code == 0 for code, _, _ in results), [err for _, _, err in results]
    befores = sorted(str(json.loads(out)["before"]) for _, out, _ in results)
    assert befores == sorted(["None", SCHEMA_REVISION, SCHEMA_REVISION])
    open_store(blank_database_url).dispose()


def test_a_schema_from_a_newer_errkb_is_neither_used_nor_migrated(blank_database_url: str) -> None:
    open_store(blank_database_url, migrate=True).dispose()
    engine = make_engine(blank_database_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    finally:
        engine.dispose()
    for migrate in (False, True):
        with pytest.raises(
            SchemaOutOfDate,
            match=rf"at revision 9999, newer than this errkb's {SCHEMA_REVISION}: upgrade errkb",
        ):
            open_store(blank_database_url, migrate=migrate)


def test_digests_posted_before_the_upgrade_are_not_posted_again(blank_database_url: str) -> None:
    """A digest run recorded by the old table becomes the period's done job: an upgrade
    in the middle of a period does not post that period's digest twice, while a claim
    that never finished is claimed afresh by the one lease every job has."""
    engine = make_engine(blank_database_url)
    at = "2026-11-30 09:00:00+00:00"
    run = (
        "INSERT INTO digest_runs (period, audience, status, claimed_by, claimed_at,"
        " lease_until, attempts, done_at, channel, message_ts)"
        " VALUES (:period, :audience, :status, 'replica-1', :at, :at, 1, :done, 'C1', :ts)"
    )
    try:
        command.upgrade(alembic_config(engine), "0010")
        with engine.begin() as conn:
            conn.execute(
                text(run),
                {
                    "period": "2026-W49",
                    "audience": "channel:C1",
                    "status": "done",
                    "at": at,
                    "done": at,
                    "ts": "1764493200.000100",
                },
            )
            conn.execute(
                text(run),
                {
                    "period": "2026-W49",
                    "audience": "user:U1",
                    "status": "claimed",
                    "at": at,
                    "done": None,
                    "ts": None,
                },
            )
        upgrade(engine)
        store = Store.on(engine)
        now = datetime(2026, 12, 1, tzinfo=UTC)
        claims = {}
        for audience in ("channel:C1", "user:U1"):
            with store.transaction() as session:
                claims[audience] = jobs_repo.claim_keyed_job(
                    session,
                    key=digest_repo.run_key("2026-W49", audience),
                    kind=jobs_repo.DIGEST,
                    payload={"period": "2026-W49", "audience": audience},
                    owner="replica-2",
                    now=now,
                    lease=timedelta(minutes=5),
                    deadline=now + timedelta(days=1),
                )
        assert claims["channel:C1"] is None, "the posted digest is done"
        assert claims["user:U1"] is not None, "the unfinished one is the next try's"
        with store.read() as session:
            posted = {run.audience: run for run in digest_repo.runs(session, period="2026-W49")}
        assert posted["channel:C1"].status == "done"
        assert "digest_runs" not in inspect(engine).get_table_names()
        command.downgrade(alembic_config(engine), "0010")
        with engine.connect() as conn:
            back = conn.execute(text("SELECT audience, status, message_ts FROM digest_runs")).all()
        assert [tuple(row) for row in back] == [("channel:C1", "done", "1764493200.000100")]
    finally:
        engine.dispose()
