"""The Workflow Builder step ``triage_error`` (a custom step: ``function_executed``).

Decided while Slack waits, like a modal's submission: the step's ``error_text``
is cleaned and triaged as a paste someone asked about, in the language of its
optional ``reader`` (a user id; else the text's own language), and the step
completes with :func:`bot.render.workflow.step_outputs`. It fails, with one
translated line, only when there is nothing to triage (no error in the text)
or errkb cannot triage yet (its knowledge base still loading).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.answer import read_paste
from bot.i18n import negotiate_locale, t
from bot.knowledge import IndexSource
from bot.match.extract import extract
from bot.render.workflow import step_outputs
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.usecases.answer_paste import read_learned
from bot.slack.web.metrics import Metrics
from bot.store.db import Store


@dataclass(frozen=True)
class StepResult:
    """What the step completes with: its outputs, or the one line it fails with."""

    outputs: dict[str, Any] | None = None
    error: str | None = None


def triage_step(
    text: str,
    reader: str | None,
    *,
    index: IndexSource,
    store: Store,
    settings: Settings,
    slack: SlackGateway,
    metrics: Metrics,
) -> StepResult:
    read = read_paste(text, settings.paste_limit)
    cleaned = read.text
    if reader:
        slack_locale = slack.user_locale(reader)
        with store.read() as session:
            locale = user_locale(
                session,
                settings,
                user=reader,
                slack_locale=slack_locale,
                channel=None,
                text=cleaned,
            )
    else:
        locale = negotiate_locale(None, None, None, cleaned)
    kb = index.current()
    if kb is None:
        metrics.decline("not_ready")
        return StepResult(error=t(locale, "workflow.not_ready"))
    extraction = extract(read)
    learned = read_learned(store, extraction)
    triage = kb.triage(extraction, learned=learned) if learned else kb.triage(extraction)
    if not triage.errors:
        metrics.decline("no_error")
        return StepResult(error=t(locale, "workflow.no_error"))
    outputs = step_outputs(triage, kb, locale)
    metrics.answer("workflow" if outputs["answered"] else "workflow_unknown")
    return StepResult(outputs=outputs)


__all__ = ["StepResult", "triage_step"]
