"""Import limits: a file too big, too deep or with too large a value gives one line naming the
file, the record and the field, never a traceback, and nothing is imported."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.ingest import read_records
from bot.ingest.limits import (
    MAX_DEPTH,
    MAX_FIELD_CHARS,
    MAX_FILE_BYTES,
    MAX_FILE_PROBLEMS,
    MAX_VALUES,
)
from bot.ingest.sources import RawItem, read_file
from bot.store.db import Store
from tests.test_cli import run

RECORD = {"id": "x/limits", "signature": "Error: x", "regex": "Error: x", "domain": "x"}


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def _deep_json(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


def _deep_yaml_flow(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


def _deep_yaml_block(path: Path) -> None:
    path.write_text("".join("  " * i + "a:\n" for i in range(2_000)) + "  " * 2_000 + "b: 1\n")


def _deep_record(path: Path) -> None:
    path.write_text(json.dumps({**RECORD, "os_specific": nested(MAX_DEPTH + 5)}) + "\n")


def _long_field(path: Path) -> None:
    workarounds = [{"action": "ok"}, {"action": "w" * (MAX_FIELD_CHARS + 1)}]
    path.write_text(json.dumps([{**RECORD, "workarounds": workarounds}]))


def _many_values(path: Path) -> None:
    path.write_text(json.dumps({**RECORD, "tags": ["t"] * (MAX_VALUES + 1)}))


def _yaml_aliases(path: Path) -> None:
    """Each list repeats the one before ten times: 10^9 values from a few hundred bytes."""
    lines = ["l0: &l0 [" + ", ".join(["x"] * 10) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 9)]
    path.write_text(
        "\n".join([*lines, *(f"{k}: {json.dumps(v)}" for k, v in RECORD.items())]) + "\n"
    )


def _huge_number(path: Path) -> None:
    path.write_text(json.dumps(RECORD)[:-1] + ', "evidence_count": ' + "9" * 5_000 + "}")


def _bad_date(path: Path) -> None:
    path.write_text(
        "".join(f"{k}: {json.dumps(v)}\n" for k, v in RECORD.items()) + "first_seen: 2024-13-45\n"
    )


def _gzip_bomb(path: Path) -> None:
    block = b" " * (1 << 20)
    with gzip.open(path, "wb", compresslevel=1) as out:
        for _ in range((MAX_FILE_BYTES >> 20) + 1):
            out.write(block)
        out.write(b"[]")


#: file name → (writer, expected "where: record: field" of the one problem, words of its message)
CASES: dict[str, tuple[Callable[[Path], None], str, str]] = {
    "deep.json": (_deep_json, "(no id): (file)", "nested more than"),
    "deep-flow.yaml": (_deep_yaml_flow, "line 1: (no id): (file)", "nested more than"),
    "deep-block.yaml": (
        _deep_yaml_block,
        f"line {MAX_DEPTH + 1}: (no id): (file)",
        "nested more than",
    ),
    "deep-record.jsonl": (_deep_record, "line 1: x/limits: os_specific.a.a", "nested more than"),
    "long.json": (_long_field, "index 0: x/limits: workarounds[1].action", "at most 100,000"),
    "many.json": (_many_values, "x/limits: tags[", "more than 100,000 values"),
    "aliases.yaml": (_yaml_aliases, "line 1: (no id): (record)", "more than 100,000 values"),
    "number.json": (_huge_number, "(no id): (file)", "4,300 digits"),
    "date.yaml": (_bad_date, "(no id): (file)", "month must be in 1..12"),
    "bomb.json.gz": (_gzip_bomb, "(no id): (file)", "larger than 256 MiB"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_input_over_a_limit_is_one_problem_in_one_line(tmp_path: Path, name: str) -> None:
    write, where, words = CASES[name]
    path = tmp_path / name
    write(path)
    result = read_records([path])
    assert result.records == []
    assert len(result.problems) == 1, result.problems
    line = str(result.problems[0])
    assert line.startswith(str(path)) and where in line and words in line, line
    assert "\n" not in line and len(line) < 300


def test_values_within_the_limits_are_imported(tmp_path: Path) -> None:
    path = tmp_path / "ok.json"
    record = {**RECORD, "os_specific": nested(MAX_DEPTH - 3), "root_cause": "r" * MAX_FIELD_CHARS}
    path.write_text(json.dumps(record))
    result = read_records([path])
    assert result.problems == [] and [r.id for r in result.records] == ["x/limits"]


def test_errkb_import_of_a_file_nested_100000_deep_prints_one_line(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.json"
    _deep_json(path)
    code, out, err = run(capsys, "import", str(path))
    assert code != 0
    problems = [line for line in err.splitlines() if line.startswith(str(path))]
    assert len(problems) == 1 and "nested more than" in problems[0]
    assert "Traceback" not in out + err and "RecursionError" not in out + err


@pytest.mark.slow
def test_a_json_array_read_a_value_at_a_time_loses_nothing_across_chunks(tmp_path: Path) -> None:
    numbers = [n * 7919 for n in range(300_000)]  # a few MiB: values cut at every chunk edge
    path = tmp_path / "numbers.json"
    path.write_text("[\n" + ",\n ".join(map(str, numbers)) + "\n]\n")
    got = list(read_file(path))
    assert [item.data for item in got if isinstance(item, RawItem)] == numbers
    assert [item.where for item in got[:2]] == ["index 0", "index 1"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ('[{"a": 1},\n {"b": 2}\n {"c": 3}]', "line 3", "Expecting ',' delimiter"),
        ('[{"a": 1},\n {"b": ]', "line 2", "Expecting value"),
        ('[{"a": 1}]\n[{"b": 2}]\n', "line 2", "Extra data"),
        ('[{"a": 1},]', "line 1", "Expecting value"),
    ],
)
def test_invalid_json_is_one_problem_at_its_line(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    result = read_records([path])
    assert len(result.problems) == 1 and result.records == []
    assert f"{path}:{where}: (no id): (file): invalid JSON: {message}" == str(result.problems[0])


def test_more_problems_than_are_listed_are_counted_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("{}\n" * (MAX_FILE_PROBLEMS + 50))
    result = read_records([path])
    assert len(result.problems) == MAX_FILE_PROBLEMS + 1
    assert "more items not checked after 1,000 problems" in str(result.problems[-1])
