"""Every id errkb gives Slack: actions, callbacks, blocks, inputs. One StrEnum each.

Pure data, so the renderers can name them; the Slack edge imports them from here
(``tests/test_architecture.py`` keeps bot.render free of bot.slack).

A listener is registered per :class:`ActionId` and :class:`CallbackId`
member (a meta-test checks it); renderers and listeners share these names.
"""

from __future__ import annotations

from enum import StrEnum

COMMAND = "/errkb"


class ActionId(StrEnum):
    VOTE_FIXED = "errkb.vote.fixed"
    VOTE_FAILED = "errkb.vote.failed"
    SHARE = "errkb.share"
    ADD_RECORD = "errkb.add_record"
    SHOW_RECORD = "errkb.show_record"
    DIGEST_CONFIRM = "errkb.digest.confirm"
    DIGEST_SNOOZE = "errkb.digest.snooze"
    DIGEST_DEPRECATE = "errkb.digest.deprecate"
    DIGEST_OPEN = "errkb.digest.open"
    MORE = "errkb.more"
    PAGE = "errkb.page"
    NOT_THIS = "errkb.not_this"
    REMOVE = "errkb.remove"
    UNDO_CORRECTION = "errkb.correction.undo"
    HOME_SEARCH = "errkb.home.search"  # the Home tab's search box (Enter searches)
    HOME_LANG = "errkb.home.lang"  # the Home tab's language choice


class CallbackId(StrEnum):
    LOOKUP_SHORTCUT = "errkb_lookup"
    ADD_SHORTCUT = "errkb_add"  # "Add to errkb": maintainers make a record from a message
    ADD_RECORD_VIEW = "errkb_add_record"
    DEPRECATE_VIEW = "errkb_deprecate"
    CORRECT_VIEW = "errkb_correct"


class FunctionId(StrEnum):
    """Workflow Builder steps errkb serves (``functions:`` in the manifest)."""

    TRIAGE_ERROR = "triage_error"


class BlockId(StrEnum):
    """Blocks that appear once in a message, and the add-record modal's inputs."""

    VOTES = "errkb.votes"
    REPLY_ACTIONS = "errkb.reply_actions"
    RECORD_ID = "errkb.field.id"
    SIGNATURE = "errkb.field.signature"
    REGEX = "errkb.field.regex"
    DOMAIN = "errkb.field.domain"
    CATEGORY = "errkb.field.category"
    ROOT_CAUSE = "errkb.field.root_cause"
    WORKAROUND = "errkb.field.workaround"
    HOW = "errkb.field.how"
    SOURCE = "errkb.field.source"  # where the workaround was found (a thread's permalink)
    DOCS = "errkb.field.docs"
    DEPRECATE_REASON = "errkb.field.deprecate_reason"
    CORRECT_CHOICE = "errkb.field.correct_choice"
    CORRECT_SEARCH = "errkb.field.correct_search"  # "Not this error": search the knowledge base
    ANSWER_ACTIONS = "errkb.answer_actions"
    DIGEST_ITEM = "errkb.digest.item"  # + ":" + record id, one per stale record
    HOME_SEARCH = "errkb.home.search_box"
    HOME_LANG = "errkb.home.lang"


class InputId(StrEnum):
    """The action id of the single input element inside each modal input block."""

    VALUE = "errkb.input.value"
    SEARCH = (
        "errkb.input.search"  # an external_select whose options errkb serves (block_suggestion)
    )
