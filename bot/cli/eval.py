"""Command: eval — accuracy and latency of the matcher on labelled pastes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from bot.cli.common import console, emit_json, fail
from bot.cli.triage import RecordsOption, _knowledge


def evaluate(
    cases: Annotated[
        Path, typer.Argument(help="Labelled pastes, JSONL (shared/eval/dev.jsonl format).")
    ],
    records: RecordsOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Include per-case results.")] = False,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Draw precision against coverage for every threshold, both operating points "
            "marked, into this PNG file.",
        ),
    ] = None,
) -> None:
    """Prints top-1, top-3, MRR, recall@10/@30 and correct declines for someone who
    asked, and precision, coverage and declines for answers volunteered unasked;
    then per-paste latency.
    """
    from pydantic import ValidationError

    from bot.match.eval import curve, read_cases
    from bot.match.eval import evaluate as run_eval

    if cases.is_dir():
        fail(
            escape(f"{cases} is a directory, not a file: name a JSON lines file of labelled pastes")
        )
    if not cases.is_file():
        fail(escape(f"no such file: {cases}"))
    if plot is not None and plot.suffix.lower() != ".png":
        fail(f"--plot writes a PNG file: {plot}")
    try:
        labelled = read_cases(cases)
    except (ValueError, ValidationError) as exc:
        fail(f"{cases}: not a JSONL file of labelled cases ({str(exc).splitlines()[0]})")
    knowledge = _knowledge(records, warm=True)
    knowledge.close()
    report = run_eval(knowledge.index, labelled, time.perf_counter)
    if plot is not None:
        draw(curve(report.results), report, plot, title=cases.name)
    if as_json:
        emit_json(report.summary(verbose=verbose))
        return
    table = Table("cases", "top-1", "top-3", "MRR", "recall@10", "recall@30", "declines")
    table.add_row(
        f"{report.cases} ({report.positives}+{report.negatives})",
        f"{report.top1:.3f}",
        f"{report.top3:.3f}",
        f"{report.mrr:.3f}",
        f"{report.recall10:.3f}",
        f"{report.recall30:.3f}",
        f"{report.decline:.3f}",
    )
    console.print("[bold]asked[/] (answer when confident, else show candidates)")
    console.print(table)
    points = Table("operating point", "threshold", "precision", "coverage", "answered", "declines")
    for name, p in (("asked", report.asked), ("volunteer", report.volunteer)):
        points.add_row(
            name,
            f"{p.threshold:.2f}",
            f"{p.precision:.3f}",
            f"{p.coverage:.3f}",
            f"{p.answered:.3f}",
            f"{p.decline:.3f}",
        )
    console.print(points)
    offer = report.candidates
    console.print(
        f"candidates (asked, not answered; at or above {offer.floor:.2f}): "
        f"{offer.offered} offered, {offer.right:.3f} of them right; "
        f"offered on {offer.pastes:.3f} of unanswered pastes, "
        f"{offer.negatives:.3f} of negative ones",
        highlight=False,
    )
    console.print(
        f"latency: median {report.median_ms:.2f} ms, p99 {report.p99_ms:.2f} ms per paste"
    )
    if verbose:
        detail = Table("case", "ok", "top", "band", "rank", "ms")
        for r in report.results:
            ok = r.top1 if r.positive else r.correct_decline
            top = r.top[0] if r.top else ("-", 0.0, "-")
            detail.add_row(
                Text(str(r.id)),
                "yes" if ok else "[red]no[/]",
                Text(str(top[0])),
                top[2],
                str(r.rank) if r.positive else "-",
                f"{r.ms:.2f}",
            )
        console.print(detail)


def draw(points: list, report: object, path: Path, *, title: str) -> None:  # type: ignore[type-arg]
    """Precision against coverage over every threshold, both operating points marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bot.match.eval import Report

    assert isinstance(report, Report)
    figure, axes = plt.subplots(figsize=(6.4, 4.4), dpi=120)
    axes.plot(
        [p.coverage for p in points],
        [p.precision for p in points],
        color="#4c72b0",
        linewidth=1.6,
        label="every threshold on the top score",
    )
    for name, p, colour in (
        ("volunteer", report.volunteer, "#c44e52"),
        ("asked", report.asked, "#55a868"),
    ):
        axes.scatter(
            [p.coverage],
            [p.precision],
            s=60,
            color=colour,
            zorder=3,
            label=f"{name} (≥ {p.threshold:.2f}): precision {p.precision:.2f}, "
            f"coverage {p.coverage:.2f}",
        )
    axes.set_xlabel("coverage (share of positive pastes answered right)")
    axes.set_ylabel("precision (share of answers that are right)")
    axes.set_xlim(0, 1.02)
    axes.set_ylim(min(0.5, min((p.precision for p in points), default=0.5)) - 0.02, 1.01)
    axes.set_title(f"{title}: {report.cases} pastes ({report.positives} with an answer)")
    axes.grid(alpha=0.3)
    axes.legend(loc="lower left", fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
