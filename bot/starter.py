"""Where the starter knowledge base is: packaged with errkb, or ``data/`` in a checkout."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def starter_dir() -> Path:
    try:
        packaged = Path(str(resources.files("bot.starter")))
    except ModuleNotFoundError:
        packaged = None
    if packaged is not None and any(packaged.glob("*.json")):
        return packaged
    return Path(__file__).resolve().parent.parent / "data"


def example_paste(name: str) -> Path:
    return starter_dir() / "examples" / name
