"""Which starter records no committed real paste proves.

A starter record is proven when at least one case of a starter set
(``eval/starter*.jsonl``, labelled against ``data/``) names it in ``expected`` and
``errkb eval``'s own scoring answers that case, at the asked operating point, with
this record first. A record answered only through another record (a paste labelled
with it but answered by a look-alike or a wrapper record) is not proven: the
paste shows that someone meets the error, not that errkb gives this record's answer.

One record is exempt, by name and with its reason (``UNPROVABLE``): the brief's seed
example is kept field for field, and no public issue quotes its message, so no real
paste can carry it. ``python -m scripts.starter_proof`` prints every other unproven
record with the cases labelled with it, and exits 1 when there is any;
``tests/test_data_pastes.py`` holds the same line.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from bot.ingest import load_records
from bot.match.eval import Case, read_cases, score_case
from bot.match.index import MatchIndex

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
EVAL = ROOT / "eval"

#: Records no real paste can prove, each with the reason; the test keeps this list honest.
UNPROVABLE = {
    "llm/vllm-block-manager-out-of-memory": (
        "the brief's seed example, kept field for field; no public issue quotes its message"
    ),
}


@dataclass(frozen=True)
class Proof:
    """The committed pastes labelled with one record, and those answered by it."""

    record_id: str
    labelled: tuple[str, ...]
    answered: tuple[str, ...]


def starter_cases(eval_dir: Path = EVAL) -> list[Case]:
    """Every case of every starter set, in file order."""
    return [case for path in sorted(eval_dir.glob("starter*.jsonl")) for case in read_cases(path)]


def prove(index: MatchIndex, record_ids: Iterable[str], cases: Iterable[Case]) -> list[Proof]:
    """For each record, the cases labelled with it and the ones errkb answers with it first."""
    labelled: dict[str, list[str]] = {record_id: [] for record_id in record_ids}
    answered: dict[str, list[str]] = {record_id: [] for record_id in labelled}
    for case in cases:
        named = [record_id for record_id in case.expected if record_id in labelled]
        if not named:
            continue
        result = score_case(index, case, time.perf_counter)
        top = result.top[0][0] if result.top else None
        for record_id in named:
            labelled[record_id].append(case.id)
            if result.answered and top == record_id:
                answered[record_id].append(case.id)
    return [
        Proof(record_id, tuple(labelled[record_id]), tuple(answered[record_id]))
        for record_id in sorted(labelled)
    ]


def starter_proofs(data_dir: Path = DATA, eval_dir: Path = EVAL) -> list[Proof]:
    """The proof of every record of the starter base by the committed starter sets."""
    records = load_records(sorted(data_dir.glob("*.json")))
    index = MatchIndex.build(records)
    return prove(index, [record.id for record in records], starter_cases(eval_dir))


def main() -> int:
    proofs = starter_proofs()
    unproven = [
        proof for proof in proofs if not proof.answered and proof.record_id not in UNPROVABLE
    ]
    for proof in unproven:
        cases = ", ".join(proof.labelled) or "no paste labelled with it"
        print(f"{proof.record_id}\t{cases}")
    print(f"{len(proofs) - len(unproven)} of {len(proofs)} starter records proven by a paste")
    return 1 if unproven else 0


if __name__ == "__main__":
    sys.exit(main())
