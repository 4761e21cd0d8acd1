"""errkb's settings, read once from the environment (and an optional ``.env``).

Every setting is an ``ERRKB_*`` variable except the Slack credentials, which
keep Slack's own names. Build one :class:`Settings` at start and pass it down;
nothing else in errkb reads the environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from platformdirs import user_cache_dir, user_data_dir
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.errors import ConfigError


def default_database_url() -> str:
    """A SQLite file in the user's data directory (created on first use)."""
    folder = Path(user_data_dir("errkb", appauthor=False))
    return f"sqlite:///{folder / 'errkb.sqlite3'}"


#: How to make an ERRKB_SECRET_KEY (a Fernet key).
KEY_COMMAND = (
    "python3 -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())'"
)

#: The bot scopes of ``manifest.yaml`` (a test keeps the two in step).
MANIFEST_SCOPES = (
    "chat:write",
    "commands",
    "channels:history",
    "groups:history",
    "im:history",
    "mpim:history",
    "app_mentions:read",
    "users:read",
    "files:read",
    "files:write",
    "usergroups:read",
    "channels:read",
    "groups:read",
    "reactions:write",
    "reactions:read",
    "assistant:write",
    "im:write",
)
#: The database backends errkb's schema and locks are written for.
DATABASES = ("sqlite", "postgresql")
EXAMPLE_DATABASE_URL = "postgresql+psycopg://errkb:secret@db:5432/errkb"
DEFAULT_DIGEST_CRON = "0 9 * * mon"
#: Shortest bearer token ``errkb mcp --http`` accepts.
MCP_TOKEN_MIN = 16


class Settings(BaseSettings):
    """All configuration; see the README's configuration table."""

    model_config = SettingsConfigDict(
        env_prefix="ERRKB_", env_file=".env", extra="ignore", populate_by_name=True
    )

    database_url: str = Field(
        default_factory=default_database_url,
        description="SQLAlchemy URL of the database (SQLite or PostgreSQL).",
    )
    slack_bot_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_BOT_TOKEN"),
        description="Bot token (xoxb-...) of a single-workspace install.",
    )
    slack_signing_secret: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_SIGNING_SECRET"),
        description="Signing secret used to verify requests from Slack.",
    )
    slack_app_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_APP_TOKEN"),
        description="App-level token (xapp-...) for Socket Mode.",
    )
    slack_api_url: str = Field(
        default="https://slack.com/api/",
        validation_alias=AliasChoices("SLACK_API_URL"),
        description="Base URL of the Slack Web API.",
    )
    slack_client_id: str | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_CLIENT_ID"),
        description="Client id of the Slack app; with SLACK_CLIENT_SECRET, turns on "
        "multi-workspace install (OAuth).",
    )
    slack_client_secret: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_CLIENT_SECRET"),
        description="Client secret of the Slack app (multi-workspace install).",
    )
    slack_scopes: Annotated[tuple[str, ...], NoDecode] = Field(
        default=MANIFEST_SCOPES,
        validation_alias=AliasChoices("SLACK_SCOPES"),
        description="Bot scopes asked for at install, comma separated (default: the manifest's).",
    )
    slack_redirect_uri: str | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_REDIRECT_URI"),
        description="OAuth redirect URL, https://HOST/slack/oauth_redirect "
        "(needed when the app lists several).",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        default="INFO", description="Logging level."
    )
    log_format: Literal["auto", "json", "text"] = Field(
        default="auto",
        description="Log lines as JSON or text; auto: text on a terminal, JSON otherwise.",
    )
    kb_refresh_seconds: float = Field(
        default=0.5,
        gt=0,
        le=3600,
        description="How often a server checks the database "
        "for changed records (and re-indexes them).",
    )
    cache_dir: Path = Field(
        default_factory=lambda: Path(user_cache_dir("errkb", appauthor=False)),
        description="Folder of the knowledge snapshot a server "
        "restarts from without rebuilding its index.",
    )
    channel_locales: Annotated[dict[str, str], NoDecode] = Field(
        default_factory=dict,
        description="Default answer language per channel: "
        "CHANNEL=LOCALE pairs, e.g. C0123=zh,C0456=en.",
    )
    paste_limit: int = Field(
        default=100_000,
        ge=1_000,
        description="Characters of a paste (or snippet) that are read: of a longer one, its start, "
        "its end and its error lines with their context, with a note.",
    )
    user_cache_seconds: int = Field(
        default=3600, ge=0, description="How long a user's Slack locale (users.info) is cached."
    )
    workers: int = Field(
        default=16, ge=1, description="Threads doing the work after Slack is acknowledged."
    )
    queue_limit: int = Field(
        default=2_000,
        ge=1,
        description="Unfinished jobs at most; beyond it Slack "
        "gets 503 and delivers the event again later.",
    )
    answer_deadline_seconds: int = Field(
        default=600,
        ge=10,
        description="How long errkb keeps retrying an answer Slack "
        "or the database failed; then it gives up.",
    )
    job_lease_seconds: int = Field(
        default=60,
        ge=5,
        description="How long a server may hold a job before another server may take it over.",
    )

    maintainers: str = Field(
        default="",
        description="Slack user ids of knowledge-base maintainers, comma separated.",
    )
    maintainer_group: str | None = Field(
        default=None, description="Slack user group id whose members are maintainers."
    )
    digest_channel: str | None = Field(
        default=None, description="Channel id the staleness digest is posted to."
    )
    digest_team: str | None = Field(
        default=None,
        description="Workspace (team id) the digest is posted in, for a multi-workspace install.",
    )
    digest_cron: str = Field(
        default=DEFAULT_DIGEST_CRON,
        description="When the digest is posted: a five-field cron expression.",
    )
    timezone: str = Field(
        default="UTC", description="Time zone of the digest schedule (IANA name)."
    )
    stale_after_days: int = Field(
        default=180, ge=1, description="A record is stale when last_confirmed is older than this."
    )
    stale_after_days_by_domain: Annotated[dict[str, int], NoDecode] = Field(
        default_factory=dict,
        description="Per-domain staleness thresholds: DOMAIN=DAYS pairs, e.g. llm=90,web=365.",
    )
    stale_after_days_by_tier: Annotated[dict[str, int], NoDecode] = Field(
        default_factory=dict,
        description="Per-verification-tier thresholds: TIER=DAYS pairs, e.g. ai_generated=90.",
    )
    domain_owners: Annotated[dict[str, list[str]], NoDecode] = Field(
        default_factory=dict,
        description="Owners of each domain: DOMAIN=USER USER pairs, e.g. llm=U123 U456,cuda=U789.",
    )
    digest_size: int = Field(default=10, ge=1, le=14, description="Stale records shown per digest.")
    digest_retry_seconds: int = Field(
        default=60, ge=1, description="How often a missed or failed digest is retried."
    )
    observe_window_hours: float = Field(
        default=24,
        gt=0,
        description="Errors seen in one thread (or CLI session) "
        "within this many hours count as a transition.",
    )
    mcp_token: SecretStr | None = Field(
        default=None,
        description="Bearer token agents send to errkb mcp "
        "--http; required unless it binds to loopback.",
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description="Fernet key the installations' bot and refresh tokens are encrypted with; "
        "required with SLACK_CLIENT_ID.",
    )
    secret_key_previous: SecretStr | None = Field(
        default=None,
        description="Earlier Fernet keys (comma separated) that still decrypt, while "
        "ERRKB_SECRET_KEY encrypts: key rotation.",
    )
    mcp_outcomes: bool = Field(
        default=False,
        description="Let agents report whether a workaround worked "
        "(the MCP tool report_outcome); off: read-only.",
    )
    mcp_max_sessions: int = Field(
        default=256,
        ge=1,
        description="MCP sessions errkb mcp --http keeps open at once; one more is answered 503.",
    )
    mcp_idle_seconds: float = Field(
        default=300,
        gt=0,
        description="Seconds an MCP session of errkb mcp --http may sit idle before it is closed.",
    )

    @field_validator(
        "channel_locales", "stale_after_days_by_domain", "stale_after_days_by_tier", mode="before"
    )
    @classmethod
    def _split_pairs(cls, value: Any) -> Any:
        return _pairs(value) if isinstance(value, str) else value

    @field_validator("slack_scopes", mode="before")
    @classmethod
    def _split_scopes(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        scopes = tuple(part.strip() for part in value.split(",") if part.strip())
        if not scopes:
            raise ValueError("expected scopes separated by commas, e.g. chat:write,commands")
        return scopes

    @field_validator("mcp_token")
    @classmethod
    def _long_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and len(value.get_secret_value()) < MCP_TOKEN_MIN:
            raise ValueError(
                f"use at least {MCP_TOKEN_MIN} characters, e.g. from: "
                "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
        return value

    @field_validator("database_url")
    @classmethod
    def _database(cls, value: str) -> str:
        from bot.store.urls import backend_name

        backend = backend_name(value)
        if backend is None:
            raise ValueError(f"not a database URL: {value!r} (e.g. {EXAMPLE_DATABASE_URL})")
        if backend not in DATABASES:
            raise ValueError(
                f"errkb runs on SQLite or PostgreSQL, not {backend!r} (e.g. {EXAMPLE_DATABASE_URL})"
            )
        return value

    @field_validator("digest_cron")
    @classmethod
    def _cron(cls, value: str) -> str:
        if value == DEFAULT_DIGEST_CRON:  # known good: no scheduler import for every command
            return value
        from bot.digest.schedule import parse_cron

        parse_cron(value, ZoneInfo("UTC"))  # a ValueError says what is wrong
        return value

    @field_validator("channel_locales")
    @classmethod
    def _locales(cls, value: dict[str, str]) -> dict[str, str]:
        from bot.i18n import AUTO, available_locales, supported

        unknown = {
            channel: locale
            for channel, locale in value.items()
            if locale != AUTO and supported(locale) is None
        }
        if unknown:
            pairs = ", ".join(f"{channel}={locale}" for channel, locale in unknown.items())
            raise ValueError(
                f"unknown locale in {pairs} (errkb speaks "
                f"{', '.join(available_locales())}, or auto)"
            )
        return value

    @field_validator("secret_key", "secret_key_previous")
    @classmethod
    def _fernet_keys(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            from bot.store.secrets import check_keys

            check_keys(value.get_secret_value())  # a ValueError says why, naming no key
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"unknown time zone {value!r} (expected an IANA name like Europe/Berlin)"
            ) from None
        return value

    @field_validator("domain_owners", mode="before")
    @classmethod
    def _split_owners(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        return {domain: users.split() for domain, users in _pairs(value).items()}

    @property
    def maintainer_ids(self) -> frozenset[str]:
        return frozenset(part.strip() for part in self.maintainers.split(",") if part.strip())

    @property
    def multi_workspace(self) -> bool:
        """True when errkb is installed per workspace through OAuth (SLACK_CLIENT_ID set)."""
        return self.slack_client_id is not None

    def serve_problems(self, *, socket: bool = False) -> list[str]:
        """What ``errkb serve`` is missing, one ``VARIABLE: why`` each (empty when it can start)."""
        problems = []
        if self.slack_signing_secret is None:
            problems.append("SLACK_SIGNING_SECRET: required to verify requests from Slack")
        if self.multi_workspace and self.slack_client_secret is None:
            problems.append(
                "SLACK_CLIENT_SECRET: required with SLACK_CLIENT_ID (multi-workspace install)"
            )
        if self.slack_client_secret is not None and not self.multi_workspace:
            problems.append(
                "SLACK_CLIENT_ID: required with SLACK_CLIENT_SECRET (multi-workspace install)"
            )
        if (
            not self.multi_workspace
            and self.slack_client_secret is None
            and self.slack_bot_token is None
        ):
            problems.append(
                "SLACK_BOT_TOKEN: required to answer in Slack (or SLACK_CLIENT_ID and "
                "SLACK_CLIENT_SECRET for a multi-workspace install)"
            )
        if socket and self.slack_app_token is None:
            problems.append("SLACK_APP_TOKEN: required for errkb serve --socket")
        if socket and self.multi_workspace:
            problems.append("SLACK_CLIENT_ID: a multi-workspace install needs errkb serve --http")
        if self.multi_workspace and self.secret_key is None:
            problems.append(
                "ERRKB_SECRET_KEY: required with SLACK_CLIENT_ID, to keep the installations' "
                "tokens encrypted (make one: " + KEY_COMMAND + ")"
            )
        return problems

    def secret_values(self) -> list[str]:
        """The configured secrets, for masking in logs."""
        secrets = (
            self.slack_bot_token,
            self.slack_signing_secret,
            self.slack_app_token,
            self.slack_client_secret,
            self.mcp_token,
            self.secret_key,
            self.secret_key_previous,
        )
        return [s.get_secret_value() for s in secrets if s is not None and s.get_secret_value()]


def _pairs(value: str) -> dict[str, str]:
    """``KEY=VALUE,KEY=VALUE`` as a dict; a malformed pair is an error naming it."""
    pairs = {}
    for part in filter(None, (p.strip() for p in value.split(","))):
        key, sep, item = part.partition("=")
        if not sep or not key.strip() or not item.strip():
            raise ValueError(f"expected KEY=VALUE pairs separated by commas, got {part!r}")
        pairs[key.strip()] = item.strip()
    return pairs


def load_settings(**overrides: object) -> Settings:
    """Build settings, turning validation errors into one readable :class:`ConfigError`."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = []
        for err in exc.errors(include_url=False):
            name = str(err["loc"][0]) if err["loc"] else "?"
            var = _variable(name)
            message = " ".join(str(err["msg"]).split()).removeprefix("Value error, ")
            lines.append(f"{var}: {message}")
        raise ConfigError("invalid configuration: " + "; ".join(lines)) from None


def _variable(loc: str) -> str:
    """The environment variable behind an error location (a field name or an alias)."""
    if loc.upper() == loc and not loc.startswith("ERRKB_"):
        return loc  # already a variable name: a Slack alias such as SLACK_SCOPES
    return _env_name(loc, Settings.model_fields.get(loc))


def _env_name(name: str, field: object) -> str:
    alias = getattr(field, "validation_alias", None)
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0])
    return f"ERRKB_{name.upper()}"


def env_names() -> dict[str, str]:
    """Environment variable name → description, for documentation checks."""
    return {
        _env_name(name, field): field.description or ""
        for name, field in Settings.model_fields.items()
    }
