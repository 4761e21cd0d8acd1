"""Matching benchmark: errkb's index against a naive loop over every record regex.

Usage: python benchmarks/bench_match.py [--quick]

Prints, in one run:
0. per-paste latency over distinct real pastes (every labelled paste of
   ``eval/*.jsonl`` and ``../shared/eval/dev.jsonl``) against the 2,522 records,
   in the CPU time of the matching thread (``time.thread_time``: what another
   process on a shared machine takes is not counted), against the targets
   (median ≤ 1 ms, p99 ≤ 5 ms). First comes first sight, the figure a person
   meets: right after the index is built, each paste triaged once with cold
   per-paste caches (the template and line-term caches cleared before it), so
   no paste profits from regex states or caches another run of it left. Only
   then the warm figure: three more rounds, each paste's fastest run;
1. per-paste latency for a one-line error, a 60-line traceback, a 300-line
   log and the dev pastes (``../shared/eval/dev.jsonl``): errkb's triage vs
   ``re.search`` of every record's regex over the first 10,000 characters
   (what deadends.dev does), with the ratio. The naive loop gets a time
   budget per paste shape so the benchmark always finishes;
2. hostile pastes (5 MB, binary, 100k lines, regex bombs, pastes holding
   thousands of known errors) against the 100 ms cap, first sight each;
3. the multi-pattern engines that could find candidate records, on the same
   regexes: build time, how many of the regexes each takes, and per-paste time
   on pastes it has not seen before (lazily built automata pay on new text);
4. for synthetic knowledge bases of 25k and 100k records (the real records
   varied), index build time, resident memory added and per-paste p99.

``--quick`` runs fewer repetitions and only the 25k knowledge base.
Needs the shared corpora beside the checkout (``../shared``).
"""

from __future__ import annotations

import gc
import json
import math
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ingest import load_records
from bot.match.eval import percentile
from bot.match.index import MatchIndex
from bot.records import Record

SHARED = ROOT.parent / "shared"
DEADENDS = SHARED / "corpora" / "deadends" / "deadends-canons.jsonl.gz"
DEV = SHARED / "eval" / "dev.jsonl"
NAIVE_BUDGET_S = 15.0


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def pastes(dev: list[str]) -> dict[str, list[str]]:
    frames = "".join(
        f'  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module_{i}.py", line '
        f"{100 + i}, in _call_impl\n"
        f"    return forward_call(*args, **kwargs)\n"
        for i in range(29)
    )
    traceback = (
        "Traceback (most recent call last):\n"
        + frames
        + (
            "torch.cuda.OutOfMemoryError: CUDA out of memory. "
            "Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total "
            "capacity; 20.1 GiB already allocated; 1.2 GiB "
            "free; 21.0 GiB reserved in total by PyTorch)"
        )
    )
    log = (
        "".join(
            f"2024-05-01 12:{i // 60:02d}:{i % 60:02d},123 INFO worker.py:88 step {i} "
            f"loss=0.{i:04d} lr=3e-4 tokens/s=1830\n"
            for i in range(299)
        )
        + "2024-05-01 12:05:00,001 ERROR engine.py:366 "
        "RuntimeError: NCCL error: unhandled system error\n"
    )
    return {
        "one-line": ["RuntimeError: CUDA error: device-side assert triggered"],
        "60-line traceback": [traceback],
        "300-line log": [log],
        "dev pastes": dev,
    }


def clear_caches() -> None:
    """Forget everything a previous paste left in the per-line caches, and its extraction."""
    from bot.match.extract import forget_extractions
    from bot.match.normalise import template
    from bot.match.rank import _line_terms

    template.cache_clear()
    _line_terms.cache_clear()
    forget_extractions()


def first_sight(index: MatchIndex, texts: list[str]) -> list[float]:
    """Thread CPU ms of each paste's one triage, per-paste caches cleared before it."""
    out = []
    for text in texts:
        clear_caches()
        start = time.thread_time()
        index.triage(text)
        out.append((time.thread_time() - start) * 1000)
    return out


def warm_best(index: MatchIndex, texts: list[str], rounds: int) -> list[float]:
    """Thread CPU ms of each paste's fastest triage over ``rounds`` more rounds (caches
    cleared before each, but regex states and memory already made by earlier runs)."""
    best = [math.inf] * len(texts)
    for _ in range(rounds):
        for i, text in enumerate(texts):
            clear_caches()
            start = time.thread_time()
            index.triage(text)
            best[i] = min(best[i], (time.thread_time() - start) * 1000)
    return best


def distinct_pastes() -> list[str]:
    texts = []
    for path in [*sorted((ROOT / "eval").glob("*.jsonl")), DEV]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    return list(dict.fromkeys(texts))


def time_errkb(index: MatchIndex, texts: list[str], repeat: int) -> list[float]:
    from bot.match.extract import forget_extractions

    out = []
    for _ in range(repeat):
        for text in texts:
            forget_extractions()  # a paste read again is a paste nobody sent twice here
            start = time.perf_counter()
            index.triage(text)
            out.append((time.perf_counter() - start) * 1000)
    return out


def time_naive(
    compiled: list[re.Pattern[str]],
    texts: list[str],
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[list[float], bool]:
    """ms of ``re.search`` of every regex over each text's first 10,000 characters (what
    deadends.dev does), until :data:`NAIVE_BUDGET_S` of wall time is spent (then True)."""
    out = []
    deadline = time.perf_counter() + NAIVE_BUDGET_S
    for text in texts:
        head = text[:10_000]
        start = clock()
        for pattern in compiled:
            pattern.search(head)
            if time.perf_counter() > deadline:
                return out + [(clock() - start) * 1000], True
        out.append((clock() - start) * 1000)
    return out, False


def _cold_ms(scan: Callable[[str], object], texts: list[str]) -> float:
    """Median time of one scan of each text, each seen for the first time."""
    out = []
    for text in texts:
        start = time.perf_counter()
        scan(text)
        out.append((time.perf_counter() - start) * 1000)
    return statistics.median(out)


def hostile(index: MatchIndex, records: list[Record]) -> None:
    """The slowest hostile paste against the 100 ms cap (each seen for the first time)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from match.test_hostile import HOSTILE, _bombs, every_known_error

    texts = {**HOSTILE, "regex bombs": "\n".join(_bombs(records))}
    for name, text in zip(
        ("every signature", "every root cause", "40 signatures a line"),
        every_known_error(records),
        strict=True,
    ):
        texts[name] = text
    print(f"\n{'hostile paste':24} {'size':>10} {'time':>10}   (cap 100 ms)")
    for name, text in texts.items():
        start = time.perf_counter()
        index.triage(text)
        took = (time.perf_counter() - start) * 1000
        print(f"{name:24} {len(text):>10,} {took:7.1f} ms{'   OVER' if took > 100 else ''}")


def engines(records: list[Record], dev: list[str]) -> None:
    """Candidate engines on the record regexes: build, coverage, per-paste time."""
    import ahocorasick
    import re2

    from bot.match.patterns import required_literals, split_alternatives

    options = re2.Options()
    options.case_sensitive = False
    options.max_mem = 256 << 20
    options.log_errors = False
    keys: set[str] = set()
    for record in records:
        for branch in split_alternatives(record.regex):
            required = required_literals(branch)
            if required:
                keys.update(k.lower() for k in required[0])
    # fresh pastes per engine: the dev pastes with a per-engine suffix, so no engine
    # benefits from states another built
    rows = []

    def fresh(tag: str) -> list[str]:
        return [f"{text}\n[{tag}] request id {i} at worker-{tag}-{i}" for i, text in enumerate(dev)]

    start = time.perf_counter()
    whole = re2.Set.SearchSet(options)
    taken = 0
    for record in records:
        try:
            whole.Add(record.regex)
            taken += 1
        except re2.error:
            pass
    whole.Compile()
    rows.append(
        (
            "RE2 Set, whole regexes",
            time.perf_counter() - start,
            taken,
            _cold_ms(lambda t: whole.Match(t), fresh("a")),
        )
    )
    start = time.perf_counter()
    literal = re2.Set.SearchSet(options)
    for key in keys:
        literal.Add(re2.escape(key))
    literal.Compile()
    rows.append(
        (
            "RE2 Set, required literals",
            time.perf_counter() - start,
            len(records),
            _cold_ms(lambda t: literal.Match(t), fresh("b")),
        )
    )
    start = time.perf_counter()
    automaton = ahocorasick.Automaton()
    for number, key in enumerate(keys):
        automaton.add_word(key, number)
    automaton.make_automaton()
    rows.append(
        (
            "Aho-Corasick, required literals (errkb)",
            time.perf_counter() - start,
            len(records),
            _cold_ms(lambda t: {k for _, k in automaton.iter(t.lower())}, fresh("c")),
        )
    )
    try:
        import hyperscan  # type: ignore[import-not-found]
    except ImportError:
        hyperscan = None
    if hyperscan is not None:
        start = time.perf_counter()
        database = hyperscan.Database()
        patterns = [r.regex.encode() for r in records]
        flags = [hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_SINGLEMATCH] * len(patterns)
        database.compile(expressions=patterns, ids=list(range(len(patterns))), flags=flags)
        rows.append(
            (
                "Hyperscan, whole regexes",
                time.perf_counter() - start,
                len(patterns),
                _cold_ms(lambda t: database.scan(t.encode()), fresh("d")),
            )
        )
    print(f"\n{'engine':42} {'build':>8} {'regexes':>8} {'new paste':>10}")
    for name, build, count, cold in rows:
        print(f"{name:42} {build:6.2f} s {count:>8,} {cold:7.3f} ms")
    if hyperscan is None:
        print("(Hyperscan: not installed here; pip install hyperscan to compare)")
    print("(literal engines find candidates only: each is then confirmed with its RE2 regex)")


def synthetic(records: list[Record], size: int) -> list[Record]:
    out: list[Record] = []
    copy = 0
    while len(out) < size:
        for record in records:
            if len(out) >= size:
                break
            tag = f"v{copy}x{len(out)}"
            out.append(
                record.model_copy(
                    update={
                        "id": f"{record.id}-{tag}",
                        "signature": f"{record.signature} [{tag}]",
                        "regex": f"{record.regex}|{re.escape(tag)}-synthetic",
                    }
                )
            )
        copy += 1
    return out


def main(quick: bool) -> None:
    if not DEADENDS.exists() or not DEV.exists():
        sys.exit(
            "needs ../shared/corpora/deadends and ../shared/eval/dev.jsonl beside the checkout"
        )
    records = load_records([DEADENDS])
    dev = [
        json.loads(line)["text"]
        for line in DEV.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    start = time.perf_counter()
    index = MatchIndex.build(records)
    print(f"{len(records)} records: errkb index built in {time.perf_counter() - start:.2f} s")
    texts = distinct_pastes()
    first = first_sight(index, texts)  # before anything else has matched a paste
    best = warm_best(index, texts, 3)
    print(
        f"\n{len(texts)} distinct real pastes, thread CPU per paste (targets: median ≤ 1 ms, "
        "p99 ≤ 5 ms)"
    )
    for name, times in (
        ("first sight, each paste once, cold caches", first),
        ("warm: best of 3 later runs", best),
    ):
        median = statistics.median(times)
        p99 = percentile(times, 99)
        verdict = "ok" if median <= 1.0 and p99 <= 5.0 else "OVER"
        print(
            f"  {name:42} median {median:6.3f} ms  p90 {percentile(times, 90):6.3f} ms  "
            f"p99 {p99:6.3f} ms  max {max(times):6.2f} ms  {verdict}"
        )
    compiled = [re.compile(r.regex, re.IGNORECASE) for r in records]
    naive, capped = time_naive(compiled, texts, clock=time.thread_time)
    print(
        f"  {'deadends.dev lookup, each paste once':42} median {statistics.median(naive):6.1f} ms  "
        f"p90 {percentile(naive, 90):6.1f} ms  p99 {percentile(naive, 99):6.1f} ms  "
        f"over {len(naive)} pastes{' (capped)' if capped else ''}"
    )
    repeat = 3 if quick else 10
    print(
        f"\n{'paste':20} {'errkb median':>13} {'errkb p99':>10} {'naive median':>13} {'ratio':>8}"
    )
    for name, texts in pastes(dev).items():
        index.triage(texts[0])  # first use of each shape: not start-up, but keep it out of p99
        ours = time_errkb(index, texts, repeat)
        naive, capped = time_naive(compiled, texts)
        ours_median = statistics.median(ours)
        naive_median = statistics.median(naive)
        flag = " (capped)" if capped else ""
        print(
            f"{name:20} {ours_median:10.3f} ms {percentile(ours, 99):7.3f} ms "
            f"{naive_median:10.1f} ms {naive_median / ours_median:7.0f}x{flag}"
        )
    hostile(index, records)
    engines(records, dev)
    print(f"\n{'knowledge base':15} {'build':>8} {'memory':>10} {'p99/paste':>10} {'median':>9}")
    for size in (25_000,) if quick else (25_000, 100_000):
        kb = synthetic(records, size)
        gc.collect()
        before = rss_mb()
        start = time.perf_counter()
        big = MatchIndex.build(kb)
        build = time.perf_counter() - start
        memory = rss_mb() - before
        times = time_errkb(big, dev, 1) + time_errkb(big, dev, 2 if quick else 4)
        print(
            f"{size:>12,}    {build:6.1f} s {memory:7.0f} MB {percentile(times, 99):7.2f} ms "
            f"{statistics.median(times):6.2f} ms"
        )
        del big, kb
        gc.collect()


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
