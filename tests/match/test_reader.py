"""The reader's language among equal answers: pure rules, and the imported-corpus case."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ingest import load_records
from bot.match.extract import ExtractedError
from bot.match.index import MatchIndex
from bot.match.rank import Match, Triage
from bot.match.reader import READER_MARGIN, prefer_reader, same_error, speaks
from bot.records import Record

from .conftest import DEADENDS, make

ERROR = ExtractedError(
    0, 3, "RuntimeError: CUDA error: device-side assert triggered", "python", "exception", "t"
)
SIG = "RuntimeError: CUDA error: device-side assert triggered"
EN = make(
    "cuda/device-side-assert/cuda12",
    SIG,
    "device-side assert triggered",
    "cuda",
    root_cause="A kernel assertion failed, often an index out of range.",
)
ZH = make(
    "llm/cuda-device-side-assert",
    SIG + "\nCUDA kernel errors might be asynchronously reported",
    "device-side assert triggered",
    "llm",
    root_cause="An index out of range in a kernel.",
    root_cause_zh="内核中的索引越界。",
)
OTHER = make(
    "cuda/illegal-memory/cuda12",
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    "illegal memory access",
    "cuda",
    root_cause="A kernel read freed memory.",
    root_cause_zh="内核读取了已释放的内存。",
)
RECORDS = {r.id: r for r in (EN, ZH, OTHER)}


def match(record: Record, score: float, band: str = "high", error: int = 0) -> Match:
    return Match(record.id, score, band, error, SIG, 3, ())


def triage(*matches: Match) -> Triage:
    return Triage((ERROR,), matches, ((0, matches),))


def test_a_record_speaks_its_own_locale_and_the_ones_its_root_cause_is_translated_into() -> None:
    assert speaks(ZH, "zh") and speaks(ZH, "en") and not speaks(EN, "zh")


def test_the_same_error_stated_twice_is_told_from_a_different_error() -> None:
    assert same_error(EN, ZH)
    assert not same_error(EN, OTHER)
    short = make("cuda/any/cuda12", "RuntimeError: CUDA error", "CUDA error", "cuda")
    assert not same_error(short, EN)  # a prefix too short to name the error


def test_the_reader_s_translation_answers_the_same_error_in_the_best_s_place() -> None:
    found = prefer_reader(triage(match(EN, 0.99), match(ZH, 0.40, "low")), "zh", RECORDS.get)
    best = found.matches[0]
    assert best.record_id == ZH.id and best.score == 0.99 and best.band == "high"
    assert EN.id in best.variants and found.per_error[0][1][0].record_id == ZH.id
    assert [m.record_id for m in found.matches] == [ZH.id]


def test_an_english_reader_keeps_the_best_and_an_unequal_translation_does_not_win() -> None:
    both = triage(match(EN, 0.99), match(ZH, 0.98))
    assert prefer_reader(both, "en", RECORDS.get) == both
    far = triage(match(EN, 0.99), match(OTHER, 0.99 - READER_MARGIN - 0.01))
    assert prefer_reader(far, "zh", RECORDS.get).matches[0].record_id == EN.id


def test_a_close_translated_record_of_another_error_wins_only_within_the_margin_and_band() -> None:
    near = triage(match(EN, 0.90), match(OTHER, 0.90 - READER_MARGIN / 2))
    assert prefer_reader(near, "zh", RECORDS.get).matches[0].record_id == OTHER.id
    other_band = triage(match(EN, 0.73), match(OTHER, 0.71, "medium"))
    assert prefer_reader(other_band, "zh", RECORDS.get).matches[0].record_id == EN.id


@pytest.mark.slow
@pytest.mark.shared
def test_after_importing_the_corpus_a_chinese_reader_gets_the_translated_starter_record() -> None:
    if not DEADENDS.exists():
        pytest.skip("../shared corpora not present")
    starter = load_records(sorted((Path(__file__).resolve().parents[2] / "data").glob("*.json")))
    ids = {r.id for r in starter}
    kb = MatchIndex.build(starter + [r for r in load_records([DEADENDS]) if r.id not in ids])
    paste = (
        'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n'
        "    loss = criterion(logits, labels)\nRuntimeError: "
        "CUDA error: device-side assert triggered\n"
        "训练到一半报错了，怎么办？"
    )
    plain = kb.triage(paste)
    assert (
        plain.answered and plain.matches[0].record_id != "llm/cuda-device-side-assert"
    )  # the import's own
    chosen = prefer_reader(plain, "zh", kb.record)
    assert chosen.answered and chosen.matches[0].record_id == "llm/cuda-device-side-assert"
    assert prefer_reader(plain, "en", kb.record).matches[0].record_id == plain.matches[0].record_id
