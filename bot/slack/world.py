"""What the Slack edge works with, built once by ``create_app``'s caller and passed down."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.settings import Settings
from bot.slack.clock import Clock
from bot.slack.gateway import SlackGateway
from bot.slack.metrics import Metrics
from bot.store.db import Store

if TYPE_CHECKING:
    from bot.match.index import MatchIndex
    from graph.build import KnowledgeGraph


class IndexSource(Protocol):
    """The live match index (``bot.knowledge``); None until the first build."""

    def current(self) -> MatchIndex | None: ...


class GraphSource(Protocol):
    """The live transition graph; None until the first build."""

    def current(self) -> KnowledgeGraph | None: ...


@dataclass(frozen=True)
class Fixed:
    """A source that always returns the same thing (tests, one-shot tools)."""

    value: object

    def current(self) -> object:
        return self.value


@dataclass(frozen=True)
class World:
    settings: Settings
    store: Store
    index: IndexSource
    graph: GraphSource
    gateway: SlackGateway
    clock: Clock
    metrics: Metrics

    def is_maintainer(self, user_id: str) -> bool:
        if user_id in self.settings.maintainer_ids:
            return True
        group = self.settings.maintainer_group
        return bool(group) and user_id in self.gateway.group_members(group)  # type: ignore[arg-type]
