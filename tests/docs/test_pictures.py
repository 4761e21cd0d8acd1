"""./scripts/pictures without a browser: a clear word when Chromium is missing; HTML pages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scripts import pictures


def test_missing_chromium_is_said_plainly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "no-such-chromium"))
    assert pictures.main(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no-such-chromium is not an executable" in err and "apt-get install chromium" in err
    assert not list(tmp_path.glob("*.png"))


@pytest.mark.slow
def test_the_pages_are_the_real_replies_in_both_languages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        pictures.main(
            ["--html", str(tmp_path), "--html-only", "--example", "pad-token-question-zh"]
        )
        == 0
    )
    out = capsys.readouterr().out
    en = (tmp_path / "answer-en.html").read_text(encoding="utf-8")
    zh = (tmp_path / "answer-zh.html").read_text(encoding="utf-8")
    assert "llm/tokenizer-missing-pad-token" in en and "llm/tokenizer-missing-pad-token" in zh
    assert 'lang="en"' in en and 'lang="zh-CN"' in zh
    assert re.search(r"[\u4e00-\u9fff]", zh.split("</style>")[1])  # the reply itself is in Chinese
    if pictures.home_view(pictures.knowledge(), "en") is None:
        assert "App Home skipped" in out
    else:
        assert (tmp_path / "app-home.html").is_file()


def test_an_unknown_example_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        pictures.main(["--html-only", "--html", "/nonexistent", "--example", "no-such-paste"])
    assert "no example paste data/examples/no-such-paste.txt" in capsys.readouterr().err


@pytest.mark.slow
def test_check_tells_when_a_picture_shows_an_older_payload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    example = pictures.ROOT / "data" / "examples" / "vllm-oom.txt"
    keys = {}
    for picture in pictures.pictures(pictures.knowledge(), example, pictures.WIDTH):
        page = picture.page()
        if page is not None:
            (tmp_path / picture.name).write_bytes(b"png")
            keys[picture.name] = pictures.page_key(page)
    manifest = {"example": "vllm-oom", "width": pictures.WIDTH, "pictures": keys}
    (tmp_path / pictures.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert pictures.main(["--check", "--out", str(tmp_path)]) == 0
    manifest["pictures"]["answer-zh.png"] = "drawn from another payload"
    (tmp_path / pictures.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert pictures.main(["--check", "--out", str(tmp_path)]) == 1
    assert "out of date: answer-zh.png" in capsys.readouterr().out


def test_the_readme_shows_the_pictures_in_docs() -> None:
    readme = (pictures.ROOT / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"\]\((docs/[^)]+\.png)\)", readme))
    assert {"docs/answer-en.png", "docs/answer-zh.png"} <= shown
    assert all((pictures.ROOT / path).is_file() for path in shown)
