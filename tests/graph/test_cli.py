"""``errkb graph …`` end to end, through Typer's runner."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from matplotlib import image
from typer.testing import CliRunner

from bot.cli import app
from bot.store import repository
from bot.store.db import Store
from bot.store.observed import observe_error
from tests.conftest import DATA, DEADENDS, need_shared
from tests.graph.conftest import rec, to

runner = CliRunner()


@pytest.fixture
def kb_file(tmp_path: Path) -> Path:
    records = [
        rec(
            "c/a",
            "ImportError: no module named x",
            signature_zh="导入错误：没有模块 x",
            leads_to=[to("c/b", 0.6, "after installing x")],
        ),
        rec(
            "c/b",
            "RuntimeError: CUDA out of memory",
            preceded_by=[to("c/a", 0.6)],
            frequently_confused_with=[{"error_id": "c/c", "distinction": "GPU, not host"}],
        ),
        rec("c/c", "MemoryError", frequently_confused_with=["c/b"]),
    ]
    path = tmp_path / "kb.json"
    path.write_text(json.dumps([r.to_native() for r in records], ensure_ascii=False), "utf-8")
    return path


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_check_strict_json_on_a_clean_file(kb_file: Path) -> None:
    code, out = run("graph", "check", "--strict", "--json", "--records", str(kb_file))
    assert code == 0, out
    report = json.loads(out)
    assert report["strict_ok"] and report["references"] == 4 and report["dangling"] == []


def test_check_strict_fails_on_dangling_references(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([rec("b/a", leads_to=["b/ghost"]).to_native()]), "utf-8")
    code, out = run("graph", "check", "--records", str(path))
    assert code == 0 and "dangling references: 1" in out and "b/ghost" in out
    assert run("graph", "check", "--strict", "--records", str(path))[0] == 1


def test_show_prints_a_tree_json_and_a_png(kb_file: Path, tmp_path: Path) -> None:
    code, out = run("graph", "show", "c/b", "--records", str(kb_file), "--lang", "zh")
    assert code == 0, out
    assert (
        "← 0.60  c/a  导入错误：没有模块 x  [条件：after installing x]" in out
        and "之前出现：" in out
    )
    png = tmp_path / "g.png"
    code, out = run("graph", "show", "c/b", "--json", "--png", str(png), "--records", str(kb_file))
    assert code == 0, out
    data = json.loads(out)
    assert data["centre"] == "c/b" and {n["id"] for n in data["nodes"]} == {"c/a", "c/b", "c/c"}
    assert image.imread(str(png)).shape[0] > 100


def test_show_unknown_id_is_a_user_error(kb_file: Path) -> None:
    code, out = run("graph", "show", "c/none", "--records", str(kb_file))
    assert code == 1 and "no record" in out


def test_export_graphml_and_json(kb_file: Path, tmp_path: Path) -> None:
    target = tmp_path / "kb.graphml"
    assert (
        run("graph", "export", "--format", "graphml", "-o", str(target), "--records", str(kb_file))[
            0
        ]
        == 0
    )
    import networkx as nx

    exported = nx.read_graphml(target)
    assert exported.number_of_nodes() == 3 and exported.number_of_edges() == 2
    code, out = run("graph", "export", "--format", "json", "--records", str(kb_file))
    assert code == 0, out
    data = json.loads(out)
    assert [e["source"] for e in data["leads_to"]] == ["c/a"]
    assert data["frequently_confused_with"][0]["distinctions"] == [
        {"record": "c/b", "text": "GPU, not host"}
    ]
    assert run("graph", "export", "--format", "dot", "--records", str(kb_file))[0] == 1


def test_commands_read_the_database_and_list_observed(
    committed_store: Store, kb_file: Path
) -> None:
    from bot.ingest import load_records

    now = datetime(2024, 6, 1, tzinfo=UTC)
    with committed_store.transaction() as session:
        repository.import_records(
            session, records=load_records([kb_file]), on_conflict="upsert", actor="test", now=now
        )
        observe_error(session, scope="thread-1", record_id="c/b", seen_at=now)
        observe_error(session, scope="thread-1", record_id="c/c", seen_at=now.replace(hour=1))
    code, out = run("graph", "check", "--json")
    assert code == 0 and json.loads(out)["records"] == 3
    code, out = run("graph", "observed", "--json")
    assert code == 0, out
    assert [(o["source"], o["target"], o["count"], o["curated"]) for o in json.loads(out)] == [
        ("c/b", "c/c", 1, False)
    ]
    code, out = run("graph", "show", "c/b")
    assert "observed in use (not curated):" in out and "c/c  seen 1×" in out


def test_every_graph_command_has_help_with_an_example() -> None:
    for command in ("check", "show", "export", "observed"):
        code, out = run("graph", command, "--help")
        assert code == 0 and "Example:" in out, command


@pytest.mark.slow
def test_deadends_corpus_checks_clean_in_strict_mode() -> None:
    code, out = run("graph", "check", "--strict", "--json", "--records", str(need_shared(DEADENDS)))
    assert code == 0
    assert json.loads(out)["references"] == 2610


def test_starter_data_checks_clean_in_strict_mode() -> None:
    files = sorted(DATA.glob("*.json"))
    if not files:
        pytest.skip("no starter knowledge base in data/ yet")
    code, out = run("graph", "check", "--strict", "--json", *[f"--records={f}" for f in files])
    assert code == 0, out
    report = json.loads(out)
    assert report["dangling"] == [] and report["self_loops"] == []
