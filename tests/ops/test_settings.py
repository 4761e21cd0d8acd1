"""Settings at start: every problem named in one line, and ``errkb serve`` refuses to start
without them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from cryptography.fernet import Fernet

from bot.errors import ConfigError
from bot.settings import MANIFEST_SCOPES, Settings, load_settings
from tests.conftest import ROOT
from tests.ops.conftest import clean_env, errkb_command


def run_errkb(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        errkb_command(*args),
        env=clean_env(tmp_path, **env),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.mark.slow
def test_serve_without_signing_secret_stops_with_one_line_naming_it(tmp_path: Path) -> None:
    done = run_errkb(tmp_path, "serve", "--http", "--port", "0", SLACK_BOT_TOKEN="xoxb-1-2-abc")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "SLACK_SIGNING_SECRET" in lines[0]
    assert "Traceback" not in done.stderr and "xoxb-1-2-abc" not in done.stderr


@pytest.mark.slow
def test_malformed_settings_are_all_named_in_one_line(tmp_path: Path) -> None:
    done = run_errkb(
        tmp_path,
        "serve",
        "--http",
        "--port",
        "0",
        SLACK_SIGNING_SECRET="s3cret-value",
        SLACK_BOT_TOKEN="xoxb-1-2-abc",
        ERRKB_WORKERS="many",
        ERRKB_LOG_LEVEL="loud",
        ERRKB_TIMEZONE="Mars/Olympus",
        ERRKB_CHANNEL_LOCALES="C1",
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for name in ("ERRKB_WORKERS", "ERRKB_LOG_LEVEL", "ERRKB_TIMEZONE", "ERRKB_CHANNEL_LOCALES"):
        assert name in lines[0]
    assert "s3cret-value" not in done.stderr and "Traceback" not in done.stderr


KEY = Fernet.generate_key().decode()


@pytest.mark.parametrize(
    ("env", "socket", "named"),
    [
        ({}, False, {"SLACK_SIGNING_SECRET", "SLACK_BOT_TOKEN"}),
        ({"SLACK_SIGNING_SECRET": "s"}, True, {"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"}),
        (
            {"SLACK_SIGNING_SECRET": "s", "SLACK_CLIENT_ID": "1.2", "ERRKB_SECRET_KEY": KEY},
            False,
            {"SLACK_CLIENT_SECRET"},
        ),
        ({"SLACK_SIGNING_SECRET": "s", "SLACK_CLIENT_SECRET": "c"}, False, {"SLACK_CLIENT_ID"}),
        (
            {
                "SLACK_SIGNING_SECRET": "s",
                "SLACK_CLIENT_ID": "1.2",
                "SLACK_CLIENT_SECRET": "c",
                "SLACK_APP_TOKEN": "xapp-1",
                "ERRKB_SECRET_KEY": KEY,
            },
            True,
            {"SLACK_CLIENT_ID"},
        ),
        ({"SLACK_SIGNING_SECRET": "s", "SLACK_BOT_TOKEN": "xoxb-1"}, False, set()),
        (
            {"SLACK_SIGNING_SECRET": "s", "SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "c"},
            False,
            {"ERRKB_SECRET_KEY"},
        ),
        (
            {
                "SLACK_SIGNING_SECRET": "s",
                "SLACK_CLIENT_ID": "1.2",
                "SLACK_CLIENT_SECRET": "c",
                "ERRKB_SECRET_KEY": KEY,
            },
            False,
            set(),
        ),
    ],
)
def test_serve_problems_name_each_missing_variable(
    env: dict[str, str], socket: bool, named: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (
        "SLACK_SIGNING_SECRET",
        "SLACK_BOT_TOKEN",
        "SLACK_APP_TOKEN",
        "SLACK_CLIENT_ID",
        "SLACK_CLIENT_SECRET",
        "ERRKB_SECRET_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    problems = Settings(_env_file=None).serve_problems(socket=socket)  # type: ignore[call-arg]
    assert {p.split(":")[0] for p in problems} == named


def test_slack_scopes_default_to_the_manifest_and_split_on_commas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    manifest = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))
    assert list(MANIFEST_SCOPES) == manifest["oauth_config"]["scopes"]["bot"]
    monkeypatch.setenv("SLACK_SCOPES", "chat:write, commands")
    assert load_settings(_env_file=None).slack_scopes == ("chat:write", "commands")
    monkeypatch.setenv("SLACK_SCOPES", " , ")
    with pytest.raises(ConfigError, match="SLACK_SCOPES"):
        load_settings(_env_file=None)


def test_secrets_are_secret_and_listed_for_masking() -> None:
    settings = Settings(
        slack_bot_token="xoxb-9-tok",
        slack_signing_secret="sig-8d1f",
        slack_client_id="1.2",
        slack_client_secret="client-7a2e",
        _env_file=None,
    )  # type: ignore[call-arg]
    assert "client-7a2e" not in repr(settings) and "sig-8d1f" not in repr(settings)
    assert set(settings.secret_values()) == {"xoxb-9-tok", "sig-8d1f", "client-7a2e"}
    assert settings.multi_workspace
