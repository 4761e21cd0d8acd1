"""What errkb shows in Slack's assistant view: the suggested prompts of a new thread and the
thread's title. Pure."""

from __future__ import annotations

from bot.i18n import t
from bot.match.rank import Triage

#: What the "paste an error" prompt sends: an error of the starter knowledge base, the same in
#: every language (an error message is not translated).
EXAMPLE_ERROR = (
    "ValueError: No available memory for the cache blocks. "
    "Try increasing `gpu_memory_utilization` when initializing the engine."
)
#: The prompts a new assistant thread offers, in order: (catalog key of the title, what clicking it
#: sends: a catalog key, or text that is the same in every language: an error, a subcommand).
PROMPTS = (
    ("assistant.prompt.paste", EXAMPLE_ERROR),
    ("assistant.prompt.search", "assistant.prompt.search.message"),
    ("assistant.prompt.stale", "stale"),
)
#: Slack shows a thread title on one line; longer is cut (with an ellipsis).
TITLE_CHARS = 80


def render_prompts(locale: str) -> tuple[str, list[dict[str, str]]]:
    """The prompts' heading, and each prompt as Slack takes it (``title``, ``message``)."""
    prompts = [
        {
            "title": t(locale, title),
            "message": t(locale, sent) if sent.startswith("assistant.") else sent,
        }
        for title, sent in PROMPTS
    ]
    return t(locale, "assistant.prompts.title"), prompts


def thread_title(triage: Triage) -> str | None:
    """The thread's name: the paste's first error line, cut to one line; None without an error."""
    if not triage.errors:
        return None
    line = " ".join(triage.errors[0].text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


__all__ = ["EXAMPLE_ERROR", "PROMPTS", "render_prompts", "thread_title"]
