"""Every starter record is answered by at least one real committed paste.

A record of ``data/`` counts as proven when a case of a starter set names it in
``expected`` and ``errkb eval``'s scoring answers that case, at the asked operating
point, with that record first (``scripts/starter_proof.py``). The pastes are real
ones from public issues, so a record nobody's paste reaches is either a record for an
error people do not meet in that form or one whose regex or text no longer finds it.
"""

from __future__ import annotations

import pytest

from bot.ingest import load_records
from bot.match.eval import Case
from bot.match.index import MatchIndex
from scripts.starter_proof import DATA, UNPROVABLE, Proof, prove, starter_cases, starter_proofs


@pytest.fixture(scope="module")
def proofs() -> dict[str, Proof]:
    return {proof.record_id: proof for proof in starter_proofs()}


def test_every_starter_record_is_answered_by_a_real_paste(proofs: dict[str, Proof]) -> None:
    unproven = {
        record_id: proof.labelled
        for record_id, proof in proofs.items()
        if not proof.answered and record_id not in UNPROVABLE
    }
    assert unproven == {}, "records no committed paste is answered with (cases labelled with it)"


def test_each_exemption_names_a_record_that_still_has_no_paste(
    proofs: dict[str, Proof],
) -> None:
    for record_id, reason in UNPROVABLE.items():
        assert record_id in proofs, f"{record_id} is no longer in the starter base"
        assert reason
        assert proofs[record_id].labelled == (), f"{record_id} has a paste now: drop its exemption"


def test_every_starter_case_is_labelled_with_records_of_the_starter_base() -> None:
    ids = {record.id for record in load_records(sorted(DATA.glob("*.json")))}
    unknown = {
        case.id: [rid for rid in [*case.expected, *case.acceptable] if rid not in ids]
        for case in starter_cases()
    }
    assert {case: rids for case, rids in unknown.items() if rids} == {}


def test_a_paste_answered_by_another_record_proves_nothing() -> None:
    """Labelling is not proof: the record must be the answer errkb gives."""
    index = MatchIndex.build(load_records(sorted(DATA.glob("*.json"))))
    npm = "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree"
    cases = [
        Case(id="mislabelled", text=npm, expected=["python/pip-externally-managed-environment"]),
        Case(id="labelled", text=npm, expected=["node/npm-eresolve-dependency-tree"]),
    ]
    wanted = ["python/pip-externally-managed-environment", "node/npm-eresolve-dependency-tree"]
    found = {
        proof.record_id: (proof.labelled, proof.answered) for proof in prove(index, wanted, cases)
    }
    assert found == {
        "python/pip-externally-managed-environment": (("mislabelled",), ()),
        "node/npm-eresolve-dependency-tree": (("labelled",), ("labelled",)),
    }
