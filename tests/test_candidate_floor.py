"""The candidate floor: the rule that chooses it, and the same decision in the CLI and MCP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.answer import decide, offered
from bot.match.eval import CaseResult, offer, offer_floor
from bot.match.extract import ExtractedError
from bot.match.features import OFFER
from bot.match.rank import Match, Triage
from bot.store.db import Store
from tests.test_cli import run

ERROR = ExtractedError(0, 1, "ZorgleError: qwzx", "log", "exception", "ZorgleError: qwzx")


def match(record: str, score: float) -> Match:
    band = "high" if score >= 0.7227 else "medium" if score >= 0.4347 else "low"
    return Match(record, score, band, 0, "ZorgleError: qwzx", 1, ())


def triage(*scores: float, errors: bool = True) -> Triage:
    matches = tuple(match(f"r/{i}", s) for i, s in enumerate(scores))
    return Triage((ERROR,) if errors else (), matches, ((0, matches),) if errors else ())


def test_no_error_found_means_no_candidates_however_the_words_match() -> None:
    found = triage(0.3, 0.2, errors=False)
    assert offered(found) == [] and decide(found, asked=True) == "no_error"


def test_only_candidates_at_or_above_the_floor_are_offered() -> None:
    found = triage(OFFER + 0.05, OFFER, OFFER - 0.01, 0.03)
    assert [m.record_id for m in offered(found)] == ["r/0", "r/1"]
    assert decide(found, asked=True) == "candidates"
    assert decide(triage(0.03, 0.02), asked=True) == "nothing"


def result(case: str, *candidates: tuple[float, bool], positive: bool = True) -> CaseResult:
    return CaseResult(
        id=case,
        positive=positive,
        answered=False,
        volunteered=False,
        top_right=False,
        top_score=candidates[0][0] if candidates else 0.0,
        top1=False,
        top3=False,
        reciprocal_rank=0.0,
        rank=0,
        correct_decline=not positive,
        ms=1.0,
        top=[],
        candidates=list(candidates),
    )


def test_the_floor_is_the_lowest_score_where_one_candidate_in_five_is_right() -> None:
    results = [
        result("a", (0.40, True), (0.30, False)),
        result("b", (0.25, False), (0.12, False), (0.11, False)),
        result("c", (0.10, False), (0.05, False), positive=False),
        result("d", (0.09, False), (0.02, False)),
    ]
    # at 0.10: 1 right of 6 (0.17); at 0.11: 1 of 5 (0.2): the rule's floor
    assert offer(results, 0.10).right < 0.2 <= offer(results, 0.11).right
    assert offer_floor(results) == 0.11
    at = offer(results, 0.11)
    assert at.offered == 5 and at.negatives == 0.0 and at.pastes == 0.5


def test_cli_triage_of_a_chat_line_lists_no_candidates(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    paste = tmp_path / "chat.txt"
    paste.write_text("lunch at noon?\n", encoding="utf-8")
    code, out, _ = run(capsys, "triage", str(paste), "--json")
    assert code == 0 and json.loads(out)["matches"] == [] and not json.loads(out)["answered"]
    code, out, _ = run(capsys, "triage", str(paste))
    assert "Nothing known" in out and "Not sure" not in out


def test_cli_triage_offers_no_candidate_below_the_floor(
    committed_store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "init")
    paste = tmp_path / "unknown.txt"
    paste.write_text(
        "** (FunctionClauseError) no function clause matching in Enum.map/2\n", encoding="utf-8"
    )
    code, out, _ = run(capsys, "triage", str(paste), "--json")
    assert all(m["score"] >= OFFER for m in json.loads(out)["matches"])
