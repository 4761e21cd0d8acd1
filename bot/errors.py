"""errkb's exceptions, one tree::

    ErrkbError                 base; ``key`` names the i18n message for users
    ├── ConfigError            missing or malformed settings
    │   └── SchemaOutOfDate    the database's schema is missing or at another revision
    ├── StorageUnavailable     the database cannot be reached
    ├── RecordNotFound         no record with that id
    ├── UnknownDomain          a domain the knowledge base has no records of
    ├── ImportFailed           invalid input; carries every :class:`Problem`
    ├── NotReady               the knowledge base is still loading (worth retrying)
    ├── SlackUnavailable       the Slack Web API failed or timed out (worth retrying)
    │   ├── SlackRateLimited   Slack said 429: retry after ``retry_after`` seconds
    │   └── SlackTokenRefused  Slack refuses the token (invalid, revoked): retried once it takes it
    └── SlackUninstalled       the workspace removed errkb: its work ends, nothing is retried

Adapters translate foreign errors (``OperationalError``, ``SlackApiError``)
into these; user-facing messages come from the catalogs by ``key``.
:data:`TRANSIENT` are the failures a job is retried for (``bot.slack.queue.runner``).
"""

from __future__ import annotations

from dataclasses import dataclass


class ErrkbError(Exception):
    key = "error.generic"


class ConfigError(ErrkbError):
    key = "error.config"


class SchemaOutOfDate(ConfigError):
    """The database needs ``errkb init`` or ``errkb migrate`` (or a newer errkb)."""


class StorageUnavailable(ErrkbError):
    key = "error.storage"


class RecordNotFound(ErrkbError):
    key = "error.not_found"

    def __init__(self, record_id: str) -> None:
        super().__init__(f"no record with id {record_id!r}")
        self.record_id = record_id


class UnknownDomain(ErrkbError):
    """A domain asked for (``digest --domain``, ``stale``) that no record has; names the known
    ones."""

    key = "stale.unknown_domain"

    def __init__(self, domains: list[str], known: set[str], locale: str = "en") -> None:
        from bot.i18n import t

        self.domains = domains
        self.known = known
        super().__init__(
            t(locale, self.key, domain=", ".join(domains), domains=", ".join(sorted(known)) or "-")
        )

    def in_locale(self, locale: str) -> UnknownDomain:
        """The same error, said in ``locale``."""
        return UnknownDomain(self.domains, self.known, locale)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input: where it is and what is wrong."""

    file: str
    where: str  # "line 12", "index 3" or ""
    record_id: str | None
    field: str
    message: str

    def __str__(self) -> str:
        place = f"{self.file}:{self.where}" if self.where else self.file
        rid = self.record_id or "(no id)"
        return f"{place}: {rid}: {self.field}: {self.message}"


class ImportFailed(ErrkbError):
    key = "error.import"

    def __init__(self, problems: list[Problem]) -> None:
        from bot.i18n import t

        super().__init__(t("en", "cli.import_failed", count=len(problems)))
        self.problems = problems


class SlackUnavailable(ErrkbError):
    key = "error.slack"


class NotReady(ErrkbError):
    key = "kb.loading"


class SlackRateLimited(SlackUnavailable):
    """Slack answered 429; the call may be made again after ``retry_after`` seconds."""

    def __init__(self, method: str, retry_after: float, channel: str | None = None) -> None:
        super().__init__(f"Slack {method} rate limited for {retry_after:g} s")
        self.method = method
        self.retry_after = retry_after
        self.channel = channel


class SlackTokenRefused(SlackUnavailable):
    """Slack refuses the bot token (``invalid_auth``, ``token_revoked`` …): nothing is sent with it,
    the work waits until Slack takes a token again."""


class SlackUninstalled(ErrkbError):
    """The workspace uninstalled errkb or revoked its tokens: work for it ends quietly."""

    key = "error.slack"


#: Failures that go away by themselves: the work is tried again later.
TRANSIENT: tuple[type[ErrkbError], ...] = (StorageUnavailable, SlackUnavailable, NotReady)
