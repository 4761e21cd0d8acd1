"""How often the fix that worked is shown first: the curated order against the paste's.

Usage: .venv/bin/python benchmarks/bench_fixes.py [--cases eval/fixes/starter.jsonl] [--verbose]

Each case in ``eval/fixes/starter.jsonl`` is a real paste from a public issue thread,
the starter record that answers it and the workaround (its position in the
record) the thread says fixed it. For each case the record's workarounds are
ordered twice:

- before: by curated success rate (:func:`bot.records.ranked_workarounds`, the
  order every front end showed before the paste was read against the fixes);
- after: by what the paste shows (:func:`bot.fit.order.fix_order`).

It prints how often the fix that worked is first and in the top 2, before and
after, and with ``--verbose`` every case whose order the paste changed. The
rule was written against the README's example paste
(``data/examples/vllm-oom.txt``) alone; the cases were collected after it and
were not used to choose it. Figures go to ``docs/bench_fixes.txt``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.fit.order import PasteFacts, describe, fix_order  # noqa: E402
from bot.ingest import load_records  # noqa: E402
from bot.records import ranked_workarounds  # noqa: E402


def _share(hits: int, total: int) -> str:
    return f"{hits}/{total} = {hits / total:.3f}" if total else "0/0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=ROOT / "eval" / "fixes" / "starter.jsonl")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    records = {r.id: r for r in load_records(sorted((ROOT / "data").glob("*.json")))}
    cases = [json.loads(line) for line in args.cases.read_text().splitlines() if line.strip()]
    counts = {"before_1": 0, "before_2": 0, "after_1": 0, "after_2": 0}
    changed = []
    for case in cases:
        record = records[case["record"]]
        fixed = int(case["fixed_by"])
        before = list(ranked_workarounds(record))
        fits = fix_order(record, PasteFacts.of(case["text"]))
        after = list(fits.order)
        counts["before_1"] += before[:1] == [fixed]
        counts["before_2"] += fixed in before[:2]
        counts["after_1"] += after[:1] == [fixed]
        counts["after_2"] += fixed in after[:2]
        if before != after:
            why = fits.why_first()
            changed.append(
                f"  {case['id']}: {before} -> {after} (fixed by {fixed})"
                + (f"; {describe('en', why)}" if why else "")
            )
    total = len(cases)
    ecosystems = sorted({c["record"].split("/")[0] for c in cases})
    print(f"cases: {total} ({args.cases.relative_to(ROOT)}), records from data/")
    print(f"ecosystems: {', '.join(ecosystems)}")
    print("                     before (curated order)   after (the paste's order)")
    print(
        f"fix that worked 1st  {_share(counts['before_1'], total):<24} "
        f"{_share(counts['after_1'], total)}"
    )
    print(
        f"fix that worked top2 {_share(counts['before_2'], total):<24} "
        f"{_share(counts['after_2'], total)}"
    )
    print(f"orders the paste changed: {len(changed)}")
    if args.verbose:
        print("\n".join(changed))


if __name__ == "__main__":
    main()
