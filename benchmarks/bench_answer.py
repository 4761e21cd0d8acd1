"""The first screen of errkb's answers to the starter examples: blocks and characters before "More".

Usage: .venv/bin/python benchmarks/bench_answer.py [--verbose] [--json] [--before FILE]

For each example paste in ``data/examples/`` and each locale (en, zh), the
reply errkb posts in the paste's thread is made by errkb's own triage and
renderers (``scripts/starter_answers.py``) and measured:

- first screen: the blocks of that message up to, not including, the first
  block holding the "More" control (an element whose action id is an
  ``ActionId`` member named with MORE or EXPAND). A message without that
  control is first screen to its end, and the output says so;
- blocks: how many blocks the first screen has;
- chars: the characters a reader sees on it (``scripts/blockkit_html.py``'s
  ``visible_chars``): text as shown, links by their label, button and field
  labels; no line breaks, mrkdwn markers or link addresses;
- mrkdwn: the characters of its texts as sent (mrkdwn, plain text, rich text), markup
  included (for reference);
- notif: the characters of the message's ``text``, what a notification shows;
- result: pass when the first screen has at most 5 blocks and 700 chars.

Then the same figures of ``docs/first-screen-before.txt`` (this script's
output for errkb before the compact answer) beside today's. The figures assert
nothing; the day is fixed (``scripts/starter_answers.DAY``) so they move only
when the renderers or the data do.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.render.ids import ActionId
from scripts.blockkit_html import visible_chars
from scripts.starter_answers import DAY, Posted, starter_replies

MAX_BLOCKS = 5
MAX_CHARS = 700
#: Words in the name of the ActionId member of the control that opens the rest of an answer.
MORE_NAMES = ("MORE", "EXPAND")
BEFORE = ROOT / "docs" / "first-screen-before.txt"
COLUMNS = (
    "example",
    "lang",
    "outcome",
    "records",
    "blocks",
    "chars",
    "mrkdwn",
    "notif",
    "all_blocks",
    "all_chars",
    "result",
)


@dataclass(frozen=True)
class Figures:
    example: str
    lang: str
    outcome: str
    records: int
    blocks: int
    chars: int
    mrkdwn: int
    notif: int
    all_blocks: int
    all_chars: int
    more: bool  # the message has a "More" control

    @property
    def passed(self) -> bool:
        return self.blocks <= MAX_BLOCKS and self.chars <= MAX_CHARS

    @property
    def result(self) -> str:
        if self.passed:
            return "pass"
        over = [f"{self.blocks} blocks > {MAX_BLOCKS}"] if self.blocks > MAX_BLOCKS else []
        over += [f"{self.chars} chars > {MAX_CHARS}"] if self.chars > MAX_CHARS else []
        return "FAIL: " + ", ".join(over)


def more_actions() -> frozenset[str]:
    return frozenset(a.value for a in ActionId if any(word in a.name for word in MORE_NAMES))


def _action_ids(node: Any) -> Iterator[str]:
    if isinstance(node, Mapping):
        if isinstance(node.get("action_id"), str):
            yield node["action_id"]
        for value in node.values():
            yield from _action_ids(value)
    elif isinstance(node, list):
        for value in node:
            yield from _action_ids(value)


def first_screen(
    blocks: Sequence[Mapping[str, Any]], more: frozenset[str]
) -> tuple[list[Mapping[str, Any]], bool]:
    """The blocks before the one holding a "More" control, and whether there was one."""
    for n, block in enumerate(blocks):
        if more & set(_action_ids(block)):
            return list(blocks[:n]), True
    return list(blocks), False


#: Objects whose ``text`` is text as sent: text objects, and rich text's text and links.
_TEXTS = ("mrkdwn", "plain_text", "text", "link")


def _mrkdwn_chars(node: Any) -> int:
    if isinstance(node, Mapping):
        own = (
            len(node["text"])
            if node.get("type") in _TEXTS and isinstance(node.get("text"), str)
            else 0
        )
        return own + sum(_mrkdwn_chars(v) for k, v in node.items() if k != "text" or not own)
    if isinstance(node, list):
        return sum(_mrkdwn_chars(v) for v in node)
    return 0


def measure(posted: Posted, more: frozenset[str]) -> Figures:
    blocks = posted.payload.get("blocks", [])
    shown, found = first_screen(blocks, more)
    return Figures(
        example=posted.example,
        lang=posted.locale,
        outcome=posted.outcome,
        records=len(posted.records),
        blocks=len(shown),
        chars=visible_chars(shown),
        mrkdwn=_mrkdwn_chars(shown),
        notif=len(posted.payload.get("text", "")),
        all_blocks=len(blocks),
        all_chars=visible_chars(blocks),
        more=found,
    )


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def revision() -> str:
    """The commit measured: HEAD, the last commit that changed errkb's code or data, and
    whether they have changed since."""
    product = ("bot", "graph", "data")
    try:
        head = _git("rev-parse", "--short", "HEAD")
        changed = _git("log", "-1", "--first-parent", "--format=%h", "--", *product)
        dirty = _git("status", "--porcelain", "--", *product)
    except (OSError, subprocess.CalledProcessError):
        return "(not a git checkout)"
    return (
        f"{head} (bot/, graph/, data/ as of "
        f"{changed}{', with uncommitted changes' if dirty else ''})"
    )


def table(rows: Sequence[Figures]) -> list[str]:
    widths = {"example": max([len("example"), *(len(r.example) for r in rows)]), "outcome": 10}
    head = " ".join(
        c.ljust(widths.get(c, 0)) if c in widths else c.rjust(_w(c)) for c in COLUMNS[:-1]
    )
    lines = [head + "  result"]
    for r in rows:
        cells = [
            r.example.ljust(widths["example"]),
            r.lang.rjust(_w("lang")),
            r.outcome.ljust(widths["outcome"]),
        ]
        cells += [str(getattr(r, c)).rjust(_w(c)) for c in COLUMNS[3:-1]]
        lines.append(" ".join(cells) + "  " + r.result)
    return lines


def _w(column: str) -> int:
    return max(len(column), 5)


def summary(rows: Sequence[Figures]) -> str:
    passed = sum(r.passed for r in rows)
    blocks = [r.blocks for r in rows]
    chars = [r.chars for r in rows]
    return (
        f"{len(rows)} replies: {passed} pass, {len(rows) - passed} fail; "
        f"first screen blocks median {statistics.median(blocks):g}, max {max(blocks)}; "
        f"chars median {statistics.median(chars):g}, max {max(chars)}"
    )


def report(rows: Sequence[Figures], more: frozenset[str]) -> list[str]:
    lines = [
        (
            "# First screen of errkb's thread replies to the starter examples "
            "(data/examples/*.txt, data/)"
        ),
        (
            f"# code: {revision()}; day: {DAY.isoformat()}; "
            f"limits: <= {MAX_BLOCKS} blocks, <= {MAX_CHARS} chars"
        ),
    ]
    if not more:
        lines.append("# ActionId has no More control yet: every first screen is the whole message")
    else:
        lines.append(f"# More control: {', '.join(sorted(more))}")
        missing = [f"{r.example}/{r.lang}" for r in rows if not r.more]
        if missing:
            lines.append(
                f"# no More control in {', '.join(missing)}: first screen is the whole message"
            )
    return [*lines, *table(rows), summary(rows)]


def read_before(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    """Rows of an earlier run's output, by (example, lang)."""
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = line.split(maxsplit=len(COLUMNS) - 1)
        if len(cells) == len(COLUMNS) and all(c.isdigit() for c in cells[3:-1]):
            rows[(cells[0], cells[1])] = dict(zip(COLUMNS, cells, strict=True))
    return rows


def compare(
    rows: Sequence[Figures], before: Mapping[tuple[str, str], Mapping[str, str]], path: Path
) -> list[str]:
    lines = [
        "",
        f"Before ({path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}) -> now",
        (
            f"{'example':<{max(len(r.example) for r in rows)}} lang      blocks        "
            "chars        notif  result"
        ),
    ]
    width = max(len(r.example) for r in rows)
    for r in rows:
        old = before.get((r.example, r.lang))
        if old is None:
            lines.append(f"{r.example:<{width}} {r.lang:>4}  (not in the earlier run)")
            continue
        pairs = [f"{old[c]:>5} -> {getattr(r, c):<4}" for c in ("blocks", "chars", "notif")]
        verdict = "pass" if r.passed else "fail"
        lines.append(
            f"{r.example:<{width}} {r.lang:>4} {' '.join(pairs)}  "
            f"{old['result'].split(':')[0].lower()} -> {verdict}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--verbose", action="store_true", help="also print each first screen's text"
    )
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    parser.add_argument(
        "--before", type=Path, default=BEFORE, help="an earlier run's output to compare with"
    )
    parser.add_argument("--no-before", action="store_true", help="print today's figures only")
    args = parser.parse_args(argv)

    more = more_actions()
    replies = [p for p in starter_replies() if p.payload]
    rows = [measure(p, more) for p in replies]
    if args.json:
        print(json.dumps([{**asdict(r), "passed": r.passed} for r in rows], indent=2))
        return 0
    print("\n".join(report(rows, more)))
    if args.verbose:
        from scripts.blockkit_html import block_text

        for posted, r in zip(replies, rows, strict=True):
            shown, _ = first_screen(posted.payload["blocks"], more)
            print(f"\n== {r.example} [{r.lang}] notification: {posted.payload['text']!r}")
            for block in shown:
                print("   | " + block_text(block).replace("\n", "\n   | "))
    if not args.no_before and args.before.is_file():
        print("\n".join(compare(rows, read_before(args.before), args.before)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
