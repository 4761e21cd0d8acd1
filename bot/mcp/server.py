"""The MCP server: errkb's tools, the record resource and the triage prompt.

:func:`create_server` builds an :class:`~mcp.server.mcpserver.MCPServer` around
one :class:`Served` (the :class:`~bot.mcp.tools.Tools` and whether agents may
report outcomes), handed to every call as the lifespan context. Each tool is
a small top-level function: typed, documented arguments in, a
``CallToolResult`` out carrying the model as structured content (its JSON
schema is the tool's output schema) and a short text rendering. ``lang: zh``
gives Chinese throughout.

Failures reach the agent as tool errors of one line: errkb's own errors keep
their message, bad arguments name each field, anything unexpected gets an
incident id that is logged (with its traceback, on stderr) and shown.
"""

from __future__ import annotations

import getpass
import hashlib
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedToolError,
)
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, BeforeValidator, Field, ValidationError

from bot.errors import ErrkbError, RecordNotFound
from bot.mcp import text
from bot.mcp.models import Neighbours, Outcome, SearchResult, StaleList
from bot.mcp.tools import Tools
from bot.records.clean import clean_value
from bot.report import AnswerRecord, TriageReport

log = logging.getLogger(__name__)

NAME = "errkb"
INSTRUCTIONS = (
    "errkb answers errors from this team's error knowledge base. Call triage with any error "
    "message, traceback or log excerpt before guessing at a fix; it returns the matching record's "
    "root cause, workarounds ranked by how often they worked, dead ends to avoid, and what the "
    "transition graph says comes before and after. search, show and neighbours look records up."
)

Lang = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$",
        description="Language of the answer: en, zh, ... (English where a text is not translated).",
    ),
]
RecordId = Annotated[
    str, Field(min_length=1, max_length=300, description="A record id, e.g. llm/vllm-oom.")
]
#: Texts an agent sends are cleaned as Slack's are (no NUL, no lone surrogate): they are
#: echoed in results, which must encode as JSON, and a note is stored.
Clean = BeforeValidator(clean_value)
Paste = Annotated[
    str,
    Clean,
    Field(
        description="The error: a traceback, log excerpt or "
        "message, whole (cut like a Slack paste)."
    ),
]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def local_voter() -> str:
    """Who votes from a server without a bearer token: the account it runs as, on this host (a
    stdio server is one person's agent; an HTTP one without a token serves loopback only)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a bare container)
        user = str(os.getuid())
    return f"local:{user}@{socket.gethostname()}"


@dataclass(frozen=True)
class Served:
    """What every call works with (the server's lifespan context)."""

    tools: Tools
    outcomes: bool = False
    #: Who votes when a request carries no bearer token (:func:`local_voter`).
    voter: str = field(default_factory=local_voter)


def voter(ctx: Context, served: Served) -> str:
    """Who is voting: the holder of the request's bearer token (a digest of it, never the
    token), else the server's :attr:`Served.voter`. Never the session or the name a client
    gives itself: an agent may open as many sessions under as many names as it likes."""
    scheme, _, token = (ctx.headers or {}).get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return "token:" + hashlib.sha256(token.strip().encode()).hexdigest()[:16]
    return served.voter


def _served(ctx: Context) -> Served:
    served = ctx.request_context.lifespan_context
    assert isinstance(served, Served)
    return served


def _result(model: BaseModel, rendering: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=rendering)],
        structured_content=model.model_dump(mode="json"),
    )


# -- tools ---------------------------------------------------------------------------


def triage(
    paste: Paste,
    ctx: Context,
    lang: Lang = "en",
) -> Annotated[CallToolResult, TriageReport]:
    """Find what a pasted error is and how to fix it.

    Returns the errors found, the candidates with their band (high and medium
    answer; low is only a guess), and for a confident answer the record's root
    cause, its workarounds ranked by success with what was observed here, dead
    ends not to try, versions, and from the transition graph what usually comes
    before it, what follows once fixed and look-alikes with what tells them
    apart. Several errors in one paste come cause first: fix the first one first.
    """
    tools = _served(ctx).tools
    report = tools.triage(paste, lang)
    return _result(report, text.triage_text(report, tools.clock.now().date()))


def search(
    words: Annotated[
        str, Clean, Field(min_length=1, max_length=2_000, description="Words to look for.")
    ],
    ctx: Context,
    limit: Annotated[int, Field(ge=1, le=50, description="Most records to return.")] = 10,
    lang: Lang = "en",
) -> Annotated[CallToolResult, SearchResult]:
    """Find records by words in their signatures, aliases and translations."""
    result = _served(ctx).tools.search(words, limit, lang)
    return _result(result, text.search_text(result, lang))


def show(id: RecordId, ctx: Context, lang: Lang = "en") -> Annotated[CallToolResult, AnswerRecord]:
    """One record: root cause, ranked workarounds (give report_outcome a workaround's
    ``position``), dead ends, versions, last confirmation and docs."""
    tools = _served(ctx).tools
    answer = tools.show(id, lang)
    return _result(answer, text.record_text(answer, lang, tools.clock.now().date()))


def neighbours(
    id: RecordId,
    ctx: Context,
    hops: Annotated[int, Field(ge=1, le=5, description="How many links away, either way.")] = 2,
    lang: Lang = "en",
) -> Annotated[CallToolResult, Neighbours]:
    """What leads to an error and what follows it in the transition graph, with path
    probabilities, its look-alikes, and transitions observed in use."""
    result = _served(ctx).tools.neighbours(id, hops, lang)
    return _result(result, text.neighbours_text(result))


def stale(
    ctx: Context,
    domain: Annotated[str | None, Field(max_length=100, description="Only this domain.")] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="Most records to list.")] = 20,
    lang: Lang = "en",
) -> Annotated[CallToolResult, StaleList]:
    """Records nobody has confirmed for too long, most important first, with why."""
    result = _served(ctx).tools.stale(domain, limit, lang)
    return _result(result, text.stale_text(result, lang))


def report_outcome(
    record_id: RecordId,
    workaround: Annotated[
        int, Field(ge=0, description="The workaround's position (from triage or show).")
    ],
    worked: Annotated[bool, Field(description="True when it fixed the error.")],
    ctx: Context,
    note: Annotated[
        str | None, Clean, Field(max_length=1_000, description="What happened, briefly.")
    ] = None,
    lang: Lang = "en",
) -> Annotated[CallToolResult, Outcome]:
    """Say whether a workaround fixed the error. It counts in the observed success people
    see, once a day per agent identity (the bearer token): a repeat is taken and ignored, a
    different verdict the same day replaces the first, whatever the session."""
    served = _served(ctx)
    params = ctx.session.client_params
    client = params.client_info.name if params is not None else "unknown-client"
    outcome = served.tools.report_outcome(
        record_id, workaround, worked, note, client=client, voter=voter(ctx, served)
    )
    return _result(outcome, text.outcome_text(outcome, lang))


def record_resource(id: str, ctx: Context) -> str:
    """An errkb record in its native JSON form."""
    try:
        return _served(ctx).tools.record_json(id)
    except RecordNotFound as exc:
        raise ResourceNotFoundError(str(exc)) from None
    except ErrkbError as exc:
        raise ResourceError(_one_line(str(exc))) from None


def use_errkb(
    ctx: Context,
    error: Annotated[str, Field(description="An error to start with (optional).")] = "",
    lang: Annotated[str, Field(description="Language: en, zh, ...")] = "en",
) -> str:
    """When and how to use errkb while working: triage errors before guessing."""
    return text.prompt_text(lang, outcomes=_served(ctx).outcomes, error=error)


READ_TOOLS = (triage, search, show, neighbours, stale)


# -- the server ----------------------------------------------------------------------


class _Server(MCPServer[Served]):
    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Served, Any] | None = None
    ) -> Any:
        """Every failure a one-line tool error: see the module docstring."""
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ErrkbError):
                raise ToolError(_one_line(str(cause))) from cause
            incident = uuid.uuid4().hex[:8]
            log.error(
                "tool %s failed unexpectedly",
                name,
                exc_info=cause,
                extra={"tool": name, "incident": incident},
            )
            raise ToolError(
                f"errkb failed unexpectedly (incident {incident}); it has been logged"
            ) from None
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(
                    f"invalid arguments for {name}: {_problems(exc.__cause__)}"
                ) from None
            raise ToolError(_one_line(str(exc))) from None


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _problems(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {_one_line(err['msg'])}"
        for err in exc.errors(include_url=False)
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("errkb")
    except PackageNotFoundError:
        return "0"


def create_server(served: Served) -> MCPServer[Served]:
    """The errkb MCP server; ``report_outcome`` only when ``served.outcomes``."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[Served]) -> AsyncIterator[Served]:
        yield served

    server = _Server(NAME, version=_version(), instructions=INSTRUCTIONS, lifespan=lifespan)
    for tool in READ_TOOLS:
        server.add_tool(tool, annotations=READ_ONLY)
    if served.outcomes:
        writes = ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        )
        server.add_tool(report_outcome, annotations=writes)
    server.resource("errkb://record/{+id}", name="record", mime_type="application/json")(
        record_resource
    )
    server.prompt(name="use_errkb", title="Use errkb for errors")(use_errkb)
    return server


__all__ = ["READ_TOOLS", "Served", "create_server"]
