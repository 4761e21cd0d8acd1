"""Every tool of ``errkb mcp``, called by the SDK's own client over stdio and over streamable HTTP
(on loopback, with and without a bearer token); structured results checked against the models."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import MCPError
from sqlalchemy import delete, select

from bot.mcp.models import Neighbours, Outcome, SearchResult, StaleList
from bot.mcp.server import local_voter
from bot.report import AnswerRecord, TriageReport
from bot.starter import example_paste, starter_dir
from bot.store import slack_repo
from bot.store.db import Store
from bot.store.models import AuditRow, VoteRow
from tests.mcp.conftest import CLIENT, TOKEN, Agent, HttpServer, connect, http, mcp_env, stdio

TOOLS = {"triage", "search", "show", "neighbours", "stale", "report_outcome"}
VLLM = "llm/vllm-no-available-memory-for-cache-blocks"
UNKNOWN = (
    'Traceback (most recent call last):\n  File "flux.py", line 3\n'
    "FluxCapacitorError: needs 1.21 gigawatts\n"
)


@pytest.fixture(scope="module", params=["stdio", "http", "http+token"])
def agent(
    request: pytest.FixtureRequest, starter_store: Store, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Agent]:
    tmp = tmp_path_factory.mktemp("mcp")
    if request.param == "stdio":
        env = mcp_env(starter_store, tmp, ERRKB_MCP_OUTCOMES="true")
        with (tmp / "stderr.log").open("w") as errlog, connect(stdio(env, errlog)) as connected:
            yield connected
        return
    token = TOKEN if request.param == "http+token" else None
    extra = {"ERRKB_MCP_TOKEN": token} if token else {}
    server = HttpServer(mcp_env(starter_store, tmp, ERRKB_MCP_OUTCOMES="true", **extra), tmp)
    try:
        server.ready()
        with connect(http(server.url, token)) as connected:
            yield connected
    finally:
        server.kill()


def paste(name: str) -> str:
    return example_paste(name).read_text(encoding="utf-8")


def structured(result: Any, model: Any) -> Any:
    assert not result.is_error, result.content
    return model.model_validate(result.structured_content)


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_every_tool_is_listed_with_input_and_output_schemas(agent: Agent) -> None:
    tools = agent.tools()
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert tool.description and tool.input_schema["type"] == "object", name
        assert tool.output_schema and tool.output_schema["type"] == "object", name
    assert tools["triage"].input_schema["required"] == ["paste"]
    assert set(tools["triage"].output_schema["properties"]) >= {
        "answered",
        "matches",
        "answers",
        "causes",
        "order",
    }
    assert all(tools[n].annotations.read_only_hint for n in TOOLS - {"report_outcome"})
    assert tools["report_outcome"].annotations.read_only_hint is False


def test_triage_answers_with_ranked_workarounds_and_dead_ends(agent: Agent) -> None:
    result = agent.call("triage", paste=paste("vllm-oom.txt"))
    report = structured(result, TriageReport)
    assert report.answered and report.best is not None and report.best.id == VLLM
    assert report.best.band in ("high", "medium") and report.matches[0].id == VLLM
    best = report.best
    assert [w.rank for w in best.workarounds] == list(range(1, len(best.workarounds) + 1))
    # what the paste shows first (it runs --gpu-memory-utilization 0.5), curated rate after
    keys = [(-w.paste_fit, -(w.success_rate or 0.0)) for w in best.workarounds]
    assert keys == sorted(keys) and len(keys) >= 2
    assert best.workarounds[0].paste_fit > 0 and best.why_first
    assert sorted(w.position for w in best.workarounds) == list(range(len(best.workarounds)))
    assert best.root_cause and best.dead_ends
    shown = text_of(result)
    assert (
        VLLM in shown
        and "Root cause:" in shown
        and f"[workaround {best.workarounds[0].position}]" in shown
        and best.why_first in shown
    )


def test_triage_in_chinese_uses_the_translations_and_the_catalogs(agent: Agent) -> None:
    result = agent.call("triage", paste=paste("pad-token-question-zh.txt"), lang="zh")
    report = structured(result, TriageReport)
    assert report.best is not None and report.best.id == "llm/tokenizer-missing-pad-token"
    assert (
        report.best.locale == "zh"
        and has_cjk(report.best.root_cause)
        and has_cjk(report.best.signature)
    )
    assert has_cjk(report.best.workarounds[0].action)
    shown = text_of(result)
    assert "根本原因" in shown and "有效的解决办法" in shown and "Root cause" not in shown


def test_several_errors_come_cause_first_with_the_graph_sections(agent: Agent) -> None:
    result = agent.call("triage", paste=paste("nccl-shm-docker.txt"))
    report = structured(result, TriageReport)
    assert [a.id for a in report.answers] == [
        "llm/nccl-shm-extend-failed",
        "llm/nccl-unhandled-system-error",
    ]
    assert report.order is not None and report.order.fix_first == "llm/nccl-shm-extend-failed"
    causes = {c.error: [i.id for i in c.items] for c in report.causes}
    assert "llm/nccl-shm-extend-failed" in causes["llm/nccl-unhandled-system-error"]
    alike = {a.error: a.items for a in report.confused_with}["llm/nccl-shm-extend-failed"]
    assert alike and alike[0].distinctions
    assert "fix llm/nccl-shm-extend-failed before the others" in text_of(result)


@pytest.mark.parametrize("chat", ["the retro moved to Thursday", "lunch at noon?"])
def test_a_chat_line_gets_no_candidates(agent: Agent, chat: str) -> None:
    report = structured(agent.call("triage", paste=chat), TriageReport)
    assert not report.answered and report.matches == [] and report.errors == []


def test_an_unknown_error_is_not_answered(agent: Agent) -> None:
    result = agent.call("triage", paste=UNKNOWN)
    report = structured(result, TriageReport)
    assert not report.answered and report.best is None and report.errors
    assert not report.answers and report.order is None
    assert "Nothing in the knowledge base matches" in text_of(result) or "Not sure" in text_of(
        result
    )


NOISE = "INFO step 12 ok, loss 0.31, throughput 5012 tok/s\n"


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_a_long_paste_is_read_where_its_error_is_with_the_paste_s_line_numbers(
    agent: Agent, where: str
) -> None:
    error = paste("vllm-oom.txt").strip("\n")
    noise = NOISE * (240_000 // len(NOISE))  # 240 KB: well over ERRKB_PASTE_LIMIT
    before = {"start": "", "middle": noise[: len(noise) // 2], "end": noise}[where]
    big = before + error + "\n" + noise[len(before) :]
    first = before.count("\n") + 1
    expected = first + next(
        i
        for i, line in enumerate(error.split("\n"))
        if line.startswith("ValueError: No available memory")
    )
    report = structured(result := agent.call("triage", paste=big), TriageReport)
    assert report.answered and report.best is not None and report.best.id == VLLM
    assert report.skipped is not None and report.skipped.lines == big.count("\n") + 1
    assert report.skipped.read < report.skipped.lines
    assert expected in [e.line_no for e in report.errors], [
        (e.line_no, e.text) for e in report.errors
    ]
    assert f"{report.skipped.lines:,} lines" in text_of(result) and "skipped the rest" in text_of(
        result
    )


def test_a_one_megabyte_paste_is_read_as_in_slack_and_answered(agent: Agent) -> None:
    head = paste("vllm-oom.txt")
    big = head + "\n" + NOISE * (1_000_000 // 50)
    assert len(big) > 1_000_000
    result = agent.call("triage", paste=big, lang="zh")
    report = structured(result, TriageReport)
    assert report.skipped is not None and report.answered and report.best is not None
    assert report.best.id == VLLM
    assert "其余部分已跳过" in text_of(result)
    binary = agent.call("triage", paste=bytes(range(256)).decode("latin-1") * 4_000)
    assert structured(binary, TriageReport).answered is False


def test_search_show_neighbours_and_stale(agent: Agent) -> None:
    found = structured(agent.call("search", words="KV cache blocks vllm", limit=5), SearchResult)
    assert 0 < len(found.hits) <= 5 and VLLM in [h.id for h in found.hits]
    shown = structured(agent.call("show", id=VLLM, lang="zh"), AnswerRecord)
    assert shown.id == VLLM and shown.band is None and has_cjk(shown.root_cause)
    around = structured(
        agent.call("neighbours", id="llm/nccl-unhandled-system-error", hops=2), Neighbours
    )
    layers = {n.id: n.layer for n in around.nodes}
    assert (
        layers["llm/nccl-unhandled-system-error"] == 0 and layers["llm/nccl-shm-extend-failed"] < 0
    )
    assert any(e.kind == "leads_to" for e in around.edges)
    stale = structured(agent.call("stale", domain="llm", limit=3, lang="zh"), StaleList)
    assert stale.total >= len(stale.records) > 0 and all(r.domain == "llm" for r in stale.records)
    assert has_cjk(stale.records[0].why)


#: The starter base's domains, as the tool lists them (sorted, comma separated).
STARTER_DOMAINS = ", ".join(
    sorted({r["domain"] for f in starter_dir().glob("*.json") for r in json.loads(f.read_text())})
)


@pytest.mark.parametrize(
    "lang,said",
    [
        ("en", f"There is no domain “nope” in the knowledge base. Its domains: {STARTER_DOMAINS}."),
        ("zh", f"知识库里没有“nope”这个领域。现有的领域：{STARTER_DOMAINS}。"),
    ],
)
def test_stale_names_an_unknown_domain_and_the_known_ones(
    agent: Agent, lang: str, said: str
) -> None:
    result = agent.call("stale", domain="nope", lang=lang)
    assert result.is_error and text_of(result) == said


def test_unknown_ids_and_bad_arguments_are_one_line_tool_errors(agent: Agent) -> None:
    for tool, args in (
        ("show", {"id": "no/such-record"}),
        ("neighbours", {"id": "no/such-record"}),
        ("report_outcome", {"record_id": "no/such-record", "workaround": 0, "worked": True}),
    ):
        result = agent.call(tool, **args)
        assert result.is_error and "no record with id 'no/such-record'" in text_of(result), tool
        assert "\n" not in text_of(result) and "Traceback" not in text_of(result)
    bad = agent.call("neighbours", id=VLLM, hops=9)
    assert (
        bad.is_error
        and text_of(bad)
        == "invalid arguments for neighbours: hops: Input should be less than or equal to 5"
    )
    missing = agent.call("triage")
    assert (
        missing.is_error
        and "paste: Field required" in text_of(missing)
        and "\n" not in text_of(missing)
    )
    no_slot = agent.call("report_outcome", record_id=VLLM, workaround=99, worked=True)
    assert no_slot.is_error and "has no workaround 99" in text_of(no_slot)
    with pytest.raises(MCPError, match="no record"):
        agent.read("errkb://record/no/such-record")


def _counts(store: Store, record_id: str, position: int) -> tuple[int, int]:
    with store.transaction() as session:
        return slack_repo.workaround_counts(session, record_ids=[record_id]).get(
            (record_id, position), (0, 0)
        )


def test_report_outcome_counts_like_a_slack_vote(agent: Agent, starter_store: Store) -> None:
    with (
        starter_store.transaction() as session
    ):  # one voter per server kind: start afresh each time
        session.execute(delete(VoteRow).where(VoteRow.record_id == VLLM))
    report = structured(agent.call("triage", paste=paste("vllm-oom.txt")), TriageReport)
    assert report.best is not None
    first = report.best.workarounds[0]
    before = _counts(starter_store, VLLM, first.position)
    assert (first.fixed, first.failed) == before
    said = structured(
        agent.call(
            "report_outcome",
            record_id=VLLM,
            workaround=first.position,
            worked=True,
            note="raised gpu_memory_utilization",
        ),
        Outcome,
    )
    assert said.changed and said.previous is None and said.client == CLIENT
    assert (
        (said.fixed, said.failed)
        == (before[0] + 1, before[1])
        == _counts(starter_store, VLLM, first.position)
    )
    again = structured(
        agent.call("report_outcome", record_id=VLLM, workaround=first.position, worked=True),
        Outcome,
    )
    assert not again.changed and (again.fixed, again.failed) == (said.fixed, said.failed)
    changed = structured(
        agent.call("report_outcome", record_id=VLLM, workaround=first.position, worked=False),
        Outcome,
    )
    assert changed.previous == "fixed" and (changed.fixed, changed.failed) == (
        before[0],
        before[1] + 1,
    )
    seen = structured(agent.call("show", id=VLLM), AnswerRecord)
    assert {w.position: (w.fixed, w.failed) for w in seen.workarounds}[first.position] == (
        before[0],
        before[1] + 1,
    )
    with starter_store.transaction() as session:
        voters = set(session.scalars(select(VoteRow.user_id).where(VoteRow.record_id == VLLM)))
        notes = [
            a.after for a in session.scalars(select(AuditRow).where(AuditRow.action == "outcome"))
        ]
    token_holder = "mcp:token:" + hashlib.sha256(TOKEN.encode()).hexdigest()[:16]
    assert len(voters) == 1 and voters <= {token_holder, f"mcp:{local_voter()}"}, (
        "the holder, not the client's name"
    )
    assert {
        "workaround": first.position,
        "verdict": "fixed",
        "note": "raised gpu_memory_utilization",
        "client": CLIENT,
    } in notes


def test_the_record_resource_and_the_prompt(agent: Agent) -> None:
    templates = agent.templates().resource_templates
    assert [t.uri_template for t in templates] == ["errkb://record/{+id}"]
    read = agent.read(f"errkb://record/{VLLM}")
    native = json.loads(read.contents[0].text)
    assert native["id"] == VLLM and native["regex"] and "workarounds" in native
    told = agent.prompt("use_errkb", error="RuntimeError: CUDA out of memory")
    words = told.messages[0].content.text
    assert (
        "triage" in words
        and "report_outcome" in words
        and "RuntimeError: CUDA out of memory" in words
    )
    assert has_cjk(agent.prompt("use_errkb", lang="zh").messages[0].content.text)


@pytest.mark.slow
def test_stderr_of_a_stdio_server_holds_its_json_logs(tmp_path: Path, starter_store: Store) -> None:
    log = tmp_path / "stderr.log"
    with (
        log.open("w") as errlog,
        connect(stdio(mcp_env(starter_store, tmp_path), errlog)) as connected,
    ):
        assert (
            "report_outcome" not in connected.tools()
        )  # read-only unless ERRKB_MCP_OUTCOMES is set
        assert not connected.call(
            "search", words="CUDA out of memory"
        ).is_error  # waits for the first load
        refused = connected.call("report_outcome", record_id=VLLM, workaround=0, worked=True)
        assert refused.is_error and "report_outcome" in text_of(refused)
    lines = [
        json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    assert any(line["msg"] == "knowledge base loaded" for line in lines)
