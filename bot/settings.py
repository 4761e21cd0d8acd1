"""errkb's settings, read once from the environment (and an optional ``.env``).

Every setting is an ``ERRKB_*`` variable except the Slack credentials, which
keep Slack's own names. Build one :class:`Settings` at start and pass it down;
nothing else in errkb reads the environment.
"""

from __future__ import annotations

from pathlib import Path

from platformdirs import user_data_dir
from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import ConfigError


def default_database_url() -> str:
    """A SQLite file in the user's data directory (created on first use)."""
    folder = Path(user_data_dir("errkb", appauthor=False))
    return f"sqlite:///{folder / 'errkb.sqlite3'}"


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
    log_level: str = Field(default="INFO", description="Logging level.")


def load_settings(**overrides: object) -> Settings:
    """Build settings, turning validation errors into one readable :class:`ConfigError`."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        lines = []
        for err in exc.errors(include_url=False):
            name = str(err["loc"][0]) if err["loc"] else "?"
            field = Settings.model_fields.get(name)
            var = _env_name(name, field)
            lines.append(f"{var}: {err['msg']}")
        raise ConfigError("invalid configuration: " + "; ".join(lines)) from None


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
