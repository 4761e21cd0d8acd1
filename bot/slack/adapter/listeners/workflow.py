"""The Workflow Builder step ``triage_error`` (Bolt's ``@app.function``): Bolt acknowledges
the ``function_executed`` event, the step is triaged (:mod:`bot.slack.usecases.workflow`),
and it ends with ``functions.completeSuccess`` or, with one clear line,
``functions.completeError``."""

from __future__ import annotations

from typing import Any

from slack_bolt import App, Complete, Fail

from bot.render.ids import FunctionId
from bot.slack.adapter.listeners.views import Submissions


def handle_function_triage_error(
    inputs: dict[str, Any], complete: Complete, fail: Fail, submissions: Submissions
) -> None:
    reader = inputs.get("reader")
    result = submissions.triage_step(
        str(inputs.get("error_text") or ""), str(reader) if reader else None
    )
    if result.outputs is not None:
        complete(outputs=result.outputs)
    else:
        fail(error=result.error or "")


def register(app: App) -> None:
    app.function(FunctionId.TRIAGE_ERROR)(handle_function_triage_error)


__all__ = ["handle_function_triage_error", "register"]
