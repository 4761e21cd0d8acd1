"""Logging for the bot: configured once at start; Slack tokens never reach a log line."""

from __future__ import annotations

import logging
import re

_TOKEN = re.compile(r"\b(xox[abposre]|xapp)-[A-Za-z0-9-]+")


def redact(text: str) -> str:
    return _TOKEN.sub(lambda m: f"{m.group(1)}-***", text)


class RedactTokens(logging.Filter):
    """Rewrites each record's message with tokens masked (arguments included)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactTokens())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
