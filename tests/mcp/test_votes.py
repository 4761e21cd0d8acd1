"""Votes that count once, sessions that do not pile up: ``errkb mcp --http`` counts one verdict
per token holder, record and workaround a day, however many sessions it opens under whatever
names; it holds a bounded number of sessions and closes idle ones."""

from __future__ import annotations

import time
from typing import Any

import pytest
from sqlalchemy import delete, select

from bot.store import slack_repo
from bot.store.db import Store
from bot.store.models import VoteRow
from tests.mcp.conftest import TOKEN, HttpServer
from tests.mcp.sessions import RawSession

VLLM = "llm/vllm-no-available-memory-for-cache-blocks"


def _counts(store: Store) -> tuple[int, int]:
    with store.transaction() as session:
        return slack_repo.workaround_counts(session, record_ids=[VLLM]).get((VLLM, 0), (0, 0))


def _fresh(store: Store) -> tuple[int, int]:
    with store.transaction() as session:
        session.execute(delete(VoteRow).where(VoteRow.record_id == VLLM))
    return _counts(store)


def _report(url: str, *, token: str | None, client: str) -> dict[str, Any]:
    agent = RawSession(url, token=token, client=client)
    assert agent.open() == 200
    status, result = agent.call("report_outcome", record_id=VLLM, workaround=0, worked=True)
    assert status == 200 and result is not None and not result.get("isError"), result
    structured: dict[str, Any] = result["structuredContent"]
    return structured


@pytest.mark.slow
def test_100_sessions_of_one_token_under_100_names_count_as_one_vote(
    http_server: Any, starter_store: Store
) -> None:
    before = _fresh(starter_store)
    server: HttpServer = http_server(ERRKB_MCP_TOKEN=TOKEN, ERRKB_MCP_OUTCOMES="true").ready()
    said = [_report(server.url, token=TOKEN, client=f"agent-{n}") for n in range(100)]
    assert sum(s["changed"] for s in said) == 1, (
        "the first counts; the 99 repeats are accepted and ignored"
    )
    assert (
        (said[-1]["fixed"], said[-1]["failed"])
        == (before[0] + 1, before[1])
        == _counts(starter_store)
    )
    with starter_store.transaction() as session:
        voters = list(session.scalars(select(VoteRow.user_id).where(VoteRow.record_id == VLLM)))
    assert len(voters) == 1 and voters[0].startswith("mcp:token:") and TOKEN not in voters[0]


@pytest.mark.slow
def test_another_holder_counts_apart(http_server: Any, starter_store: Store) -> None:
    before = _fresh(starter_store)
    shared: HttpServer = http_server(ERRKB_MCP_TOKEN=TOKEN, ERRKB_MCP_OUTCOMES="true").ready()
    local: HttpServer = http_server(ERRKB_MCP_OUTCOMES="true").ready()  # loopback, no token
    for _ in range(3):
        _report(shared.url, token=TOKEN, client="same-name")
        _report(local.url, token=None, client="same-name")
    assert _counts(starter_store) == (before[0] + 2, before[1])


@pytest.mark.slow
def test_sessions_are_capped_and_idle_ones_closed(http_server: Any) -> None:
    server: HttpServer = http_server(ERRKB_MCP_MAX_SESSIONS="3", ERRKB_MCP_IDLE_SECONDS="1").ready()
    open_ = [RawSession(server.url) for _ in range(3)]
    assert [s.open() for s in open_] == [200, 200, 200]
    assert RawSession(server.url).open() == 503, "past the cap a new session is refused"
    deadline = time.monotonic() + 20
    status = 503
    while status == 503 and time.monotonic() < deadline:  # room comes back once the idle ones close
        time.sleep(0.2)  # the SDK's idle timer runs on the server's clock
        status = RawSession(server.url).open()
    assert status == 200, "idle sessions are closed, and their room is free again"
    assert open_[0].call("search", words="cuda")[0] == 404, "an expired session's id is not found"
