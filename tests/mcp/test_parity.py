"""``triage`` over MCP gives the same report as ``errkb triage --json``: for every starter
example on the starter knowledge base, and for every case of the shared dev set on the
deadends corpus (skipped, saying so, when ../shared is absent)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bot.cli.triage as triage_command
from bot.cli import main
from bot.ingest import load_records
from bot.match.eval import read_cases
from bot.starter import starter_dir
from bot.store import repository
from bot.store.db import Store
from tests.conftest import DEADENDS, DEV_CASES, need_shared
from tests.mcp.conftest import Agent, connect, mcp_env, stdio
from tests.slack.conftest import TODAY


def cli_report(capsys: pytest.CaptureFixture[str], path: Path, lang: str) -> dict[str, Any]:
    try:
        main(["triage", str(path), "--json", "--lang", lang])
    except SystemExit as exc:
        if exc.code:
            raise AssertionError(
                f"errkb triage exited {exc.code}: {capsys.readouterr().err}"
            ) from None
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def mcp_report(agent: Agent, text: str, lang: str) -> dict[str, Any]:
    result = agent.call("triage", paste=text, lang=lang)
    assert not result.is_error, result.content
    report: dict[str, Any] = result.structured_content or {}
    return report


def verdict(report: dict[str, Any]) -> tuple[Any, ...]:
    """The record and band that answer (or the best candidate's, when none does)."""
    best = report["best"]
    top = report["matches"][0] if report["matches"] else None
    return (
        report["answered"],
        best["id"] if best else None,
        best["band"] if best else None,
        (top["id"], top["band"]) if top else None,
    )


def first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return first_difference(a.get(key), b.get(key), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
    return f"{path or '.'}: {a!r} != {b!r}"


def tie_order(report: dict[str, Any]) -> dict[str, Any]:
    """Candidates with equal (rounded) scores in id order: the matcher orders such near-ties by
    float sums taken in set order, which differs from one Python process to the next."""
    return {**report, "matches": sorted(report["matches"], key=lambda m: (-m["score"], m["id"]))}


def compare(
    cases: list[tuple[str, str, str]], agent: Agent, capsys: pytest.CaptureFixture[str], tmp: Path
) -> None:
    differ = []
    for name, text, lang in cases:
        path = tmp / "paste.txt"
        path.write_text(text, encoding="utf-8")
        cli = tie_order(cli_report(capsys, path, lang))
        served = tie_order(mcp_report(agent, text, lang))
        assert served["skipped"] is None, name  # none of these pastes is over ERRKB_PASTE_LIMIT
        if verdict(cli) != verdict(served) or cli != served:
            differ.append(
                f"{name}: cli {verdict(cli)} mcp {verdict(served)}; first difference at "
                f"{first_difference(cli, served)}"
            )
    assert not differ, "\n".join(differ)


def load(store: Store, paths: list[Path]) -> None:
    with store.transaction() as session:
        repository.import_records(
            session, records=load_records(paths), on_conflict="upsert", actor="test", now=TODAY
        )


@pytest.mark.slow
def test_every_starter_example_gets_the_same_answer_over_mcp_and_the_cli(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    load(committed_store, [starter_dir()])
    examples = sorted((starter_dir() / "examples").glob("*.txt"))
    assert len(examples) >= 6
    cases = [
        (p.name, p.read_text(encoding="utf-8"), "zh" if p.stem.endswith("-zh") else "en")
        for p in examples
    ]
    with (
        (tmp_path / "stderr.log").open("w") as errlog,
        connect(stdio(mcp_env(committed_store, tmp_path), errlog)) as agent,
    ):
        compare(cases, agent, capsys, tmp_path)


def once(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` computed at its first call and reused: the corpus is loaded and indexed once
    for the whole dev set, not once per case (each case is still a whole ``errkb triage
    --json``)."""
    kept: list[Any] = []

    def first(*args: Any) -> Any:
        if not kept:
            kept.append(function(*args))
        return kept[0]

    return first


@pytest.mark.shared
@pytest.mark.slow
def test_every_dev_case_gets_the_same_answer_over_mcp_and_the_cli(
    committed_store: Store,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corpus = need_shared(DEADENDS)
    dev = need_shared(DEV_CASES)
    load(committed_store, [corpus])
    monkeypatch.setattr(triage_command, "_knowledge", once(triage_command._knowledge))
    monkeypatch.setattr(triage_command, "_index", once(triage_command._index))
    cases = [(case.id, case.text, case.lang) for case in read_cases(dev)]
    assert len(cases) >= 50
    with (
        (tmp_path / "stderr.log").open("w") as errlog,
        connect(stdio(mcp_env(committed_store, tmp_path), errlog)) as agent,
    ):
        compare(cases, agent, capsys, tmp_path)
