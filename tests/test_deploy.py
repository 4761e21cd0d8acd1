"""Deployment files stay valid and in step with the settings and the README."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml

from bot.settings import env_names
from tests.conftest import ROOT

COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"
#: Variables only docker compose itself reads.
COMPOSE_ONLY = {"POSTGRES_PASSWORD", "ERRKB_PORT", "ERRKB_MCP_PORT", "COMPOSE_PROFILES"}


def env_example_names() -> set[str]:
    names = set()
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        line = line.strip().lstrip("#").strip()
        found = re.match(r"^([A-Z][A-Z0-9_]*)=", line)
        if found:
            names.add(found.group(1))
    return names


def schema_path() -> Path:
    configured = os.environ.get("ERRKB_COMPOSE_SCHEMA", "")
    path = Path(configured) if configured else ROOT / ".venv/share/errkb-test/compose_spec.json"
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"Compose Specification schema missing at {path}; scripts/test fetches it")
        pytest.skip("Compose Specification schema not installed; ./scripts/test fetches it")
    return path


def test_compose_file_follows_the_compose_specification() -> None:
    import jsonschema

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(compose), key=lambda e: list(e.path))
    assert not errors, [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]


def test_a_broken_compose_file_is_caught_by_the_same_check() -> None:
    import jsonschema

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    broken = {"services": {"bot": {"image": "errkb", "restart": {"policy": "always"}, "helthcheck": {}}}}
    assert list(jsonschema.Draft7Validator(schema).iter_errors(broken))


def test_compose_has_database_migration_bot_and_socket_profile() -> None:
    services = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    assert "healthcheck" in services["db"] and services["db"]["volumes"]
    assert services["init"]["command"] == ["init"]
    assert "/healthz" in json.dumps(services["bot"]["healthcheck"])
    assert services["bot"]["depends_on"]["init"]["condition"] == "service_completed_successfully"
    assert services["bot-socket"]["profiles"] == ["socket"]
    assert "--socket" in services["bot-socket"]["command"]


def test_compose_serves_coding_agents_only_with_a_token() -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    mcp = yaml.safe_load(text)["services"]["mcp"]
    assert mcp["profiles"] == ["mcp"] and mcp["command"][:2] == ["mcp", "--http"]
    assert mcp["depends_on"]["init"]["condition"] == "service_completed_successfully"
    # compose refuses to start it without a token (errkb itself refuses a public address without one)
    assert mcp["environment"]["ERRKB_MCP_TOKEN"].startswith("${ERRKB_MCP_TOKEN:?")


def test_every_variable_compose_uses_is_in_env_example_and_the_settings() -> None:
    used = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", COMPOSE.read_text(encoding="utf-8")))
    used |= set(yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["bot"].get("environment", {}))
    example = env_example_names()
    assert used - example == set()
    assert used - COMPOSE_ONLY <= set(env_names())


def test_env_example_lists_every_setting_and_nothing_else() -> None:
    example = env_example_names()
    assert set(env_names()) - example == set(), "settings missing from .env.example"
    assert example - set(env_names()) - COMPOSE_ONLY == set(), ".env.example names unknown settings"


def test_readme_configuration_table_lists_every_setting() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = {m.group(1) for m in re.finditer(r"^\| `([A-Z][A-Z0-9_]*)` \|", readme, re.M)}
    assert set(env_names()) - table == set(), "settings missing from the README table"
    assert table - set(env_names()) - COMPOSE_ONLY == set(), "README documents unknown settings"


def test_dockerfile_is_slim_multi_stage_and_non_root() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    stages = re.findall(r"^FROM (\S+)", text, re.M)
    assert len(stages) >= 2 and all("slim" in s for s in stages)
    final = text.split("\nFROM ")[-1]
    assert re.search(r"^USER (?!root)\S+", final, re.M)
    assert "gcc" not in final and "build-essential" not in final
    assert "HEALTHCHECK" in final and "/healthz" in final
