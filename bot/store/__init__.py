"""The database: its schema, the units of work on it, and what each feature reads and writes."""

#: The newest migration in ``migrations/versions`` (a test holds the two together).
SCHEMA_REVISION = "0011"
