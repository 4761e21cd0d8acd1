"""Logging for the bot, configured once at start: JSON lines off a terminal, text on one.

Every line carries the ids of the request it belongs to (``request_id``,
``team_id``, ``event_id`` from :mod:`bot.slack.adapter.scope`), so the lazy work of a
paste logs under the id of the request that brought it. Slack tokens and the
configured secrets are masked in every line, tracebacks included, and the
libraries that print whole HTTP bodies at DEBUG are held at INFO: no token
and no raw request body reaches a log line.

JSON lines come from python-json-logger: a ``logging.Formatter``, so every
module keeps logging through the standard library (``getLogger(__name__)``,
ids in ``extra``), and a record's ``extra`` fields become JSON fields as they
are. structlog would do it too, but through processors and bound loggers that
errkb would use only to end in the same formatter. What stays ours is what
only errkb knows: which ids a line carries and what must be masked.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, TextIO

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter as _JsonLines

from bot.slack.adapter.scope import current

_TOKEN = re.compile(r"\b(xox[abposre]|xapp)-[A-Za-z0-9-]+")
#: Loggers that print request or response bodies at DEBUG; never below INFO.
CHATTY = ("slack_sdk", "slack_bolt", "bot.slack.bolt", "urllib3")
#: Loggers that say nothing an operator needs below WARNING.
QUIET = ("alembic.runtime.plugins",)
#: A JSON line's fields: the library's (renamed) first, then the record's ``extra``.
_JSON_FIELDS = {"levelname": "level", "name": "logger", "message": "msg", "exc_info": "exc"}


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    text = _TOKEN.sub(lambda m: f"{m.group(1)}-***", text)
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


class RedactTokens(logging.Filter):
    """Rewrites each record's message with tokens masked (arguments included)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg = clean
            record.args = None
        return True


class RequestIds(logging.Filter):
    """Adds the current request's ids to each record (``extra`` given by the caller wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in current().log_fields().items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {
        k: v for k, v in vars(record).items() if k not in RESERVED_ATTRS and not k.startswith("_")
    }


class JsonFormatter(_JsonLines):
    """One JSON object a line: ts, level, logger, msg, the ids and ``extra`` fields, exc."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__(
            list(_JSON_FIELDS)[:3], rename_fields=_JSON_FIELDS, json_ensure_ascii=False
        )
        self.secrets = tuple(secrets)

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        # the time first and to the millisecond: what a person scanning the lines reads first
        log_data["ts"] = datetime.fromtimestamp(record.created, UTC).isoformat(
            timespec="milliseconds"
        )
        super().add_fields(log_data, record, message_dict)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self.secrets)


class TextFormatter(logging.Formatter):
    """``time LEVEL logger: message [key=value …]`` for a person at a terminal."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.secrets = tuple(secrets)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extras = _extras(record)
        if extras:
            line += " [" + " ".join(f"{k}={v}" for k, v in extras.items()) + "]"
        return redact(line, self.secrets)


def configure_logging(
    level: str, *, fmt: str = "auto", secrets: Iterable[str] = (), stream: TextIO | None = None
) -> logging.Handler:
    """Send every log line to ``stream`` (stderr): JSON unless ``fmt`` is text, or auto on a
    terminal."""
    stream = stream if stream is not None else sys.stderr
    as_json = fmt == "json" or (fmt == "auto" and not stream.isatty())
    handler = logging.StreamHandler(stream)
    secrets = [s for s in secrets if len(s) >= 6]
    handler.setFormatter(JsonFormatter(secrets) if as_json else TextFormatter(secrets))
    handler.addFilter(RequestIds())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    floor = max(logging.INFO, root.level)
    for name in CHATTY:
        logging.getLogger(name).setLevel(floor)
    for name in QUIET:
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
    logging.captureWarnings(True)
    return handler
