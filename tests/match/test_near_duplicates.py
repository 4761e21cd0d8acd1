"""Near-duplicate records: with no environment in the paste, the most general one answers
and the answer says it fits several; a paste that names one keeps the ranker's choice."""

from __future__ import annotations

import pytest

from bot.fit.duplicates import generality, most_general, prefer_general, several_note
from bot.fit.order import PasteFacts
from bot.i18n import available_locales
from bot.match.index import MatchIndex
from bot.records import Record

GENERAL = "cmake/generator-not-found/cmake3-linux"
SPECIFIC = "cmake/generator-not-found/cmake3.28-linux"
PASTE = "CMake Error: Could not create named generator Ninja"


def test_the_most_general_variant_answers_a_paste_naming_no_environment(
    deadends_index: MatchIndex,
) -> None:
    triage = prefer_general(deadends_index.triage(PASTE), PASTE, deadends_index.record)
    best = triage.matches[0]
    assert best.record_id == GENERAL
    assert SPECIFIC in best.variants


def test_a_paste_naming_a_version_keeps_the_rankers_choice(deadends_index: MatchIndex) -> None:
    paste = PASTE + "\ncmake version 3.28.1"
    raw = deadends_index.triage(paste)
    chosen = prefer_general(raw, paste, deadends_index.record)
    assert chosen.matches[0].record_id == raw.matches[0].record_id


@pytest.mark.parametrize("locale", available_locales())
def test_the_answer_says_it_fits_several(deadends_index: MatchIndex, locale: str) -> None:
    shown = deadends_index.record(GENERAL)
    assert shown is not None
    note = several_note(locale, shown, [SPECIFIC], PasteFacts.of(PASTE), deadends_index.record)
    assert note is not None and SPECIFIC in note
    named = several_note(
        locale, shown, [SPECIFIC], PasteFacts.of(PASTE + " cmake 3.28.1"), deadends_index.record
    )
    assert named is None


def test_generality_prefers_no_system_then_fewer_version_bounds(
    deadends_records: list[Record],
) -> None:
    seed = deadends_records[0].to_native()

    def variant(env: str, os: str, versions: str) -> Record:
        environment = {"os": os, "runtime": {"name": "tool", "version_range": versions}}
        return Record.model_validate(
            {**seed, "id": f"x/same-error/{env}", "environment": environment}
        )

    anywhere = variant("tool3", "any", ">=3")
    bounded = variant("tool3-any", "any", ">=3,<4")
    linux = variant("tool3-linux", "linux", ">=3")
    ranked = sorted([linux, bounded, anywhere], key=generality)
    assert [r.id for r in ranked] == [anywhere.id, bounded.id, linux.id]
    assert most_general([linux, bounded, anywhere]).id == anywhere.id
