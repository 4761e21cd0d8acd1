"""The reader's language among equal answers, as the CLI and MCP give them: after an
English-only duplicate of a translated record arrives, a Chinese reader still gets the
translated record, in Chinese; an English reader gets the best match as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.mcp.text import triage_text
from bot.records import Record
from bot.report import TriageReport
from bot.store import repository
from bot.store.db import Store
from tests.mcp.conftest import connect, load_starter, mcp_env, stdio
from tests.slack.conftest import TODAY
from tests.test_cli import run

TRANSLATED = "llm/cuda-device-side-assert"
DUPLICATE = {
    "id": "cuda/device-side-assert/cuda12-a100",
    "signature": "RuntimeError: CUDA error: device-side assert triggered",
    "regex": "CUDA error: device-side assert triggered",
    "domain": "cuda",
    "root_cause": "A CUDA kernel hit a device-side assertion, most "
    "often an index out of range (labels outside "
    "the number of classes, embedding ids past the vocabulary).",
    "workarounds": [
        {
            "action": "Rerun with CUDA_LAUNCH_BLOCKING=1 to see the failing operation",
            "success_rate": 0.8,
        }
    ],
    "tags": ["cuda", "pytorch"],
    "confidence": 0.8,
}
PASTE = (
    'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n'
    "    loss = criterion(logits, labels)\nRuntimeError: CUDA error: device-side assert triggered\n"
    "训练到一半报错了\n"
)
DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.mark.slow
def test_cli_answers_a_chinese_reader_with_the_translated_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dup.json").write_text(json.dumps([DUPLICATE]), encoding="utf-8")
    (tmp_path / "paste.txt").write_text(PASTE, encoding="utf-8")
    args = (
        "triage",
        str(tmp_path / "paste.txt"),
        "--records",
        str(DATA),
        "--records",
        str(tmp_path / "dup.json"),
    )
    _, out, _ = run(capsys, *args, "--json", "--lang", "en")
    english = json.loads(out)
    assert english["best"]["id"] == DUPLICATE["id"]  # the duplicate ranks first on the paste alone
    _, out, _ = run(capsys, *args, "--json", "--lang", "zh")
    chinese = json.loads(out)
    assert (
        chinese["answered"]
        and chinese["best"]["id"] == TRANSLATED
        and chinese["best"]["locale"] == "zh"
    )
    assert any("\u4e00" <= ch <= "\u9fff" for ch in chinese["best"]["root_cause"])


@pytest.mark.slow
def test_mcp_answers_a_chinese_reader_with_the_translated_record(
    starter_store: Store, tmp_path: Path
) -> None:
    try:
        with starter_store.transaction() as session:
            repository.import_records(
                session,
                records=[Record.model_validate(DUPLICATE)],
                on_conflict="fail",
                actor="test",
                now=TODAY,
            )
        with (
            (tmp_path / "stderr.log").open("w") as errlog,
            connect(stdio(mcp_env(starter_store, tmp_path), errlog)) as agent,
        ):
            chinese = TriageReport.model_validate(
                agent.call("triage", paste=PASTE, lang="zh").structured_content
            )
            english = TriageReport.model_validate(
                agent.call("triage", paste=PASTE, lang="en").structured_content
            )
        assert (
            chinese.best is not None
            and chinese.best.id == TRANSLATED
            and chinese.best.locale == "zh"
        )
        assert english.best is not None and english.best.id == DUPLICATE["id"]
    finally:
        load_starter(starter_store)


def test_when_no_equal_is_translated_the_answer_says_so_in_the_reader_s_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "dup.json").write_text(json.dumps([DUPLICATE]), encoding="utf-8")
    (tmp_path / "paste.txt").write_text(PASTE, encoding="utf-8")
    args = (
        "triage",
        str(tmp_path / "paste.txt"),
        "--records",
        str(tmp_path / "dup.json"),
        "--json",
    )
    _, out, _ = run(capsys, *args, "--lang", "zh")
    best = json.loads(out)["best"]
    assert best["id"] == DUPLICATE["id"] and "尚未翻译" in best["untranslated"]
    report = TriageReport.model_validate(json.loads(out))
    assert "尚未翻译" in triage_text(report, TODAY.date())  # what an agent reads over MCP
    _, out, _ = run(capsys, *args, "--lang", "en")
    assert json.loads(out)["best"]["untranslated"] is None
