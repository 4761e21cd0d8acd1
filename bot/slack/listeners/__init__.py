"""Bolt listeners by kind: small top-level functions that acknowledge Slack.

Each reads what it needs through Bolt's argument injection (``ack``,
``body``, ``context``), validates the payload into a pydantic model and
writes a job (:mod:`bot.slack.intake`); the work itself is the job's
(:mod:`bot.slack.handlers`). Each module's ``register(app)`` adds its
listeners; none is a closure, so each can be imported and tested alone.
"""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners import (
    actions,
    assistant,
    commands,
    events,
    options,
    reactions,
    shortcuts,
    views,
    workflow,
)

MODULES = (events, commands, actions, shortcuts, views, options, assistant, reactions, workflow)


def register(app: App) -> None:
    for module in MODULES:
        module.register(app)
