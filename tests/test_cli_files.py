"""The command line on real logs and real files: text shown as written, ids whole, labels in
the reader's language, exports that import back, imports that say what is wrong in a screenful."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.store.db import Store
from tests.conftest import wipe
from tests.test_cli import EXAMPLES, run, seed

ROS_LINE = (
    "[ERROR] [1701412345.123]: [/move_base]: Aborting because a valid plan could not be found"
)


def _process(store: Store, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "COLUMNS": "80",
        "ERRKB_DATABASE_URL": store.engine.url.render_as_string(hide_password=False),
    }
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_log_line_in_brackets_is_shown_as_written_not_read_as_markup(
    committed_store: Store, tmp_path: Path
) -> None:
    assert _process(committed_store, "init").returncode == 0
    done = _process(committed_store, "triage", "-", stdin=ROS_LINE + "\n")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "MarkupError" not in done.stderr
    # a record whose error line is that log line: its answer shows the brackets as written
    record = {
        **seed(),
        "id": "ros/move-base-aborting",
        "signature": ROS_LINE.strip(),
        "regex": r"\[/move_base\]: Aborting",
    }
    assert (
        _process(committed_store, "import", str(_write(tmp_path / "r.json", [record]))).returncode
        == 0
    )
    done = _process(committed_store, "triage", "-", stdin=ROS_LINE + "\n")
    assert done.returncode == 0, done.stderr
    assert "[ERROR]" in done.stdout and "[/move_base]" in done.stdout, done.stdout


@pytest.mark.slow
def test_search_keeps_bracketed_text_and_whole_ids_at_80_columns(
    committed_store: Store, tmp_path: Path
) -> None:
    long_id = "llm/" + "a-very-long-record-name-" * 3 + "that-does-not-fit"
    record = {
        **seed(),
        "id": long_id,
        "signature": "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] "
        "Watchdog caught collective operation timeout",
    }
    assert (
        _process(committed_store, "import", str(_write(tmp_path / "r.json", [record]))).returncode
        == 0
    )
    done = _process(committed_store, "search", "ProcessGroupNCCL", "watchdog")
    assert done.returncode == 0, done.stderr
    assert "[rank1]:[E ProcessGroupNCCL" in done.stdout
    lines = done.stdout.splitlines()
    assert long_id in lines, (
        done.stdout
    )  # longer than the terminal: the whole id, on a line of its own


@pytest.mark.slow
def test_ids_in_a_table_are_never_cut(committed_store: Store) -> None:
    assert _process(committed_store, "init").returncode == 0
    done = _process(committed_store, "search", "cuda", "out", "of", "memory")
    hits = json.loads(
        _process(committed_store, "search", "cuda", "out", "of", "memory", "--json").stdout
    )
    assert len(hits) > 3, "the starter data has CUDA memory records"
    assert all(hit["id"] in done.stdout for hit in hits), done.stdout


@pytest.mark.parametrize(
    "lang,labels,english",
    [
        ("en", ["Root cause", "Workarounds", "Dead ends", "matched line"], []),
        (
            "zh",
            [
                "根本原因",
                "解决办法",
                "走不通的路",
                "匹配的第",
                "之前通常出现",
                "修复之后通常接着出现",
            ],
            [
                "Root cause",
                "Workarounds",
                "Dead ends",
                "matched line",
                "Usually preceded by",
                "What to expect next",
            ],
        ),
    ],
)
def test_triage_labels_follow_lang(
    committed_store: Store,
    capsys: pytest.CaptureFixture[str],
    lang: str,
    labels: list[str],
    english: list[str],
) -> None:
    run(capsys, "init")
    code, out, err = run(capsys, "triage", str(EXAMPLES / "nccl-shm-docker.txt"), "--lang", lang)
    assert code == 0, err
    assert all(label in out for label in labels), out
    assert not [word for word in english if word in out]


def test_show_labels_follow_lang(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    code, out, _ = run(capsys, "show", "llm/nccl-shm-extend-failed", "--lang", "zh")
    assert code == 0 and "根本原因" in out and "Root cause" not in out and "版本：" in out


@pytest.mark.slow
@pytest.mark.parametrize(
    "lang,empty,directory",
    [
        ("en", "the paste is empty", "is a directory, not a file"),
        ("zh", "粘贴内容是空的", "是一个目录，不是文件"),
    ],
)
def test_an_empty_paste_and_a_directory_say_so(
    committed_store: Store, tmp_path: Path, lang: str, empty: str, directory: str
) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n", encoding="utf-8")
    for argv, stdin, said in (
        ((str(blank),), "", empty),
        (("-",), "", empty),
        ((str(tmp_path),), "", directory),
    ):
        done = _process(committed_store, "triage", *argv, "--lang", lang, stdin=stdin)
        assert done.returncode == 1 and said in done.stderr and "Traceback" not in done.stderr, (
            done.stderr
        )
        assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,check",
    [
        ("kb.json", lambda raw: isinstance(json.loads(raw), list)),
        ("kb.jsonl", lambda raw: [json.loads(line)["id"] for line in raw.splitlines()]),
        ("kb.ndjson", lambda raw: [json.loads(line)["id"] for line in raw.splitlines()]),
        ("kb.yaml", lambda raw: isinstance(yaml.safe_load(raw), list)),
        ("kb.jsonl.gz", None),
    ],
)
def test_export_writes_what_its_extension_names_and_imports_back(
    committed_store: Store,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    check: Any,
) -> None:
    run(capsys, "init")
    code, before, _ = run(capsys, "export")
    path = tmp_path / name
    code, _, err = run(capsys, "export", "-o", str(path))
    assert code == 0, err
    raw = (
        gzip.decompress(path.read_bytes()).decode()
        if name.endswith(".gz")
        else path.read_text("utf-8")
    )
    if name.endswith(".gz"):
        assert [json.loads(line) for line in raw.splitlines()] == json.loads(before)
    else:
        assert check(raw)
    wipe(committed_store)
    code, _, _ = run(capsys, "init", "--no-starter")
    code, out, err = run(capsys, "import", str(path), "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == len(json.loads(before))
    code, after, _ = run(capsys, "export")
    assert json.loads(after) == json.loads(before)


def test_a_mismatched_format_and_extension_is_refused(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "export", "--format", "jsonl", "-o", str(tmp_path / "kb.json"))
    assert code == 2 and "kb.json names JSON" in err
    assert not (tmp_path / "kb.json").exists()


def test_import_tells_an_array_from_json_lines_whatever_the_extension(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = seed()
    two = {**seed(), "id": "llm/second-record"}
    _write(tmp_path / "array.jsonl", [one, two])
    (tmp_path / "lines.json").write_text(
        json.dumps({**one, "id": "llm/third"})
        + "\n"
        + json.dumps({**one, "id": "llm/fourth"})
        + "\n",
        encoding="utf-8",
    )
    code, out, err = run(
        capsys, "import", str(tmp_path / "array.jsonl"), str(tmp_path / "lines.json"), "--json"
    )
    assert code == 0, err
    assert json.loads(out)["added"] == 4


def test_a_failing_import_lists_a_screenful_and_the_count(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = [{**seed(), "id": f"llm/bad-{n}", "fix_success_rate": 3} for n in range(45)]
    path = _write(tmp_path / "bad.json", bad)
    code, _, err = run(capsys, "import", str(path))
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) <= 25, lines
    assert sum("fix_success_rate" in line for line in lines) == 20
    assert (
        "25 more not shown (45 in all)" in err
        and "45 problems in the input; nothing was imported" in err
    )
    code, _, err = run(capsys, "import", str(path), "--verbose")
    assert code == 1 and sum("fix_success_rate" in line for line in err.splitlines()) == 45


def test_import_domain_takes_only_those_records(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "two.json", [seed(), {**seed(), "id": "web/other", "domain": "web"}])
    code, out, err = run(capsys, "import", str(path), "--domain", "web")
    assert code == 0, err
    assert "1 added" in out and "1 of other domains left out" in out
    code, out, _ = run(capsys, "stats", "--json")
    assert json.loads(out)["domains"] == {"web": 1}


def test_regexes_that_would_backtrack_elsewhere_are_one_note(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    risky = [{**seed(), "id": f"llm/risky-{n}", "regex": f"(a+)+b{n}"} for n in range(7)]
    path = _write(tmp_path / "risky.json", risky)
    code, _, err = run(capsys, "import", str(path))
    assert code == 0
    notes = [line for line in err.splitlines() if "regex" in line]
    assert len(notes) == 1 and notes[0].startswith("note: 7 regexes") and "RE2" in notes[0]
    code, _, err = run(capsys, "import", str(path), "--verbose")
    assert sum("nested quantifier" in line for line in err.splitlines()) == 7


@pytest.mark.parametrize(
    "lang,said", [("en", "There is no domain “nope”"), ("zh", "知识库里没有“nope”这个领域")]
)
def test_digest_names_an_unknown_domain_and_the_known_ones(
    committed_store: Store, capsys: pytest.CaptureFixture[str], lang: str, said: str
) -> None:
    run(capsys, "init")
    code, out, err = run(capsys, "digest", "--dry-run", "--domain", "nope", "--lang", lang)
    assert code == 1 and said in err and "llm" in err and out == ""


def test_the_digest_dry_run_says_how_many_it_did_not_list(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    code, out, _ = run(capsys, "digest", "--dry-run", "--json", "--limit", "1000")
    total = json.loads(out)["stale"]
    assert total > 3
    code, out, _ = run(capsys, "digest", "--dry-run", "--limit", "3")
    lines = out.strip().splitlines()
    assert lines[0].startswith(f"{total} stale records") and len(lines) == 5
    assert lines[-1] == f"… and {total - 3} more."
    assert "(s)" not in out


def test_an_empty_record_file_is_a_problem_not_a_silent_nothing(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("empty.json", "empty.jsonl"):
        (tmp_path / name).write_text("\n", encoding="utf-8")
        code, _, err = run(capsys, "import", str(tmp_path / name))
        assert code == 1 and f"{name}: (no id): (file): the file is empty" in err


def test_eval_of_a_directory_says_it_is_one(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "eval", str(tmp_path))
    assert code == 1 and "is a directory, not a file" in err


@pytest.mark.slow
def test_show_keeps_an_id_longer_than_the_panel_whole(
    committed_store: Store, tmp_path: Path
) -> None:
    long_id = "llm/" + "an-id-that-is-longer-than-eighty-columns-" * 2 + "end"
    assert (
        _process(
            committed_store, "import", str(_write(tmp_path / "r.json", [{**seed(), "id": long_id}]))
        ).returncode
        == 0
    )
    done = _process(committed_store, "show", long_id)
    assert done.returncode == 0, done.stderr
    folded = "".join(line.strip("│ ").strip() for line in done.stdout.splitlines()[1:4])
    assert long_id in folded, done.stdout
