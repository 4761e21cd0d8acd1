"""Bolt listeners by kind: small top-level functions that acknowledge Slack.

Each reads what it needs through Bolt's argument injection (``ack``,
``body``, ``context``, and the middleware's context keys ``intake``,
``submissions``, ``revocations`` by the same names), validates the payload
into a pydantic model and writes a job (:mod:`bot.slack.queue.intake`); the work
itself is the use case that declared the job's kind
(:func:`bot.slack.queue.jobs.task`). Each module's ``register(app)`` adds its
listeners; none is a closure, so each can be imported and tested alone.
Events errkb has no listener for are acknowledged and ignored (Slack would
otherwise deliver them again).
"""

from __future__ import annotations

import re

from slack_bolt import App

from bot.slack.adapter.listeners import (
    actions,
    assistant,
    events,
    options,
    reactions,
    shortcuts,
    slash,
    views,
    workflow,
)

MODULES = (events, slash, actions, shortcuts, views, options, assistant, reactions, workflow)


#: Every event type (registered after every other listener, so it takes only the rest).
ANY_EVENT = re.compile(".")


def register(app: App) -> None:
    for module in MODULES:
        module.register(app)
    app.event(ANY_EVENT)(events.ack_event_other)
