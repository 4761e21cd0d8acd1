"""The starter knowledge base under data/: records, transition graph and example pastes.

Pure data checks: no database, no Slack. Every record must load through
:class:`bot.records.Record`, keep the seed example's key order, read wholly in
Chinese (every text a user reads, with commands and code left as they are),
and have a regex that finds its own signature under both Python ``re`` and
google-re2. The graph must be consistent: every link target exists,
``leads_to``/``preceded_by`` mirror each other, confusion pairs are symmetric.
"""

from __future__ import annotations

import json
import pathlib
import re
from datetime import date, timedelta
from typing import Any

import pytest
import re2

from bot.i18n.coverage import coverage
from bot.records import TRANSLATION_KEY, Record, source_texts, translated_texts
from tests.i18n.prose import english_words

DATA = pathlib.Path(__file__).parent.parent / "data"
EXAMPLES = DATA / "examples"
TODAY = date(2026, 11, 29)
STALE_AFTER = timedelta(days=180)

SEED_ID = "llm/vllm-block-manager-out-of-memory"
SEED_JSON = r"""{
  "id": "llm/vllm-block-manager-out-of-memory",
  "signature": "RuntimeError: OutOfMemoryError: Unable to allocate memory for KV cache block. Requested block size: 16, free blocks: 0",
  "signature_zh": "RuntimeError: 内存不足错误：无法为KV缓存块分配内存。请求块大小：16，空闲块：0",
  "regex": "RuntimeError: OutOfMemoryError: Unable to allocate memory for KV cache block",
  "domain": "llm", "category": "resource_error", "subcategory": null,
  "root_cause": "vLLM's PagedAttention block manager exhausts all available GPU memory for KV cache blocks due to insufficient gpu_memory_utilization setting or concurrent requests exceeding memory budget.",
  "root_cause_type": "generic",
  "root_cause_zh": "vLLM的PagedAttention块管理器因gpu_memory_utilization设置不足或并发请求超出内存预算，耗尽了KV缓存块的所有可用GPU内存。",
  "versions": [{"version": "vLLM 0.4.2", "introduced": null, "deprecated": null, "removed": null, "behavior_change": null, "status": "active"}],
  "os_specific": {},
  "dead_ends": [{"action": "", "why_fails": "Larger batch tokens consume more KV cache memory without freeing space; the error persists or worsens.", "fail_rate": 0.6, "condition": "", "sources": []}],
  "workarounds": [{"action": "Reduce gpu_memory_utilization to 0.85 or lower and set --max-num-seqs appropriately: ...", "success_rate": 0.9, "how": "...", "condition": "", "sources": []}],
  "workarounds_zh": ["将gpu_memory_utilization降低到0.85或更低，并适当设置--max-num-seqs：..."],
  "transition_graph": {"leads_to": [], "preceded_by": [], "frequently_confused_with": []},
  "official_doc_url": "https://vllm.readthedocs.io/en/latest/models/engine_args.html",
  "official_doc_section": null, "error_code": null,
  "verification_tier": "ai_generated", "confidence": 0.85, "fix_success_rate": 0.8,
  "resolvable": "true",
  "first_seen": "2024-01-10", "last_confirmed": "2024-06-01", "last_updated": "2024-06-01",
  "evidence_count": 1, "tags": [], "locale": "en", "aliases": []
}"""
SEED = json.loads(SEED_JSON)
SEED_KEYS = list(SEED)

EXPECTED_FILES = {
    "vllm",
    "cuda",
    "nccl",
    "pytorch",
    "transformers",
    "tokenizers",
    "accelerate",
    "deepspeed",
    "bitsandbytes",
    "flash_attn",
    "triton",
    "python",
    "node",
    "docker",
    "git",
    "postgres",
    "go",
    "java",
    "gradle",
    "maven",
    "rust",
    "terraform",
    "kubernetes",
    "helm",
    "docker_build",
    "docker_compose",
    "github_actions",
    "gitlab_ci",
    "postgres_more",
    "mysql",
    "redis",
    "mongodb",
    "python_runtime",
    "node_runtime",
    "git_more",
    "ssh",
    "nginx",
    "django",
    "flask",
    "fastapi",
}
TIERS = {"ai_generated", "community", "verified"}
#: The domains the starter base covers: the ML stack and the tools most teams meet first.
DOMAINS = {
    "llm",
    "ci",
    "docker",
    "git",
    "go",
    "java",
    "kubernetes",
    "mongodb",
    "mysql",
    "nginx",
    "node",
    "postgres",
    "python",
    "python-web",
    "redis",
    "rust",
    "ssh",
    "terraform",
}
HAN = re.compile(r"[\u4e00-\u9fff]")


def _load() -> dict[str, list[dict[str, Any]]]:
    files = {}
    for path in sorted(DATA.glob("*.json")):
        records = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(records, list), f"{path.name}: expected a JSON array"
        files[path.stem] = records
    return files


FILES = _load()
RAW = [record for records in FILES.values() for record in records]
BY_ID = {record["id"]: record for record in RAW}
IDS = sorted(BY_ID)


def _links(record: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return record["transition_graph"][kind]


def _confirmed(record: dict[str, Any]) -> date:
    return date.fromisoformat(record["last_confirmed"])


# -- the set as a whole --------------------------------------------------------


def test_one_file_per_library() -> None:
    assert EXPECTED_FILES <= set(FILES)
    for name, records in FILES.items():
        assert len(records) >= 2, f"{name}.json should hold several records"


def test_at_least_44_records_with_unique_ids() -> None:
    ids = [record["id"] for record in RAW]
    assert len(ids) >= 44
    assert len(ids) == len(set(ids)), "duplicate ids"


def _untranslated(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not TRANSLATION_KEY.match(k)}


def test_seed_example_is_present_verbatim() -> None:
    """The brief's seed, field for field; the starter copy only adds its missing translation."""
    seed = BY_ID[SEED_ID]
    assert _untranslated(seed) == _untranslated(SEED)
    assert {k: v for k, v in seed.items() if k in SEED} == SEED
    assert list(seed) == [
        *SEED_KEYS[: SEED_KEYS.index("dead_ends") + 1],
        "dead_ends_zh",
        *SEED_KEYS[SEED_KEYS.index("dead_ends") + 1 :],
    ]
    assert seed in FILES["vllm"]


def test_some_records_are_stale_and_some_fresh() -> None:
    stale = [r for r in RAW if TODAY - _confirmed(r) > STALE_AFTER]
    fresh = [r for r in RAW if TODAY - _confirmed(r) <= timedelta(days=60)]
    assert len(RAW) / 5 <= len(stale) <= len(RAW) / 2, "roughly a third should be stale"
    assert len(fresh) >= 5


# -- each record ---------------------------------------------------------------


@pytest.mark.parametrize("record_id", IDS)
def test_record_loads_and_round_trips(record_id: str) -> None:
    raw = BY_ID[record_id]
    record = Record.model_validate(raw)
    assert record.to_native() == raw


#: Where each translation is written: right after the field it translates.
TRANSLATION_AFTER = {"signature": "signature", "root_cause": "root_cause_type"}


@pytest.mark.parametrize("record_id", IDS)
def test_record_has_every_seed_field_in_order(record_id: str) -> None:
    keys = list(BY_ID[record_id])
    assert [k for k in keys if not TRANSLATION_KEY.match(k)] == [
        k for k in SEED_KEYS if not TRANSLATION_KEY.match(k)
    ]
    for key in keys:
        found = TRANSLATION_KEY.match(key)
        if found:
            field = found.group(1)
            assert keys[keys.index(key) - 1] == TRANSLATION_AFTER.get(field, field), key


@pytest.mark.parametrize("record_id", IDS)
def test_record_shape(record_id: str) -> None:
    raw = BY_ID[record_id]
    assert raw["id"].startswith(raw["domain"] + "/")
    assert raw["domain"] in DOMAINS
    assert raw["locale"] == "en"
    assert raw["verification_tier"] in TIERS
    assert raw["resolvable"] in {"true", "partial", "false"}
    assert 0 <= raw["confidence"] <= 1 and 0 <= raw["fix_success_rate"] <= 1
    assert 1 <= raw["evidence_count"] <= 40
    first, confirmed, updated = (
        date.fromisoformat(raw[k]) for k in ("first_seen", "last_confirmed", "last_updated")
    )
    assert first <= confirmed <= updated <= TODAY
    assert raw["versions"] and all(v["version"] for v in raw["versions"])
    assert raw["official_doc_url"].startswith("https://")
    assert 1 <= len(raw["dead_ends"]) <= 3
    if record_id != SEED_ID:
        assert 2 <= len(raw["workarounds"]) <= 4
        rates = [w["success_rate"] for w in raw["workarounds"]]
        assert rates == sorted(rates, reverse=True), "workarounds ranked by success_rate"
        assert all(w["how"] for w in raw["workarounds"])


def test_the_starter_knowledge_base_reads_wholly_in_chinese() -> None:
    [zh] = coverage([Record.model_validate(r) for r in RAW], ["zh"])
    assert (zh.records, zh.complete, zh.gaps) == (len(RAW), len(RAW), ())
    assert zh.texts > 800 and zh.translated == zh.texts


@pytest.mark.parametrize("record_id", IDS)
def test_record_is_translated_to_chinese(record_id: str) -> None:
    """Every translation is Chinese prose; one without Chinese is a command or code, and the
    English it stands for has no prose either. Error lines (signatures)
    and quoted messages may stay English."""
    record = Record.model_validate(BY_ID[record_id])
    assert record.localized("zh").fallbacks == ()
    sources = source_texts(record)
    for path, text in translated_texts(record.translations["zh"], record).items():
        if path == "signature":
            assert HAN.search(text)
            continue
        assert english_words(text) == [], (path, text)
        if not HAN.search(text):
            assert english_words(sources[path]) == [], (path, text)
    for workaround in BY_ID[record_id]["workarounds_zh"]:
        assert HAN.search(workaround["action"] if isinstance(workaround, dict) else workaround)


@pytest.mark.parametrize("record_id", IDS)
def test_regex_matches_its_own_signature(record_id: str) -> None:
    raw = BY_ID[record_id]
    assert re.search(raw["regex"], raw["signature"]), raw["regex"]
    assert re2.compile(raw["regex"]).search(raw["signature"]), raw["regex"]


# -- the transition graph ------------------------------------------------------


def test_every_link_target_exists_and_no_self_loops() -> None:
    for record in RAW:
        for kind in ("leads_to", "preceded_by", "frequently_confused_with"):
            for link in _links(record, kind):
                assert link["error_id"] in BY_ID, f"{record['id']} -> {link['error_id']}"
                assert link["error_id"] != record["id"], f"self-loop on {record['id']}"


def test_leads_to_and_preceded_by_mirror_each_other() -> None:
    forward = {
        (r["id"], link["error_id"]): (link["probability"], link["condition"])
        for r in RAW
        for link in _links(r, "leads_to")
    }
    backward = {
        (link["error_id"], r["id"]): (link["probability"], link["condition"])
        for r in RAW
        for link in _links(r, "preceded_by")
    }
    assert forward == backward
    assert len(forward) >= 34
    assert all(0 < probability <= 1 and condition for probability, condition in forward.values())


def test_confusion_pairs_are_symmetric() -> None:
    pairs = {
        (r["id"], link["error_id"]) for r in RAW for link in _links(r, "frequently_confused_with")
    }
    assert all((b, a) in pairs for a, b in pairs)
    assert len({frozenset(pair) for pair in pairs}) >= 12
    for record in RAW:
        for link in _links(record, "frequently_confused_with"):
            assert link["distinction"], f"{record['id']}: confusion link without a distinction"


def test_seed_stays_unlinked() -> None:
    for record in RAW:
        for kind in ("leads_to", "preceded_by", "frequently_confused_with"):
            assert all(link["error_id"] != SEED_ID for link in _links(record, kind))


# -- example pastes ------------------------------------------------------------

EXAMPLE_PATHS = sorted(EXAMPLES.glob("*.txt"))


def test_there_are_six_example_pastes() -> None:
    assert len(EXAMPLE_PATHS) >= 6


@pytest.mark.parametrize("path", EXAMPLE_PATHS, ids=lambda p: p.name)
def test_example_paste_is_matched_by_a_record(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    hits = [r["id"] for r in RAW if re.search(r["regex"], text)]
    assert hits, f"no record regex matches {path.name}"
