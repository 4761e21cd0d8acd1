"""What an edit added: the errors a message's new text holds that its old text did not. Pure.

An edit is answered only for errors it brought (:func:`added_errors`); an edit that
keeps, changes the wording around, or removes an error brings none, so the
thread hears nothing more.
"""

from __future__ import annotations

import hashlib

from bot.match.extract import extract


def added_errors(before: str, after: str) -> list[str]:
    """Templates of the errors in ``after`` that ``before`` did not hold, in paste order."""
    old = {e.template for e in extract(before).errors} if before.strip() else set()
    return list(dict.fromkeys(e.template for e in extract(after).errors if e.template not in old))


def edit_key(channel: str, ts: str, added: list[str]) -> str:
    """The job key of answering an edit: the same errors added to the same message are one
    answer."""
    digest = hashlib.sha256("\n".join(sorted(added)).encode()).hexdigest()[:24]
    return f"edit:{channel}:{ts}:{digest}"


__all__ = ["added_errors", "edit_key"]
