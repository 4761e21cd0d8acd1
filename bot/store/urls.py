"""Database URLs, read without SQLAlchemy: settings and a one-shot command need only
their backend, their SQLite file and their text without the password, and importing
SQLAlchemy would cost such a command more than its own work.

The grammar is SQLAlchemy's (``backend[+driver]://[user[:password]@][host][:port][/database][?query]``);
opening a database still goes through SQLAlchemy (:func:`bot.store.db.make_engine`),
which checks the rest.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_URL = re.compile(r"(?P<name>[\w+]+)://(?P<rest>.*)", re.DOTALL)
#: what follows ``://``: ``[user[:password]@][host or [ipv6]][:port][/database][?query]``
_REST = re.compile(
    r"(?:[^:/]*(?::[^@]*)?@)?(?:(?:\[[^/?]+\]|[^/:?]+)?(?::(?P<port>[^/?]*))?)?"
    r"(?:/[^?]*)?(?:\?.*)?",
    re.DOTALL,
)
_PASSWORD = re.compile(r"^(?P<user>[^:/]*):[^@]*@")
#: The SQLite drivers whose URL names a plain file (``sqlite+pysqlite`` is the default one).
_SQLITE_PLAIN = frozenset({"sqlite", "sqlite+pysqlite"})


def backend_name(url: str) -> str | None:
    """``sqlite``, ``postgresql``, …; None for a string that is not a database URL (a port
    that is not a number included)."""
    match = _URL.fullmatch(url)
    rest = _REST.match(match["rest"]) if match else None
    if match is None or rest is None or not (rest["port"] is None or rest["port"].isdigit()):
        return None
    return match["name"].split("+", 1)[0]


def without_password(url: str) -> str:
    """``url`` with its password (if any) as ``***``, as logs and file names show it."""
    match = _URL.fullmatch(url)
    if match is None:
        return url
    rest = _PASSWORD.sub(r"\g<user>:***@", match["rest"], count=1)
    return f"{match['name']}://{rest}"


def sqlite_file(url: str) -> str | None:
    """The file a plain SQLite URL (``sqlite:///path``, no query) opens, ``%xx`` decoded as
    SQLAlchemy decodes it; None for any other URL: another database, the memory, a
    ``file:`` URI or options in a query string."""
    match = _URL.fullmatch(url)
    if match is None or match["name"] not in _SQLITE_PLAIN:
        return None
    rest = match["rest"]
    if not rest.startswith("/") or "?" in rest:
        return None
    database = unquote(rest[1:])
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return database
