"""``errkb digest --dry-run`` on the starter knowledge base lists its stale records."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from bot.store.db import Store
from tests.test_cli import run


def test_dry_run_on_the_starter_data_lists_its_stale_records(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "init")
    assert code == 0, err
    code, out, _ = run(capsys, "digest", "--dry-run", "--json", "--limit", "100")
    assert code == 0
    data = json.loads(out)
    today = date.fromisoformat(data["today"])
    assert today == datetime.now(UTC).date()
    assert data["stale"] >= 5
    for item in data["records"]:
        confirmed = date.fromisoformat(item["last_confirmed"])
        assert (today - confirmed).days > 180
        assert item["days_overdue"] == (today - confirmed).days - 180
    ranked = [item["score"] for item in data["records"]]
    assert ranked == sorted(ranked, reverse=True)
    code, out, _ = run(capsys, "digest", "--dry-run", "--lang", "zh", "--limit", "3")
    assert code == 0 and "条过期记录" in out and "已超期" in out


def test_digest_needs_exactly_one_mode(
    committed_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "digest")
    assert code == 2 and "--dry-run or --send" in err


def test_send_without_slack_settings_says_what_is_missing(
    committed_store: Store, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    code, _, err = run(capsys, "digest", "--send")
    assert code == 1 and "SLACK_BOT_TOKEN" in err
