"""The database: its schema, the units of work on it, and what each feature reads and writes."""

from datetime import UTC, datetime

#: The newest migration in ``migrations/versions`` (a test holds the two together).
SCHEMA_REVISION = "0011"


def utc(value: datetime) -> datetime:
    """A moment read back from the database as an aware UTC datetime (SQLite hands back
    naive ones; errkb stores UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
