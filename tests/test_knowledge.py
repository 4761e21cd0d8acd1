"""The live knowledge base swaps in rebuilt indexes without ever blocking answers."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot import snapshot
from bot.knowledge import LiveKnowledge, Readiness, epoch_reader, store_knowledge
from bot.records import Record
from bot.store import digest_repo, repository, slack_repo
from bot.store.db import Store
from tests.conftest import wipe
from tests.match.conftest import SMALL


def _loader(state: dict[str, Any]) -> Any:
    def load() -> tuple[int, Sequence[Record], Sequence[Any]]:
        state["gate"].wait(5)
        if state.get("fail"):
            raise RuntimeError("database down")
        return state["version"], list(state["records"]), []

    return load


def test_answers_come_from_the_old_index_while_a_rebuild_runs() -> None:
    state: dict[str, Any] = {"version": 1, "records": SMALL[:2], "gate": threading.Event()}
    state["gate"].set()
    live = LiveKnowledge(_loader(state), lambda: state["version"], poll_seconds=60)
    assert live.refresh() is True and live.refresh() is False  # nothing changed the second time
    first = live.index.current()
    assert first is not None and first.record("java/npe/jdk17") is None

    state.update(version=2, records=SMALL)
    state["gate"].clear()  # the reload hangs, as on a slow database
    rebuild = threading.Thread(target=live.refresh)
    rebuild.start()
    assert live.index.current() is first  # answering does not wait for it
    assert live.graph.current() is not None
    state["gate"].set()
    rebuild.join(5)
    current = live.index.current()
    assert (
        current is not first
        and current is not None
        and current.record("java/npe/jdk17") is not None
    )


def test_a_failed_rebuild_keeps_serving_the_last_good_index() -> None:
    state: dict[str, Any] = {"version": 1, "records": SMALL, "gate": threading.Event()}
    state["gate"].set()
    live = LiveKnowledge(_loader(state), lambda: state["version"], poll_seconds=60)
    live.refresh()
    good = live.index.current()
    state.update(version=2, fail=True)
    try:
        live.refresh()
    except RuntimeError:
        pass
    assert live.index.current() is good and live.records == len(SMALL)


# -- against the database: the change feed, evidence, snapshots ----------------------

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _live(store: Store, kinds: list[str], **options: Any) -> LiveKnowledge:
    return store_knowledge(store, poll_seconds=60, on_rebuild=kinds.append, **options)


def _import(store: Store, records: list[Record]) -> None:
    with store.transaction() as session:
        repository.import_records(
            session, records=records, on_conflict="upsert", actor="t", now=NOW
        )


@pytest.fixture
def kb(store: Store) -> Iterator[Store]:
    wipe(store)
    _import(store, SMALL)
    yield store
    wipe(store)


def test_evidence_rebuilds_nothing_and_an_edit_reindexes_only_that_record(kb: Store) -> None:
    kinds: list[str] = []
    live = _live(kb, kinds)
    assert live.refresh() and kinds == ["full"]
    first = live.index.current()
    assert first is not None
    with kb.transaction() as session:
        slack_repo.cast_vote(
            session,
            user_id="U1",
            record_id="java/npe/jdk17",
            position=0,
            thread="C1:1",
            verdict="fixed",
            at=NOW,
        )
        digest_repo.confirm_record(
            session, record_id="go/nil-pointer/go1", actor="U1", today=NOW.date(), now=NOW
        )
        digest_repo.snooze_record(
            session,
            record_id="git/push-rejected/git2",
            days=7,
            actor="U1",
            today=NOW.date(),
            now=NOW,
        )
    assert not live.refresh() and kinds == ["full"] and live.index.current() is first

    edited = SMALL[3].model_copy(update={"root_cause": "A nil map was written to."})
    _import(kb, [edited])
    assert live.refresh() and kinds == ["full", "incremental"]
    index = live.index.current()
    assert index is not None and index is not first
    found = index.record(edited.id)
    assert found is not None and found.root_cause == "A nil map was written to."
    unchanged = {p.record.id: p for p in first.parts}
    assert all(p is unchanged[p.record.id] for p in index.parts if p.record.id != edited.id)

    with kb.transaction() as session:  # a deprecation takes the record out, incrementally
        digest_repo.deprecate_record(
            session, record_id="java/npe/jdk17", reason="gone", actor="U1", now=NOW
        )
    assert live.refresh() and kinds == ["full", "incremental", "incremental"]
    index = live.index.current()
    assert index is not None and index.record("java/npe/jdk17") is None
    graph = live.graph.current()
    assert graph is not None and "java/npe/jdk17" not in graph.record_ids


def test_a_restart_relinks_from_the_snapshot_and_catches_up(
    kb: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "kb.pickle"
    kinds: list[str] = []
    first = _live(kb, kinds, snapshot=path)
    first.refresh()
    first.stop()  # waits for the snapshot being written
    assert path.exists() and kinds == ["full"]

    again: list[str] = []
    restarted = _live(kb, again, snapshot=path)
    assert restarted.refresh() and again == [], "an unchanged knowledge base is not rebuilt"
    assert not restarted.refresh()
    assert restarted.readiness().state == "ready" and restarted.records == len(SMALL)
    paste = SMALL[0].signature
    assert restarted.index.current().triage(paste) == first.index.current().triage(paste)  # type: ignore[union-attr]

    _import(kb, [SMALL[1].model_copy(update={"root_cause": "Changed while stopped."})])
    later: list[str] = []
    caught_up = _live(kb, later, snapshot=path)
    assert caught_up.refresh() and later == ["incremental"]
    caught_up.stop()
    assert caught_up.index.current().record(SMALL[1].id).root_cause == "Changed while stopped."  # type: ignore[union-attr]

    saved = snapshot.load(path)
    assert saved is not None
    snapshot.save(
        path, dataclasses.replace(saved, version=saved.version + 50)
    )  # a restored database
    caplog.set_level(logging.INFO)
    ahead: list[str] = []
    behind = _live(kb, ahead, snapshot=path)
    assert behind.refresh() and ahead == ["full"]
    behind.stop()
    assert sum("ignoring the knowledge snapshot" in r.getMessage() for r in caplog.records) == 1

    path.write_bytes(b"not a pickle")
    caplog.set_level(logging.WARNING)
    damaged: list[str] = []
    assert _live(kb, damaged, snapshot=path).refresh() and damaged == ["full"]
    assert sum("unreadable knowledge snapshot" in r.getMessage() for r in caplog.records) == 1


def test_readiness_is_starting_then_broken_with_a_reason_then_ready() -> None:
    state: dict[str, Any] = {
        "version": 1,
        "records": SMALL,
        "gate": threading.Event(),
        "fail": True,
    }
    live = LiveKnowledge(_loader(state), lambda: state["version"], poll_seconds=60)
    assert live.readiness().state == "starting"
    state["gate"].set()
    with pytest.raises(RuntimeError):
        live.refresh()
    assert live.readiness() == Readiness("broken", reason="RuntimeError: database down")
    state["fail"] = False
    live.refresh()
    assert live.readiness() == Readiness("ready", records=len(SMALL), version=1)


def test_a_database_made_again_at_the_same_address_is_not_taken_for_the_old_one(
    kb: Store, tmp_path: Path
) -> None:
    url = kb.engine.url.render_as_string(hide_password=False)

    def at() -> Path:  # as errkb serve finds its snapshot
        return snapshot.snapshot_path(tmp_path, url, epoch_reader(kb)())

    first = _live(kb, [], snapshot=at)
    first.refresh()
    first.stop()
    built_at = repository_version(kb)
    wipe(kb)  # dropped and made again: its versions count from 0 again
    _import(kb, [SMALL[0].model_copy(update={"root_cause": "A new database's own text."})])
    assert repository_version(kb) == built_at, "the same version, other knowledge"
    kinds: list[str] = []
    again = _live(kb, kinds, snapshot=at)
    assert again.refresh() and kinds == ["full"], "the old database's snapshot is not used"
    assert again.records == 1
    assert again.index.current().record(SMALL[0].id).root_cause == "A new database's own text."  # type: ignore[union-attr]


def repository_version(store: Store) -> int:
    with store.read() as session:
        return repository.kb_version(session)


def test_every_process_on_a_database_restarts_from_the_snapshot_one_of_them_wrote(
    kb: Store, tmp_path: Path
) -> None:
    """``errkb serve`` and ``errkb mcp`` wire their knowledge alike (bot.bootstrap): what
    one built and left in ``ERRKB_CACHE_DIR``, the next one re-links instead of building."""
    from bot.bootstrap import build_knowledge
    from bot.settings import Settings

    settings = Settings(
        database_url=kb.engine.url.render_as_string(hide_password=False),
        cache_dir=tmp_path / "cache",
        _env_file=None,
    )  # type: ignore[call-arg]
    kinds: list[str] = []
    first = build_knowledge(settings, kb, on_rebuild=kinds.append)
    assert first.refresh() and kinds == ["full"]
    first.stop()  # waits for the snapshot being written
    assert list((tmp_path / "cache").iterdir()), "a snapshot in the cache folder"
    again: list[str] = []
    restarted = build_knowledge(settings, kb, on_rebuild=again.append)
    assert restarted.refresh() and again == [], "re-linked, not rebuilt"
    assert restarted.records == len(SMALL)
