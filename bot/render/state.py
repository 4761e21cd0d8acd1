"""State errkb carries in a button ``value`` or a view's ``private_metadata``.

Each is a small pydantic model written as compact JSON and validated when
Slack hands it back; anything malformed is a :class:`~bot.errors.ErrkbError`.
"""

from __future__ import annotations

from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.errors import ErrkbError

VALUE_LIMIT = 2_000  # Slack's limit for a button value
METADATA_LIMIT = 3_000  # and for private_metadata


class BadState(ErrkbError):
    key = "error.bad_state"


class State(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def dump(self) -> str:
        text = self.model_dump_json(exclude_none=True)
        if len(text) > VALUE_LIMIT:
            raise ValueError(
                f"{type(self).__name__} state is {len(text)} characters, over {VALUE_LIMIT}"
            )
        return text


class VoteState(State):
    """A "This fixed it" / "Didn't help" button: which reply, record and workaround."""

    reply: int = Field(ge=1)
    record: str = Field(min_length=1, max_length=300)
    pos: int = Field(ge=0)


class ReplyState(State):
    """A button about a whole reply (share it)."""

    reply: int = Field(ge=1)


class PageState(State):
    """ "More"/"Less" and "Next error": which error of the reply, folded or expanded."""

    reply: int = Field(ge=1)
    page: int = Field(ge=0, le=50)
    expanded: bool = False


class CorrectState(State):
    """ "Not this error": the reply and which of its errors."""

    reply: int = Field(ge=1)
    page: int = Field(ge=0, le=50)


class CorrectionModalState(State):
    """The "Not this error" modal: the reply, the record it wrongly showed, the message to
    update."""

    reply: int = Field(ge=1)
    wrong: str = Field(min_length=1, max_length=300)
    channel: str | None = None
    ts: str | None = None
    locale: str = "en"


class CorrectionState(State):
    """A learned choice a maintainer may undo."""

    correction: int = Field(ge=1)


class RecordState(State):
    """A button naming a record (show it)."""

    record: str = Field(min_length=1, max_length=300)


class AddState(State):
    """ "Add to knowledge base": the unknown error to prefill from, and where to say thanks."""

    unknown: int | None = None
    channel: str | None = None
    thread: str | None = None
    locale: Literal["en", "zh"] | str = "en"
    fix_by: str | None = None  # whose reply in a thread held the fix the form starts from


class DigestItemState(State):
    """A digest button: the record it acts on and its domain (owners may act on it)."""

    record: str = Field(min_length=1, max_length=300)
    domain: str = Field(min_length=1, max_length=100)


class DeprecateState(State):
    """The deprecate modal: which record, and which digest message to update after."""

    record: str = Field(min_length=1, max_length=300)
    domain: str = Field(min_length=1, max_length=100)
    channel: str | None = None
    ts: str | None = None
    locale: str = "en"


S = TypeVar("S", bound=State)


def load_state(model: type[S], raw: str | None) -> S:
    """Validate state coming back from Slack."""
    try:
        return model.model_validate_json(raw or "")
    except ValidationError as exc:
        raise BadState(f"malformed {model.__name__}: {exc.error_count()} problem(s)") from None
