"""Uploads as ``files_upload_v2`` makes them: ``files.getUploadURLExternal`` hands out an
upload URL of the stand-in (``server`` takes the bytes), ``files.completeUploadExternal``
shares what was uploaded."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tests.slack.fake_slack.values import Grant, Reply

if TYPE_CHECKING:
    from tests.slack.fake_slack.state import FakeSlack


def upload_url(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    file_id = f"F{next(fake.serial)}"
    body = {"ok": True, "upload_url": f"{fake.url}/upload/{file_id}", "file_id": file_id}
    return 200, body, {}


def complete_upload(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    given = params.get("files")
    shared = json.loads(given) if isinstance(given, str) else given or []
    body = {"ok": True, "files": [{"id": f["id"], "title": f.get("title")} for f in shared]}
    return 200, body, {}


METHODS = {
    "files.getUploadURLExternal": upload_url,
    "files.completeUploadExternal": complete_upload,
}
