"""The Workflow Builder step ``triage_error``: its outputs from a triage, in the reader's
language. Pure.

The outputs are plain strings a workflow's next step can put in a message
(and ``answered``, a boolean a condition can test): the record's id, its
error, root cause and best workaround (with its command), and a link to read
more (the record's documentation). An error errkb does not know completes the
step too, with ``answered`` false: knowing that is a result.
"""

from __future__ import annotations

from typing import Any

from bot.channels import ChannelSettings
from bot.match.index import MatchIndex
from bot.match.rank import Triage
from bot.records import localize, ranked_workarounds

#: Slack keeps a workflow variable short; longer text is cut (with an ellipsis).
OUTPUT_CHARS = 2_000


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= OUTPUT_CHARS else text[: OUTPUT_CHARS - 1].rstrip() + "…"


def step_outputs(triage: Triage, kb: MatchIndex, locale: str) -> dict[str, Any]:
    """The step's outputs: the record that answers the text when errkb is sure enough for
    someone who asked, else ``answered`` false and empty texts."""
    outputs: dict[str, Any] = {
        "answered": False,
        "record_id": "",
        "signature": "",
        "root_cause": "",
        "fix": "",
        "link": "",
    }
    found = ChannelSettings("").answer_matches(triage, asked=True)
    record = kb.record(found[0].record_id) if found else None
    if record is None:
        return outputs
    view = localize(record, locale)
    order = ranked_workarounds(record)
    fix = ""
    if order:
        best = view.workarounds[order[0]]
        fix = str(best.action).strip()
        how = str(best.how or "").strip()
        fix = f"{fix}\n{how}" if how and how not in fix else fix
    outputs.update(
        answered=True,
        record_id=record.id,
        signature=_cut(str(view.signature)),
        root_cause=_cut(str(view.root_cause)),
        fix=_cut(fix),
        link=record.official_doc_url or "",
    )
    return outputs


__all__ = ["OUTPUT_CHARS", "step_outputs"]
