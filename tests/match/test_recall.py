"""Finding the right record: every identity field, Chinese text, chained roots, services,
variants, learned choices and the two operating points, on small hand-made records."""

from __future__ import annotations

import gc

from bot.match import features as F
from bot.match.extract import extract
from bot.match.index import MatchIndex
from bot.match.info import RecordInfo, variant_key
from bot.match.similarity import record_terms

from .conftest import SMALL, make

OOM = make(
    "llm/oom",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    r"CUDA out of memory",
    "pytorch",
    root_cause="The GPU has no memory left for the tensor.",
    root_cause_zh="GPU 显存不足，无法为张量分配内存。",
)
PAD = make(
    "llm/pad",
    "ValueError: special tokens not properly configured",
    r"special tokens.*configured",
    "huggingface",
    root_cause="The tokenizer has no pad_token; padding a batch needs one.",
    root_cause_zh="分词器没有填充标记，批量填充需要它。",
    tags=["tokenizer", "padding"],
)
CODE = make(
    "db/deadlock",
    "ERROR: deadlock detected",
    r"deadlock detected",
    "database",
    error_code="40P01",
    aliases=["could not serialize access due to concurrent update"],
)
PG = make(
    "database/connection-refused/pg16-linux",
    "psycopg2.OperationalError: could not connect to server: Connection refused",
    r"could not connect to server|Connection refused",
    "database",
)
TCP = make(
    "networking/connection-refused/tcp-linux",
    "Connection refused (ECONNREFUSED)",
    r"Connection refused|ECONNREFUSED",
    "networking",
)
REDIS = make(
    "redis/connection-refused/redis7-linux",
    "Error: Could not connect to Redis at 127.0.0.1:6379: Connection refused",
    r"Could not connect to Redis|Connection refused",
    "redis",
)


def index_of(*records: object) -> MatchIndex:
    return MatchIndex.build([*SMALL, *records])  # type: ignore[list-item]


def test_search_finds_chinese_words_in_any_translated_field() -> None:
    index = index_of(OOM, PAD, CODE)
    assert index.search("为张量分配内存")[0][0] == "llm/oom"  # only in root_cause_zh
    assert {rid for rid, _ in index.search("显存不足")[:2]} == {"llm/oom", "python/cuda-oom/torch2"}
    assert index.search("填充")[0][0] == "llm/pad"  # a two-character word inside a sentence
    assert index.search("40P01")[0][0] == "db/deadlock"  # the error code
    assert index.search("serialize access")[0][0] == "db/deadlock"  # an alias
    assert index.search("padding tokenizer")[0][0] == "llm/pad"  # tags and root cause


def test_a_paste_worded_like_the_root_cause_finds_its_record() -> None:
    """The pad_token error as the library words it shares nothing with the record's
    signature but names what its root cause describes."""
    index = index_of(PAD)
    paste = (
        "ValueError: Asking to pad but the tokenizer does not have a padding token. Please select "
        "a token to use as `pad_token` (tokenizer.pad_token = tokenizer.eos_token e.g.)"
    )
    ids = [m.record_id for m in index.triage(paste).matches]
    assert "llm/pad" in ids[:3]
    assert dict(index.triage(paste).matches[ids.index("llm/pad")].features)["context"] > 0


def test_error_codes_and_short_forms_meet_the_words_records_are_written_in() -> None:
    from bot.match.normalise import terms

    assert {"certificate", "ssl"} <= set(terms("x509: certificate signed by unknown authority"))
    assert {"connection", "refused"} <= set(terms("connect ECONNREFUSED 127.0.0.1:5432"))
    assert {"segmentation", "fault"} <= set(terms("Fatal Python error: SIGSEGV"))
    cert = make(
        "networking/ssl-certificate-unknown-authority/any",
        "SSL certificate problem: unable to get local issuer certificate",
        r"unable to get local issuer certificate",
        "networking",
    )
    found = index_of(cert).search("x509 unknown authority")
    assert found and found[0][0] == cert.id


def test_an_exception_only_python_raises_marks_a_python_paste() -> None:
    line = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file"
    assert extract(line).errors[0].kind == "python"
    assert extract("TypeError: Cannot read properties of undefined").errors[0].kind != "python"


def test_chained_traceback_marks_the_root_error() -> None:
    paste = (
        'Traceback (most recent call last):\n  File "conn.py", line 9, in connect\n'
        "ConnectionRefusedError: [Errno 111] Connection refused\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
        "RuntimeError: could not start the worker"
    )
    roots = [line.text for line in extract(paste).lines if line.root]
    assert roots == ["ConnectionRefusedError: [Errno 111] Connection refused"]
    best = index_of(TCP).triage(paste).best
    assert best is not None and best.record_id == "networking/connection-refused/tcp-linux"
    assert dict(best.features)["root"] == 1.0


def test_the_service_a_paste_talks_to_names_the_record() -> None:
    """Connection refused raised by a database's client on its port is that database's error."""
    index = index_of(PG, TCP, REDIS)
    postgres = (
        "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "
        '"localhost" '
        "(127.0.0.1), port 5432 failed: Connection refused"
    )
    redis = (
        '  File "/usr/lib/python3/site-packages/redis/connection.py", line 563, in connect\n'
        "ConnectionRefusedError: [Errno 111] Connection refused"
    )
    first = index.triage(postgres).matches
    assert first[0].record_id == "database/connection-refused/pg16-linux"
    assert dict(first[0].features)["service"] == 1.0
    second = {m.record_id: dict(m.features) for m in index.triage(redis).matches}
    assert second["redis/connection-refused/redis7-linux"]["service"] == 1.0
    assert second["database/connection-refused/pg16-linux"]["service"] == 0.0


def test_variants_fold_into_one_answer_chosen_by_the_paste_os() -> None:
    linux = make(
        "node/eaddrinuse-port/node20-linux",
        "Error: listen EADDRINUSE: address already in use :::3000",
        "EADDRINUSE|address already in use",
        "node",
    )
    macos = make(
        "node/eaddrinuse-port/node20-macos",
        "Error: listen EADDRINUSE: address already in use :::3000",
        "EADDRINUSE|address already in use",
        "node",
    )
    others = [r for r in SMALL if r.domain != "node"]
    index = MatchIndex.build([linux, macos, *others])
    assert index.variant_groups() == [
        ["node/eaddrinuse-port/node20-linux", "node/eaddrinuse-port/node20-macos"]
    ]
    error = (
        "Error: listen EADDRINUSE: address already in use :::5000\n    at "
        "Server.setupListenHandle (node:net:1817:16)"
    )
    for home, chosen, other in (
        ("/Users/ana/app", "macos", "linux"),
        ("/home/ana/app", "linux", "macos"),
    ):
        triage = index.triage(f"{error}\n    at Object.<anonymous> ({home}/index.js:41:5)")
        assert triage.best is not None and triage.best.record_id.endswith(chosen)
        assert triage.best.variants == (f"node/eaddrinuse-port/node20-{other}",)
        assert [m.record_id for m in triage.matches].count(
            f"node/eaddrinuse-port/node20-{other}"
        ) == 0


def test_one_message_in_two_domains_is_one_error_and_no_less_sure() -> None:
    """An imported corpus holds ``CUDA out of memory`` under ``cuda/`` and ``pytorch/``:
    one answer, the other named as its variant, and as sure as either record alone."""
    cuda = make(
        "cuda/torch-cuda-oom-new/torch2-a100",
        "torch.cuda.OutOfMemoryError: CUDA out of memory",
        r"torch\.cuda\.OutOfMemoryError|CUDA out of memory",
        "cuda",
    )
    pytorch = make(
        "pytorch/cuda-out-of-memory/pytorch2-linux",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        r"CUDA out of memory|OutOfMemoryError.*CUDA",
        "pytorch",
    )
    others = [r for r in SMALL if "out of memory" not in r.signature]
    paste = (
        'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n'
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB "
        "(GPU 0; 23.65 GiB total capacity)"
    )
    both = MatchIndex.build([cuda, pytorch, *others])
    assert both.variant_groups() == [[cuda.id, pytorch.id]]
    best = both.triage(paste).best
    assert best is not None and {best.record_id, *best.variants} == {cuda.id, pytorch.id}
    assert [m.record_id for m in both.triage(paste).matches].count(best.variants[0]) == 0
    alone = MatchIndex.build([pytorch, *others]).triage(paste).best
    assert alone is not None and best.score >= alone.score - 0.01


def test_a_short_or_quoting_message_does_not_join_domains() -> None:
    """``Permission denied`` is many errors, and ``module 'x' has no attribute 'y'`` is
    told apart by the names the template masks: neither groups records of two domains."""
    records = [
        make(
            "ssh/denied/openssh9-linux",
            "Permission denied (publickey).",
            "Permission denied",
            "ssh",
        ),
        make("docker/denied/docker27-linux", "Permission denied", "Permission denied", "docker"),
        make(
            "python/no-attribute/py311-linux",
            "AttributeError: module 'numpy' has no attribute 'float'",
            "has no attribute",
            "python",
        ),
        make(
            "tensorflow/no-session/tf2-linux",
            "AttributeError: module 'tensorflow' has no attribute 'Session'",
            "has no attribute 'Session'",
            "tensorflow",
        ),
    ]
    assert MatchIndex.build(records).variant_groups() == []


def test_a_learned_choice_wins_and_none_declines() -> None:
    index = index_of(TCP, REDIS)
    paste = "ConnectionRefusedError: [Errno 111] Connection refused"
    plain = index.triage(paste)
    assert (
        plain.best is not None and plain.best.record_id == "networking/connection-refused/tcp-linux"
    )
    key = extract(paste).errors[0].template
    taught = index.triage(paste, learned={key: "redis/connection-refused/redis7-linux"})
    assert (
        taught.best is not None and taught.best.record_id == "redis/connection-refused/redis7-linux"
    )
    assert dict(taught.best.features)["learned"] == 1.0
    assert taught.volunteer and taught.answered
    declined = index.triage(paste, learned={key: None})
    assert not declined.answered and not declined.volunteer
    unknown = index.triage(paste, learned={key: "no/such/record"})  # ignored
    assert unknown.best is not None and unknown.best.record_id == plain.best.record_id
    other = index.triage(paste, learned={"some other error template": None})
    assert other.answered == plain.answered


def test_operating_points_are_bands() -> None:
    index = index_of()
    strong = index.triage(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0)"
    )
    assert strong.best is not None
    assert strong.volunteer == (strong.best.score >= F.VOLUNTEER)
    assert strong.answered == (strong.best.score >= F.ASK)
    assert F.band(F.VOLUNTEER) == "high" and F.band(F.ASK) == "medium"
    assert F.band(F.ASK - 1e-6) == "low"
    assert 0.0 < F.ASK <= F.VOLUNTEER < 1.0


def test_every_feature_is_named_documented_and_signed() -> None:
    names = [f.name for f in F.REGISTRY]
    assert len(names) == len(set(names)) and "cover" not in names
    for f in F.REGISTRY:
        assert f.doc, f.name
        assert f.sign in (-1, 0, 1)
        assert f.weight * f.sign >= 0, f"{f.name} weight {f.weight} against its sign"


def test_per_record_work_depends_on_that_record_alone() -> None:
    """What an update could reuse for an unchanged record comes out the same whatever
    the other records are."""
    alone = MatchIndex.build([OOM])
    crowded = index_of(OOM, PAD, CODE)
    assert RecordInfo.of(OOM) == alone.info[0] == crowded.info[crowded.records.index(OOM)]
    assert record_terms(OOM) == record_terms(OOM.model_copy())
    assert variant_key(OOM) == variant_key(OOM.model_copy())


def test_building_an_index_leaves_the_garbage_collector_alone() -> None:
    """Building freezes nothing. Objects frozen earlier in the process (a served app's start-up
    in another test) may be freed meanwhile, so the count may drop, never grow."""
    frozen = gc.get_freeze_count()
    MatchIndex.build(SMALL)
    assert gc.get_freeze_count() <= frozen


def test_graph_check_lists_variant_groups() -> None:
    from graph.build import build_graph
    from graph.check import check_graph

    linux = make(
        "pip/externally-managed/pip23-linux",
        "error: externally-managed-environment",
        "externally-managed-environment",
        "pip",
    )
    newer = make(
        "pip/externally-managed/pip24-linux",
        "error: externally-managed-environment",
        "externally-managed-environment",
        "pip",
    )
    report = check_graph(build_graph([linux, newer, *SMALL]))
    assert report.variants == (
        ("pip/externally-managed/pip23-linux", "pip/externally-managed/pip24-linux"),
    )
    assert [list(g) for g in report.to_dict()["variants"]] == [list(report.variants[0])]
