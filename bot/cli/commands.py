"""Every ``errkb`` command, listed once.

This table is the only list of commands. The parser (:mod:`bot.cli.group`),
``errkb --help``, each command's ``--help``, the README's command reference
(:mod:`bot.cli.reference`) and the meta-tests all read it.

A row names its runner as ``"module:function"``; the module is imported only
when that command runs or shows its own ``--help``, so ``errkb --help`` imports
no command module and ``errkb triage`` imports only what triage needs. Keep
heavy imports (matplotlib, slack_bolt, alembic, apscheduler ...) inside the
runner's module or function, never here.

To add a command: write the runner (a function whose parameters are Typer
arguments and options; its docstring holds whatever ``--help`` should say
beyond the summary), add one row below, and regenerate the README's command
reference with ``python -m bot.cli.reference --write``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """One command: what runs it and what its help says."""

    #: the words after ``errkb``: ``"triage"``, or ``"graph check"`` for a command in a group
    name: str
    #: ``"module:function"``, imported only when the command is used
    runner: str
    #: one line: ``errkb --help``, the first line of the command's own help, the README
    summary: str
    #: a whole command line, shown at the end of ``--help`` and in the README
    example: str

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.name.split())


@dataclass(frozen=True)
class Group:
    """Words that gather commands (``errkb graph check``, ``errkb graph show`` ...)."""

    name: str
    summary: str

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.name.split())


GROUPS: tuple[Group, ...] = (
    Group("graph", "Check, show and export the transition graph."),
    Group("i18n", "Check the translations of the knowledge base."),
)

COMMANDS: tuple[Command, ...] = (
    Command(
        "init",
        "bot.cli.kb:init",
        "Create or upgrade the database and load the starter knowledge base.",
        "errkb init",
    ),
    Command(
        "migrate",
        "bot.cli.kb:migrate",
        "Bring the database's schema up to this errkb's revision (after upgrading errkb).",
        "errkb migrate",
    ),
    Command(
        "import",
        "bot.cli.kb:import_",
        "Import records: native JSON, JSONL, YAML (or .gz of these) and deadends.dev canons.",
        "errkb import records/ more.jsonl.gz --on-conflict skip",
    ),
    Command(
        "export",
        "bot.cli.kb:export",
        "Export records in native form (or as deadends.dev "
        "canons), in the format -o's extension names.",
        "errkb export --domain llm -o llm.jsonl",
    ),
    Command(
        "show",
        "bot.cli.kb:show",
        "Show one record, in a locale when it has a translation.",
        "errkb show llm/vllm-block-manager-out-of-memory --lang zh",
    ),
    Command(
        "search",
        "bot.cli.kb:search",
        "Find records by words in their signatures, aliases and translations.",
        "errkb search nccl timeout",
    ),
    Command(
        "stats",
        "bot.cli.kb:stats",
        "Counts of records, translations, links and dangling references.",
        "errkb stats --json",
    ),
    Command(
        "triage",
        "bot.cli.triage:triage",
        "Name the record that answers a pasted error, or say that none does.",
        "errkb triage crash.log --lang zh",
    ),
    Command(
        "eval",
        "bot.cli.eval:evaluate",
        "Score the matcher on labelled pastes at both operating points (asked and volunteered).",
        "errkb eval eval/deadends-software.jsonl"
        " --records ../shared/corpora/deadends/deadends-canons.jsonl.gz --plot curve.png",
    ),
    Command(
        "graph check",
        "bot.cli.graph:check",
        "Report dangling references, one-sided links, "
        "self-loops, cycles, orphans, hubs and variant groups.",
        "errkb graph check --strict --records data/",
    ),
    Command(
        "graph show",
        "bot.cli.graph:show",
        "Show a record's neighbourhood as a tree with probabilities (and a PNG).",
        "errkb graph show llm/vllm-block-manager-out-of-memory --lang zh --png g.png",
    ),
    Command(
        "graph export",
        "bot.cli.graph:export",
        "Export the graph for other tools (GraphML or JSON).",
        "errkb graph export --format graphml --output kb.graphml",
    ),
    Command(
        "graph observed",
        "bot.cli.graph:observed",
        "List transitions learnt from use (same thread or session), most seen first.",
        "errkb graph observed --min-count 3",
    ),
    Command(
        "i18n check",
        "bot.cli.i18n:check",
        "List the texts of each record that have no translation, per locale.",
        "errkb i18n check --locale zh --records data/ --strict",
    ),
    Command(
        "digest",
        "bot.cli.digest:digest",
        "The records nobody has confirmed for too long, most important first.",
        "errkb digest --dry-run --domain llm",
    ),
    Command(
        "serve",
        "bot.cli.serve:serve",
        "Run the Slack bot: answers pastes, /errkb, the shortcut and buttons.",
        "errkb serve --http --port 3000",
    ),
    Command(
        "mcp",
        "bot.cli.mcp:mcp",
        "Serve errkb to coding agents over the Model Context Protocol (stdio or HTTP).",
        "errkb mcp --http --host 0.0.0.0 --port 8000",
    ),
)


_ENTRIES: tuple[Command | Group, ...] = (*COMMANDS, *GROUPS)


def children(words: tuple[str, ...]) -> list[str]:
    """The next words after ``words`` (a command's or a group's), in table order."""
    found: dict[str, None] = {}
    for entry in _ENTRIES:
        if len(entry.words) > len(words) and entry.words[: len(words)] == words:
            found.setdefault(entry.words[len(words)])
    return list(found)


def find(words: tuple[str, ...]) -> Command | Group | None:
    """The command or group called ``words``, if there is one."""
    for entry in _ENTRIES:
        if entry.words == words:
            return entry
    return None
