"""Bolt listeners by kind; each module's ``register(app, world)`` adds its listeners.

A listener acks first, then its lazy function parses the payload into a
pydantic model and calls one function of the feature modules.
"""

from __future__ import annotations

from slack_bolt import App

from bot.slack.listeners import actions, commands, digest, events, shortcuts, views
from bot.slack.world import World

MODULES = (events, commands, actions, digest, shortcuts, views)


def register(app: App, world: World) -> None:
    for module in MODULES:
        module.register(app, world)
