"""``errkb search`` and ``errkb eval`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.store.db import Store
from tests.test_cli import run

ROOT = Path(__file__).resolve().parents[2]


def test_search_finds_records_by_chinese_words_of_their_root_cause(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    code, out, _ = run(
        capsys, "search", "显存不足", "--json"
    )  # several records are about GPU memory
    assert code == 0 and "llm/torch-cuda-out-of-memory" in [h["id"] for h in json.loads(out)[:3]]
    code, out, _ = run(capsys, "search", "填充", "--json")  # in no signature: its root cause
    assert code == 0 and json.loads(out)[0]["id"] == "llm/tokenizer-missing-pad-token"


@pytest.mark.slow
def test_eval_prints_both_operating_points_and_draws_the_curve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "curve.png"
    cases = ROOT / "eval" / "starter.jsonl"
    code, out, err = run(
        capsys, "eval", str(cases), "--records", str(ROOT / "data"), "--json", "--plot", str(plot)
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["cases"] == sum(1 for line in cases.read_text().splitlines() if line.strip())
    for point in ("asked", "volunteer"):
        assert {"threshold", "precision", "coverage", "answered", "decline"} <= set(report[point])
    assert report["volunteer"]["threshold"] >= report["asked"]["threshold"]
    assert report["volunteer"]["precision"] >= report["asked"]["precision"]
    assert 0 < report["recall10"] <= report["recall30"] <= 1
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 10_000
    code, out, _ = run(capsys, "eval", str(cases), "--records", str(ROOT / "data"))
    assert code == 0 and "volunteer" in out and "recall@10" in out


def test_eval_refuses_a_plot_that_is_not_a_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys,
        "eval",
        str(ROOT / "eval" / "starter.jsonl"),
        "--records",
        str(ROOT / "data"),
        "--plot",
        str(tmp_path / "curve.svg"),
    )
    assert code == 1 and "PNG" in err
