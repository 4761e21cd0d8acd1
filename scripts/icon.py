"""Draw errkb's Slack app icon, ``docs/icon.png`` (1024 px square).

Slack asks for a square image of 512 to 2,000 pixels; an app manifest has no
icon field, so the image is uploaded by hand under the app's **Basic
Information → Display Information** (the README's Slack setup says when).
The picture: a chat bubble holding a few lines of a traceback, the error line
in red, and a green check, on the manifest's background colour.

    python scripts/icon.py [--output docs/icon.png]
"""

from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZE_PX = 1024
BACKGROUND = "#2c2d30"  # display_information.background_color in manifest.yaml
BUBBLE = "#f8f8f8"
LINE = "#9aa0a6"
ERROR = "#e01e5a"
CHECK = "#2eb67d"


def draw(output: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyBboxPatch, Polygon

    dpi = 128
    fig = plt.figure(figsize=(SIZE_PX / dpi, SIZE_PX / dpi), dpi=dpi)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")
    fig.patch.set_facecolor(BACKGROUND)

    bubble = dict(boxstyle="round,pad=0,rounding_size=0.08", facecolor=BUBBLE, edgecolor="none")
    ax.add_patch(FancyBboxPatch((0.12, 0.3), 0.76, 0.52, **bubble))  # type: ignore[arg-type]
    ax.add_patch(Polygon([(0.22, 0.31), (0.38, 0.31), (0.2, 0.17)], closed=True, facecolor=BUBBLE))
    # a traceback: indented frames, then the error line
    rows = [
        (0.2, 0.71, 0.44, LINE),
        (0.26, 0.625, 0.4, LINE),
        (0.26, 0.54, 0.3, LINE),
        (0.2, 0.44, 0.56, ERROR),
    ]
    for x, y, width, colour in rows:
        line = dict(boxstyle="round,pad=0,rounding_size=0.02", facecolor=colour, edgecolor="none")
        ax.add_patch(FancyBboxPatch((x, y), width, 0.045, **line))  # type: ignore[arg-type]
    ax.add_patch(Circle((0.76, 0.26), 0.15, facecolor=CHECK, edgecolor=BACKGROUND, linewidth=14))
    ax.plot(
        [0.69, 0.745, 0.835],
        [0.265, 0.205, 0.315],
        color="white",
        linewidth=22,
        solid_capstyle="round",
        solid_joinstyle="round",
    )

    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, dpi=dpi, facecolor=BACKGROUND)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "icon.png")
    draw(parser.parse_args().output)


if __name__ == "__main__":
    main()
