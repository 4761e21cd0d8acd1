"""The command line, in process and as a real subprocess, on the test database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.store.db import Store
from tests.conftest import FIXTURES


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def seed() -> dict[str, Any]:
    return json.loads((FIXTURES / "seed.json").read_text(encoding="utf-8"))


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(seed(), ensure_ascii=False), encoding="utf-8")
    return path


def test_import_then_export_gives_the_seed_back(
    committed_store: Store, seed_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "import", str(seed_file))
    assert code == 0 and "1 added" in out
    code, out, _ = run(capsys, "export", "--format", "json")
    assert code == 0
    assert json.loads(out) == [seed()]
    code, out, _ = run(capsys, "import", str(seed_file), "--json")
    assert json.loads(out)["unchanged"] == 1


def test_export_as_deadends_gives_the_canon_back(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    canon = FIXTURES / "deadends-canon.json"
    code, out, err = run(capsys, "import", str(canon), "--json")
    assert code == 0
    assert len(json.loads(out)["warnings"]) == 3  # its three links point at records we do not have
    code, out, _ = run(capsys, "export", "--format", "deadends")
    assert [json.loads(line) for line in out.splitlines()] == [
        json.loads(canon.read_text(encoding="utf-8"))
    ]


def test_a_bad_record_stops_the_whole_import(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = seed()
    (tmp_path / "a.json").write_text(
        json.dumps([good, {**good, "id": "llm/other"}]), encoding="utf-8"
    )
    (tmp_path / "b.jsonl").write_text(
        json.dumps({**good, "id": "llm/bad", "fix_success_rate": 3}) + "\n", encoding="utf-8"
    )
    code, out, err = run(capsys, "import", str(tmp_path))
    assert code == 1
    assert (
        "b.jsonl:line 1: llm/bad: fix_success_rate: Input should be less than or equal to 1" in err
    )
    assert "nothing was imported" in err
    assert "Traceback" not in err
    code, out, _ = run(capsys, "stats", "--json")
    assert json.loads(out)["records"] == 0


def test_on_conflict_fail_changes_nothing(
    committed_store: Store, seed_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "import", str(seed_file))
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps({**seed(), "root_cause": "Something else."}), encoding="utf-8")
    code, _, err = run(capsys, "import", str(edited), "--on-conflict", "fail")
    assert code == 1 and "already in the knowledge base" in err
    code, out, _ = run(capsys, "show", seed()["id"], "--json")
    assert json.loads(out)["root_cause"] == seed()["root_cause"]


def test_show_in_chinese_falls_back_where_untranslated(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = seed()
    data.pop("root_cause_zh")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    run(capsys, "import", str(path))
    code, out, _ = run(capsys, "show", data["id"], "--lang", "zh")
    assert code == 0
    assert "内存不足错误" in out  # the Chinese signature
    assert "PagedAttention block manager" in out  # English root cause, no translation


def test_user_mistakes_are_one_line_errors(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "show", "llm/does-not-exist")
    assert code == 1 and "no record with id 'llm/does-not-exist'" in err and "Traceback" not in err
    code, _, err = run(capsys, "import", "/no/such/place")
    assert code == 1 and "no such file or folder" in err
    code, _, err = run(capsys, "export", "--format", "xml")
    assert code == 2 and "--format must be" in err


@pytest.mark.slow
def test_the_console_script_runs_as_a_process(committed_store: Store, seed_file: Path) -> None:
    env = {
        **os.environ,
        "ERRKB_DATABASE_URL": committed_store.engine.url.render_as_string(hide_password=False),
    }
    done = subprocess.run(
        [sys.executable, "-m", "bot", "import", str(seed_file), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["added"] == 1


def test_search_finds_records_by_words_in_any_language(
    committed_store: Store, seed_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "import", str(seed_file))
    code, out, _ = run(capsys, "search", "KV", "cache", "block", "--json")
    assert code == 0 and json.loads(out)[0]["id"] == seed()["id"]
    code, out, _ = run(capsys, "search", "缓存块", "--json", "--lang", "zh")
    assert json.loads(out)[0]["signature"] == seed()["signature_zh"]
    code, out, _ = run(capsys, "search", "nothing-like-this-anywhere")
    assert code == 0 and "No record matches" in out


EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"


def test_triage_orders_errors_cause_first_with_graph_sections(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    code, out, _ = run(capsys, "triage", str(EXAMPLES / "nccl-shm-docker.txt"), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["answered"]
    assert [a["id"] for a in data["answers"]] == [
        "llm/nccl-shm-extend-failed",
        "llm/nccl-unhandled-system-error",
    ]
    assert data["order"]["fix_first"] == "llm/nccl-shm-extend-failed"
    causes = {c["error"]: [i["id"] for i in c["items"]] for c in data["causes"]}
    assert "llm/nccl-shm-extend-failed" in causes["llm/nccl-unhandled-system-error"]
    assert all({"causes", "next", "confused_with", "order"} <= set(data) for _ in [0])
    code, out, _ = run(capsys, "triage", str(EXAMPLES / "nccl-shm-docker.txt"))
    assert "cause first: fix llm/nccl-shm-extend-failed first" in out
    assert "Usually preceded by" in out and "What to expect next" in out


def test_triage_answers_in_chinese_with_fallback_marked(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    code, out, _ = run(
        capsys, "triage", str(EXAMPLES / "pad-token-question-zh.txt"), "--json", "--lang", "zh"
    )
    assert code == 0
    best = json.loads(out)["best"]
    assert best["locale"] == "zh" and any("\u4e00" <= ch <= "\u9fff" for ch in best["root_cause"])


def test_triage_of_an_unknown_error_says_nothing_is_known(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    paste = tmp_path / "p.txt"
    paste.write_text(
        "** (FunctionClauseError) no function clause matching in Enum.map/2\n", encoding="utf-8"
    )
    code, out, _ = run(capsys, "triage", str(paste), "--json")
    assert code == 0 and json.loads(out)["answered"] is False


@pytest.mark.slow
def test_a_triage_session_records_observed_transitions(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    run(capsys, "triage", "--session", "s1", str(EXAMPLES / "flash-attn-import.txt"))
    run(capsys, "triage", "--session", "s1", str(EXAMPLES / "vllm-oom.txt"))
    run(capsys, "triage", "--session", "other", str(EXAMPLES / "nccl-timeout.txt"))
    code, out, _ = run(capsys, "graph", "observed", "--json")
    observed = json.loads(out)
    pairs = {
        (o["source"], o["target"])
        for o in (observed if isinstance(observed, list) else observed["observed"])
    }
    assert any(t == "llm/vllm-no-available-memory-for-cache-blocks" for _, t in pairs)
    assert all("nccl" not in t for _, t in pairs)  # another session is not a transition


def test_import_flags_a_regex_that_could_backtrack_catastrophically(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**seed(), "regex": "(a+)+b"}), encoding="utf-8")
    code, out, _ = run(capsys, "import", str(path), "--json")
    assert code == 0
    assert any("nested quantifier" in w for w in json.loads(out)["regex_notes"])
