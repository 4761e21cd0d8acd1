"""Where the starter knowledge base is: packaged with errkb, or ``data/`` in a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGED = Path(__file__).resolve().parent / "_starter"  # the wheel carries data/ here
_CHECKOUT = Path(__file__).resolve().parent.parent / "data"


def starter_dir() -> Path:
    """The folder of starter record files (JSON arrays in native form)."""
    return _PACKAGED if _PACKAGED.is_dir() else _CHECKOUT


def example_paste(name: str) -> Path:
    return starter_dir() / "examples" / name
