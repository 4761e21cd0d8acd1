"""The triage report and the MCP text renderings, as pure functions over small hand-made records."""

from __future__ import annotations

import ast
from datetime import date
from pathlib import Path

from bot.i18n import available_locales, catalog
from bot.match.extract import extract
from bot.match.index import MatchIndex
from bot.match.rank import Match, Triage
from bot.mcp import text
from bot.records import Record
from bot.report import build_report, graph_sections
from graph.build import build_graph

ROOT = Path(__file__).resolve().parents[2]
TODAY = date(2025, 8, 1)

CAUSE = Record.model_validate(
    {
        "id": "t/shm-too-small",
        "signature": "NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9637892 bytes",
        "signature_zh": "NCCL WARN 错误：无法扩展 /dev/shm/nccl-x",
        "regex": r"failed to extend /dev/shm/\S+ to \d+ bytes",
        "domain": "test",
        "root_cause": "The container's /dev/shm is too small.",
        "root_cause_zh": "容器的 /dev/shm 太小。",
        "workarounds": [
            {"action": "Disable SHM", "success_rate": 0.6},
            {"action": "Run with --ipc=host", "success_rate": 0.9},
            {"action": "Reboot"},
        ],
        "workarounds_zh": ["关闭 SHM", "使用 --ipc=host 运行"],
        "dead_ends": [
            {"action": "", "why_fails": "Raising the memory limit does not resize /dev/shm."}
        ],
        "transition_graph": {
            "leads_to": [
                {"error_id": "t/nccl-system-error", "probability": 0.8, "condition": "in Docker"}
            ],
            "frequently_confused_with": [
                {"error_id": "t/bus-error", "distinction": "DataLoader, not NCCL"}
            ],
        },
        "last_confirmed": "2025-06-01",
        "versions": [{"version": "NCCL 2.19"}],
    }
)
EFFECT = Record.model_validate(
    {
        "id": "t/nccl-system-error",
        "signature": "torch.distributed.DistBackendError: NCCL error: unhandled system error",
        "regex": r"NCCL error.*unhandled system error",
        "domain": "test",
        "root_cause": "A system call failed.",
        "workarounds": [{"action": "Read the NCCL WARN line"}],
    }
)
PASTE = (
    "torch.distributed.DistBackendError: NCCL error: unhandled system error\n"
    "misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9637892 bytes\n"
)


def triaged() -> Triage:
    """The paste answered with both records, one per error (the report is built from any
    triage: what the ranker scores is the matcher's tests' business)."""
    errors = extract(PASTE).errors
    effect = Match("t/nccl-system-error", 0.9, "high", errors[0].index, errors[0].text, 1, ())
    cause = Match("t/shm-too-small", 0.8, "high", errors[1].index, errors[1].text, 2, ())
    return Triage(
        errors, (effect, cause), ((errors[0].index, (effect,)), (errors[1].index, (cause,)))
    )


def report(lang: str = "en", counts: dict[tuple[str, int], tuple[int, int]] | None = None):  # type: ignore[no-untyped-def]
    records = {r.id: r for r in (EFFECT, CAUSE)}
    return build_report(
        triaged(),
        records.get,
        build_graph(list(records.values())),
        locale=lang,
        counts=counts or {},
    )


def test_answers_come_cause_first_with_workarounds_ranked_and_votes_on_the_right_one() -> None:
    found = report(counts={("t/shm-too-small", 0): (7, 2)})
    assert found.answered and [a.id for a in found.answers] == [
        "t/shm-too-small",
        "t/nccl-system-error",
    ]
    assert (
        found.best == found.answers[0]
        and found.order is not None
        and found.order.fix_first == "t/shm-too-small"
    )
    ranked = [(w.rank, w.position, w.action, w.fixed, w.failed) for w in found.best.workarounds]
    assert ranked == [
        (1, 1, "Run with --ipc=host", 0, 0),
        (2, 0, "Disable SHM", 7, 2),
        (3, 2, "Reboot", 0, 0),
    ]
    assert found.best.dead_ends[0].action == "Raising the memory limit does not resize /dev/shm."
    assert found.best.band in ("high", "medium") and found.best.last_confirmed == date(2025, 6, 1)
    causes = {c.error: [i.id for i in c.items] for c in found.causes}
    assert causes["t/nccl-system-error"] == ["t/shm-too-small"]
    alike = {a.error: a.items for a in found.confused_with}["t/shm-too-small"]
    assert (
        alike[0].id == "t/bus-error"
        and alike[0].placeholder
        and alike[0].distinctions == ["DataLoader, not NCCL"]
    )


def test_chinese_fields_are_used_and_missing_ones_fall_back_to_english() -> None:
    best = report("zh").best
    assert best is not None and best.locale == "zh" and best.root_cause == "容器的 /dev/shm 太小。"
    assert [w.action for w in best.workarounds] == ["使用 --ipc=host 运行", "关闭 SHM", "Reboot"]


def test_no_answer_means_no_graph_sections() -> None:
    index = MatchIndex.build([EFFECT, CAUSE])
    found = build_report(
        index.triage("KeyError: 'flux'"),
        index.record,
        build_graph([EFFECT, CAUSE]),
        locale="en",
        counts={},
    )
    assert not found.answered and found.answers == [] and found.best is None
    assert (found.causes, found.next, found.confused_with, found.order) == ([], [], [], None)
    assert graph_sections(None, ["t/shm-too-small"], locale="en").order is None


def test_the_text_reads_in_the_locale_asked_for() -> None:
    english = text.triage_text(report(counts={("t/shm-too-small", 0): (7, 2)}), TODAY)
    assert english.startswith("2 errors in this paste, the likely cause first: fix t/shm-too-small")
    assert "  1. Run with --ipc=host (90% success) [workaround 1]" in english
    assert "  2. Disable SHM (60% success; 7 of 9 here) [workaround 0]" in english
    assert (
        "  - t/bus-error: DataLoader, not NCCL" in english
        and "Last confirmed 2 months ago" in english
    )
    chinese = text.triage_text(report("zh"), TODAY)
    assert "根本原因：容器的 /dev/shm 太小。" in chinese and "请先修复 t/shm-too-small" in chinese
    assert "Root cause" not in chinese and "What worked" not in chinese


def test_every_catalog_key_the_mcp_texts_use_exists_in_every_locale() -> None:
    used = {"agent.outcome.fixed", "agent.outcome.failed"}  # chosen by verdict
    for path in (ROOT / "bot" / "mcp").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t":
                used |= {
                    a.value
                    for a in node.args[:2]
                    if isinstance(a, ast.Constant) and isinstance(a.value, str) and "." in a.value
                }
    assert len(used) > 20
    for locale in available_locales():
        assert used <= set(catalog(locale)), (locale, used - set(catalog(locale)))


def test_the_readme_documents_every_tool() -> None:
    from bot.mcp.server import READ_TOOLS, report_outcome

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for tool in (*READ_TOOLS, report_outcome):
        assert f"| `{tool.__name__}(" in readme, tool.__name__
