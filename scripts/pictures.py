"""Pictures of errkb's real payloads for the README, drawn by headless Chromium.

Usage: ./scripts/pictures [--example NAME] [--out DIR] [--html DIR [--html-only]] [--width PX]
       ./scripts/pictures --check

Each picture is a payload errkb's own code makes (``scripts/starter_answers.py``
for thread replies), drawn as HTML by ``scripts/blockkit_html.py`` and
screenshotted by headless Chromium (Debian's ``chromium`` package, or the
browser named by ``$CHROMIUM``), then reduced to a 256-colour optimised PNG:

- ``docs/answer-en.png``, ``docs/answer-zh.png``: the reply to one starter
  example paste (``--example``, default vllm-oom) in English and in Chinese;
- ``docs/alert-en.png``, ``docs/alert-zh.png``: a Sentry alert (the message of
  ``tests/slack/alerts/sentry.json``) and errkb's reply in its thread, read from
  the alert as ``errkb serve`` reads it (:func:`bot.alerts.alert_text`), in a
  channel whose language is English, then Chinese;
- ``docs/app-home.png``: App Home of a maintainer who asked about the example
  pastes (``scripts/starter_home.py``), once errkb renders App Home.

``--html DIR`` also keeps the HTML pages (no Chromium is needed for those with
``--html-only``). ``docs/pictures.json`` notes what each picture was drawn from;
``--check`` (no Chromium) exits 1 when a payload has changed since.
Chinese text uses the Noto Sans SC face shipped by ``pylopdf-fonts-zh-cn`` (a
dependency of errkb), handed to Chromium's fontconfig from its file: nothing is
fetched, and no CJK font need be installed.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from scripts.blockkit_html import font_face, message_page, thread_page, view_page  # noqa: E402
from scripts.starter_answers import Knowledge, knowledge, starter_replies, thread_reply  # noqa: E402

APP = "errkb"
WIDTH = 800
DEFAULT_EXAMPLE = "vllm-oom"
#: Beside the pictures: what each was drawn from (``--check`` compares it with today's page).
MANIFEST = "pictures.json"
HOME_SKIPPED = "App Home skipped: errkb has no App Home renderer yet (bot/render/home.py)"
DOCS = ROOT / "docs"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--virtual-time-budget=5000",
)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MAX_HEIGHT = 8_000
_HEIGHT = re.compile(r'data-page-height="(\d+)"')
_MEASURE = (
    "<script>document.fonts.ready.then(() => document.documentElement.setAttribute("
    "'data-page-height', "
    "Math.ceil(document.documentElement.getBoundingClientRect().height)))</script>"
)


class NoChromium(RuntimeError):
    pass


@dataclass(frozen=True)
class Picture:
    name: str  # file name in the output folder
    page: Callable[[], str | None]  # the HTML page, or None when there is nothing to draw yet
    skipped: str = ""  # said when ``page`` gives None


# -- what is drawn ----------------------------------------------------------------


def cjk_font() -> Path | None:
    """The Noto Sans SC file errkb's dependency ships (the graph pictures use it too)."""
    from graph.picture import cjk_font_path

    return cjk_font_path()


def answer_page(kb: Knowledge, example: Path, locale: str, width: int) -> str:
    outcome, _records, payload = thread_reply(
        kb, example.read_text(encoding="utf-8"), locale=locale
    )
    if not payload:
        raise SystemExit(
            f"{example.name}: errkb posts nothing in the "
            f"thread ({outcome}); choose another --example"
        )
    return message_page(payload, app=APP, locale=locale, width=width, cjk_font=cjk_font())


ALERT = ROOT / "tests" / "slack" / "alerts" / "sentry.json"


def alert_page(kb: Knowledge, locale: str, width: int) -> str:
    """A monitor's alert and errkb's answer in its thread: the reply errkb volunteers for the
    alert's text (an alert is never "asked")."""
    from bot.alerts import alert_text, source_app

    message = json.loads(ALERT.read_text(encoding="utf-8"))
    outcome, _records, payload = thread_reply(kb, alert_text(message), locale=locale, asked=False)
    if not payload:
        raise SystemExit(f"{ALERT.name}: errkb posts nothing for this alert ({outcome})")
    return thread_page(
        [(source_app(message), message), (APP, payload)],
        locale=locale,
        width=width,
        cjk_font=cjk_font(),
    )


def home_view(kb: Knowledge, locale: str) -> dict[str, Any] | None:
    """App Home as errkb publishes it for a maintainer (``scripts/starter_home.py``), or None
    while errkb has no App Home renderer."""
    if importlib.util.find_spec("bot.render.home") is None:
        return None
    from scripts.starter_home import home_view as maintainer_home

    return maintainer_home(kb, starter_replies(kb, locales=(locale,)), locale)


def home_page(kb: Knowledge, locale: str, width: int) -> str | None:
    view = home_view(kb, locale)
    return (
        None
        if view is None
        else view_page(view, app=APP, locale=locale, width=width, cjk_font=cjk_font())
    )


def pictures(kb: Knowledge, example: Path, width: int) -> list[Picture]:
    return [
        Picture("answer-en.png", lambda: answer_page(kb, example, "en", width)),
        Picture("answer-zh.png", lambda: answer_page(kb, example, "zh", width)),
        Picture("alert-en.png", lambda: alert_page(kb, "en", width)),
        Picture("alert-zh.png", lambda: alert_page(kb, "zh", width)),
        Picture("app-home.png", lambda: home_page(kb, "en", width), skipped=HOME_SKIPPED),
    ]


# -- drawing ----------------------------------------------------------------------


def find_chromium() -> str:
    named = os.environ.get("CHROMIUM")
    found = (
        shutil.which(named)
        if named
        else next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
    )
    if not found:
        raise NoChromium(
            (f"CHROMIUM={named} is not an executable" if named else "Chromium is not installed")
            + ": the pictures are screenshots by headless Chromium. On Debian or Ubuntu: "
            "sudo apt-get install chromium (or set CHROMIUM to a Chromium or Chrome binary)."
        )
    return found


def font_config(folder: Path) -> dict[str, str]:
    """The environment for Chromium: the machine's fonts plus the CJK font file, through
    fontconfig, so Chinese is drawn from the first paint (a web font may come too late)."""
    font = cjk_font()
    if font is None:
        return dict(os.environ)
    config = folder / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
        '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
        f"<dir>{escape(str(font.parent))}</dir>"
        f"<cachedir>{escape(str(folder / 'fontcache'))}</cachedir>"
        "</fontconfig>",
        encoding="utf-8",
    )
    return {**os.environ, "FONTCONFIG_FILE": str(config)}


def _chromium(chromium: str, page: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="errkb-chromium-") as profile:
        command = [chromium, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()]
        env = font_config(Path(profile))
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done


def page_height(chromium: str, html: str, width: int, folder: Path) -> int:
    """The page's height at ``width`` once its fonts are loaded (Chromium's ``--dump-dom``)."""
    probe = folder / "measure.html"
    probe.write_text(html.replace("</body>", _MEASURE + "</body>"), encoding="utf-8")
    done = _chromium(chromium, probe, f"--window-size={width},600", "--dump-dom")
    found = _HEIGHT.search(done.stdout)
    if found is None:
        raise RuntimeError("chromium did not report the page height")
    return min(int(found.group(1)), MAX_HEIGHT)


def screenshot(chromium: str, html: str, target: Path, width: int) -> tuple[int, int]:
    with tempfile.TemporaryDirectory(prefix="errkb-pictures-") as tmp:
        folder = Path(tmp)
        height = page_height(chromium, html, width, folder)
        page = folder / "page.html"
        page.write_text(html, encoding="utf-8")
        shot = folder / "shot.png"
        _chromium(chromium, page, f"--window-size={width},{height}", f"--screenshot={shot}")
        return optimise(shot, target)


def optimise(source: Path, target: Path) -> tuple[int, int]:
    """256 colours (text and flat fills need no more), PNG optimised; returns the size."""
    from PIL import Image

    with Image.open(source) as image:
        small = image.convert("RGB").quantize(
            colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        small.save(target, optimize=True)
        return image.size


def page_key(html: str) -> str:
    """What a picture was drawn from: its page, less the machine's font path."""
    return hashlib.sha256(html.replace(font_face(cjk_font()), "").encode()).hexdigest()


def read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def check(folder: Path) -> int:
    """0 when every picture in ``folder`` was drawn from the page errkb's code makes now."""
    manifest = read_manifest(folder)
    example = ROOT / "data" / "examples" / f"{manifest.get('example', DEFAULT_EXAMPLE)}.txt"
    drawn = manifest.get("pictures", {})
    stale = []
    for picture in pictures(knowledge(), example, int(manifest.get("width", WIDTH))):
        html = picture.page()
        if html is None:
            print(picture.skipped)
        elif not (folder / picture.name).is_file() or drawn.get(picture.name) != page_key(html):
            stale.append(picture.name)
    if stale:
        print(f"out of date: {', '.join(stale)}; redraw them with ./scripts/pictures")
        return 1
    print("the pictures show what errkb posts now")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--example",
        default=DEFAULT_EXAMPLE,
        help="starter example paste to answer (data/examples/NAME.txt)",
    )
    parser.add_argument(
        "--out", type=Path, default=DOCS, help="folder for the PNG files (default: docs/)"
    )
    parser.add_argument("--html", type=Path, help="also write the HTML pages to this folder")
    parser.add_argument(
        "--html-only",
        action="store_true",
        help="write the HTML pages (--html) and take no screenshot",
    )
    parser.add_argument("--width", type=int, default=WIDTH, help="picture width in pixels")
    parser.add_argument(
        "--check",
        action="store_true",
        help="no drawing: exit 1 if a picture in --out was drawn from another payload than today's",
    )
    args = parser.parse_args(argv)
    if args.check:
        return check(args.out)
    if args.html_only and args.html is None:
        parser.error("--html-only needs --html DIR")

    name = args.example.removesuffix(".txt")
    example = ROOT / "data" / "examples" / f"{name}.txt"
    if not example.is_file():
        parser.error(f"no example paste data/examples/{example.name}")
    chromium = None
    if not args.html_only:
        try:
            chromium = find_chromium()
        except NoChromium as missing:
            print(missing, file=sys.stderr)
            return 2
    drawn: dict[str, str] = {}
    for picture in pictures(knowledge(), example, args.width):
        html = picture.page()
        if html is None:
            print(picture.skipped)
            continue
        if args.html:
            args.html.mkdir(parents=True, exist_ok=True)
            page = args.html / picture.name.replace(".png", ".html")
            page.write_text(html, encoding="utf-8")
            print(f"{_shown(page)}: HTML page")
        if chromium is not None:
            target = args.out / picture.name
            width, height = screenshot(chromium, html, target, args.width)
            drawn[picture.name] = page_key(html)
            print(f"{_shown(target)}: {width}×{height} px, {target.stat().st_size / 1024:.0f} KiB")
    if drawn:
        manifest = {"example": name, "width": args.width, "pictures": drawn}
        (args.out / MANIFEST).write_text(
            json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
    return 0


def _shown(path: Path) -> str:
    full = path.resolve()
    return str(full.relative_to(ROOT) if full.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    raise SystemExit(main())
