"""Deployment files stay valid and in step with the settings and the README."""

from __future__ import annotations

import json
import re
import struct
import tomllib

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bot.settings import env_names
from tests.conftest import ROOT

COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"
#: Variables only docker compose itself reads.
COMPOSE_ONLY = {
    "POSTGRES_PASSWORD",
    "ERRKB_PORT",
    "ERRKB_MCP_PORT",
    "ERRKB_PUBLIC_HOST",
    "COMPOSE_PROFILES",
}


def env_example_names() -> set[str]:
    names = set()
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        line = line.strip().lstrip("#").strip()
        found = re.match(r"^([A-Z][A-Z0-9_]*)=", line)
        if found:
            names.add(found.group(1))
    return names


def test_compose_has_database_migration_bot_and_socket_profile() -> None:
    services = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]
    assert "healthcheck" in services["db"] and services["db"]["volumes"]
    assert services["init"]["command"] == ["init"]
    assert "/healthz" in json.dumps(services["bot"]["healthcheck"])
    assert services["bot"]["depends_on"]["init"]["condition"] == "service_completed_successfully"
    assert services["bot-socket"]["profiles"] == ["socket"]
    assert "--socket" in services["bot-socket"]["command"]


def test_compose_serves_coding_agents_on_all_addresses_with_the_token_from_env() -> None:
    mcp = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["mcp"]
    assert mcp["profiles"] == ["mcp"] and mcp["command"][:2] == ["mcp", "--http"]
    assert mcp["depends_on"]["init"]["condition"] == "service_completed_successfully"
    # the token comes from .env (env_file); errkb itself refuses 0.0.0.0 without one, so
    # Compose need not refuse the whole project when the profile is off
    assert "0.0.0.0" in mcp["command"] and mcp["env_file"] == ".env"
    assert "ERRKB_MCP_TOKEN" not in mcp["environment"]


def test_every_variable_compose_uses_is_in_env_example_and_the_settings() -> None:
    used = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", COMPOSE.read_text(encoding="utf-8")))
    used |= set(
        yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["bot"].get(
            "environment", {}
        )
    )
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


def test_the_image_installs_the_lock_and_runs_errkb_under_an_init() -> None:
    final = (ROOT / "Dockerfile").read_text(encoding="utf-8").split("\nFROM ")[-1]
    assert re.search(r"pip install .*--require-hashes -r \S*requirements\.lock", final)
    assert re.search(r"pip install .*--no-deps \S*\.whl", final)  # nothing beyond the lock
    entrypoint = re.search(r"^ENTRYPOINT (.+)$", final, re.M)
    assert entrypoint is not None
    words = json.loads(entrypoint.group(1))  # exec form: a JSON list, no shell in between
    assert words[0].endswith("tini") and words[-1] == "errkb"


def _lock_pins(text: str) -> dict[str, tuple[str, bool]]:
    """requirements.lock's pins: name → (version, whether pyproject.toml asked for it)."""
    pins: dict[str, tuple[str, bool]] = {}
    name = ""
    for line in text.splitlines():
        found = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ ;\\]+)", line)
        if found:
            name = canonicalize_name(found.group(1))
            pins[name] = (found.group(2), False)
        elif name and "errkb (pyproject.toml)" in line:
            pins[name] = (pins[name][0], True)
    return pins


def lock_problems(dependencies: list[str], lock: str) -> list[str]:
    """How ``lock`` (requirements.lock's text) falls behind ``dependencies`` (pyproject's)."""
    pins = _lock_pins(lock)
    problems = []
    wanted = [Requirement(r) for r in dependencies]
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        if name not in pins:
            problems.append(f"{name} is not locked")
            continue
        version, direct = pins[name]
        if not direct:
            problems.append(f"{name} is locked, but not as pyproject.toml's")
        if not requirement.specifier.contains(version, prereleases=True):
            problems.append(f"{name}=={version} is outside {requirement.specifier}")
        problems += [
            f"{name}[{e}] is not locked"
            for e in requirement.extras
            if canonicalize_name(f"{name}-{e}") not in pins
        ]
    dropped = {n for n, (_, asked) in pins.items() if asked} - {
        canonicalize_name(r.name) for r in wanted
    }
    problems += [
        f"{name} is locked for pyproject.toml, which no longer names it" for name in sorted(dropped)
    ]
    return problems


def project_dependencies() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return list(project["dependencies"])


def test_the_style_tools_are_pinned_exactly() -> None:
    """ruff and mypy are pinned to one version in the test extra, so every checkout formats
    and type-checks alike."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    tools = [Requirement(r) for r in project["optional-dependencies"]["test"]]
    pins = {canonicalize_name(r.name): str(r.specifier) for r in tools}
    assert pins["ruff"].startswith("==") and pins["mypy"].startswith("=="), pins


def test_the_lock_is_current_with_pyproject() -> None:
    """Every dependency pyproject.toml names is pinned within its bounds (with its extras'),
    and nothing pyproject.toml dropped is still pinned for it: read from what the lock's
    annotations record against pyproject.toml, without the network. When this fails, run
    the command at the top of requirements.lock."""
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    assert "--hash=sha256:" in lock
    assert lock_problems(project_dependencies(), lock) == []


def test_the_lock_check_sees_a_stale_lock() -> None:
    lock = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    dependencies = project_dependencies()
    without = re.sub(r"^waitress==.*?(?=^\S|\Z)", "", lock, count=1, flags=re.M | re.S)
    assert lock_problems(dependencies, without) == ["waitress is not locked"]
    raised = [("waitress>=99" if d.startswith("waitress") else d) for d in dependencies]
    assert lock_problems(raised, lock) == [
        f"waitress=={_lock_pins(lock)['waitress'][0]} is outside >=99"
    ]
    dropped = [d for d in dependencies if not d.startswith("waitress")]
    assert lock_problems(dropped + ["left-pad>=1"], lock) == [
        "left-pad is not locked",
        "waitress is locked for pyproject.toml, which no longer names it",
    ]


def test_the_manifest_describes_the_app_at_the_length_slack_requires() -> None:
    manifest = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))
    long = manifest["display_information"]["long_description"]
    assert 175 <= len(long) <= 4000  # Slack refuses a manifest outside these bounds


def test_the_app_icon_is_a_square_png_slack_takes_and_the_readme_says_where_it_goes() -> None:
    icon = ROOT / "docs" / "icon.png"
    head = icon.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    width, height = struct.unpack(">II", head[16:24])
    assert width == height and 512 <= width <= 2000  # Slack: square, 512 to 2,000 pixels
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/icon.png" in readme and "Display Information" in readme


def test_the_lowest_bounds_job_runs_test_files_that_exist() -> None:
    """A path that is not there would make pytest stop before running anything."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "--resolution lowest-direct" in ci
    job = ci[ci.index("--resolution lowest-direct") :]
    paths = re.findall(r"\btests/\S+\.py\b", job)
    assert len(paths) >= 5 and all((ROOT / p).is_file() for p in paths), paths
