"""Options errkb serves while Slack waits (``block_suggestion``): the "Not this error"
modal's search over the knowledge base. Slack shows what the acknowledgement carries."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from bot.render.ids import InputId
from bot.render.state import CorrectionModalState, load_state
from bot.slack.adapter.listeners.views import Submissions
from bot.slack.adapter.payloads import BlockSuggestion


def ack_options_correct_search(ack: Ack, body: dict[str, Any], submissions: Submissions) -> None:
    suggestion = BlockSuggestion.model_validate(body)
    state = load_state(
        CorrectionModalState, suggestion.view.private_metadata if suggestion.view else ""
    )
    ack(options=submissions.search(state, suggestion.value))


def register(app: App) -> None:
    app.options(InputId.SEARCH)(ack_options_correct_search)
