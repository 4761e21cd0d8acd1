"""The miss classes a log's shape causes, each as a class, on real pastes from public issues.

The pastes are in ``log_shapes.json``, each quoted (shortened) from the public issues it
names. The ranking tests use small hand-made records, one for the specific error and
one for what wraps or follows it, so what they check is which of the two the paste's
shape puts first.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.match.extract import extract
from bot.match.index import MatchIndex
from bot.match.logshape import is_wrapper, learn_prefix

from .conftest import make

EVAL = Path(__file__).resolve().parents[2] / "eval"

PASTES_FILE = Path(__file__).with_name("log_shapes.json")
#: Real pastes, shortened, each with the public issues it is quoted from ("sources").
SHAPED = json.loads(PASTES_FILE.read_text(encoding="utf-8"))
GRADLE = SHAPED["gradle"]["text"]
PIP = SHAPED["pip"]["text"]  # the retries of one issue, what pip said after them in another
KUBECTL = SHAPED["kubectl"]["text"]
SPRING = SHAPED["spring"]["text"]
TRACEBACK = SHAPED["traceback"]["text"]  # the end of the traceback


def by_role(paste: str, role: str) -> list[str]:
    return [line.text for line in extract(paste).lines if line.role == role]


def real_pastes() -> list[str]:
    """Every committed labelled paste that has an error line, a few lines long."""
    out = []
    for path in sorted(EVAL.glob("*.jsonl")):
        for row in path.read_text(encoding="utf-8").splitlines():
            text = json.loads(row)["text"]
            if 3 <= text.count("\n") <= 40 and extract(text).errors:
                out.append(text)
    return out


PASTES = real_pastes()
# The shapes tools give a log's lines, written with numbers and names the test draws:
# BuildKit, Cloud Build, compose, journald, a quoted log, a timestamped one.
SHAPES = (
    "#{n} {n}.{m} ",
    'Step #{n} - "{word}": ',
    "{word}-{n}  | ",
    "{word}{n} {word}[{m}]: ",
    "| ",
    "[{n}:{m}:{n}.{m}] ",
)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(PASTES),
    st.sampled_from(SHAPES),
    st.lists(st.integers(0, 99999), min_size=200, max_size=200),
    st.sampled_from(["build", "web", "api", "sshd", "worker"]),
)
def test_a_repeated_line_prefix_is_learnt_from_the_paste(
    paste: str, shape: str, numbers: list[int], word: str
) -> None:
    lines = paste.split("\n")
    prefixed = "\n".join(
        shape.format(n=numbers[2 * i % 200], m=numbers[(2 * i + 1) % 200], word=word) + line
        for i, line in enumerate(lines)
    )
    plain = [(e.line_no, e.text) for e in extract(paste).errors]
    assert [(e.line_no, e.text) for e in extract(prefixed).errors] == plain


def test_a_prefix_is_never_the_lines_own_words() -> None:
    assert learn_prefix(["error[E0425]: a", "error[E0425]: b", "error[E0425]: c"]) is None
    assert learn_prefix(["[ERROR] a", "[ERROR] b", "[ERROR] c"]) is None
    assert learn_prefix(["npm ERR! a", "npm ERR! b", "npm ERR! c"]) is None
    cloud = ['Step #2 - "build": npm ERR! a', 'Step #2 - "build": npm ERR! b'] * 2
    prefix = learn_prefix(cloud)
    assert prefix is not None and prefix.match(cloud[0])
    assert cloud[0][prefix.match(cloud[0]).end() :] == "npm ERR! a"  # type: ignore[union-attr]


def test_words_most_lines_share_after_a_prefix_stay_the_lines_own() -> None:
    """apt begins most of its lines with ``E: ``: under BuildKit's ``#3 0.52 `` those words
    are still apt's, so the log reads as it does without BuildKit around it."""
    apt = [
        "Reading package lists...",
        "Package docker-ce is not available, but is referred to by another package.",
        "E: Package 'docker-ce' has no installation candidate",
        "E: Unable to locate package docker-ce-cli",
        "E: Unable to locate package containerd.io",
    ]
    plain = [(e.line_no, e.text) for e in extract("\n".join(apt)).errors]
    for shape in ("#3 0.{n} ", "| ", "web-1  | "):
        lines = [shape.format(n=i) + line for i, line in enumerate(apt)]
        assert [(e.line_no, e.text) for e in extract("\n".join(lines)).errors] == plain, shape
        prefix = learn_prefix(lines)
        assert prefix is not None
        assert [line[prefix.match(line).end() :] for line in lines] == apt  # type: ignore[union-attr]


def test_wrapper_lines_give_way_to_the_error_they_wrap() -> None:
    assert by_role(GRADLE, "wrapper") == [
        "Task :castleio_react-native-castle:compileReleaseKotlin FAILED",
        "FAILURE: Build failed with an exception.",
        "Execution failed for task ':castleio_react-native-castle:compileReleaseKotlin'.",
    ]
    assert [e.text for e in extract(GRADLE).errors] == [
        "e: /home/phelipe/Documentos/temp/TestCastle/node_modules/@castleio/react-native-castle/"
        "android/src/main/java/com/reactnativecastle/CastleModule.kt: (26, 35): Unresolved "
        "reference: VERSION_NAME"
    ]
    for line in (
        "make: *** [Makefile:12: all] Error 1",
        "Error: Process completed with exit code 1.",
        "code 1",
        "thread 'main' panicked at src/main.rs:4:5:",
        "error: could not compile `openssl-sys` (build script) due to 1 previous error",
        'ERROR: process "/bin/sh -c go mod download" did not complete successfully: exit code: 1',
        "error: failed to push some refs to 'https://git.heroku.com/app.git'",
    ):
        assert is_wrapper(line), line
    assert not is_wrapper("thread 'main' panicked at 'index out of bounds', src/main.rs:4:5")
    # git says why a push failed first, then that it failed: the reason is the error
    push = "error: src refspec main does not match any\nerror: failed to push some refs to 'origin'"
    assert [e.text for e in extract(push).errors] == ["error: src refspec main does not match any"]


WRAPPER_RECORDS = [
    make(
        "gradle/build-failed/any",
        "FAILURE: Build failed with an exception.",
        r"FAILURE: Build failed with an exception",
        "java",
    ),
    make(
        "kotlin/unresolved-reference/kotlin1",
        "e: Unresolved reference: NAME",
        r"Unresolved reference",
        "java",
    ),
]


def test_the_wrapped_error_ranks_first_and_a_wrapper_answers_only_alone() -> None:
    index = MatchIndex.build(WRAPPER_RECORDS)
    result = index.triage(GRADLE)
    assert result.best is not None
    assert result.best.record_id == "kotlin/unresolved-reference/kotlin1"
    wrapper = next(m for m in result.matches if m.record_id == "gradle/build-failed/any")
    assert wrapper.band != "high"
    alone = index.triage("FAILURE: Build failed with an exception.\n\n* What went wrong:\n")
    assert alone.best is not None and alone.best.record_id == "gradle/build-failed/any"


def test_a_retried_failure_is_the_cause_of_what_fails_after_it() -> None:
    roots = [line.text for line in extract(PIP).lines if line.root]
    assert len(roots) == 1 and "ProxyError('Cannot connect to proxy.'" in roots[0]
    index = MatchIndex.build(
        [
            make(
                "python/pip-proxy-error/pip20",
                "ProxyError('Cannot connect to proxy.')",
                r"ProxyError\('Cannot connect to proxy",
                "python",
            ),
            make(
                "python/pip-no-matching-distribution/pip20",
                "ERROR: No matching distribution found for PACKAGE",
                r"No matching distribution found for",
                "python",
            ),
        ]
    )
    result = index.triage(PIP)
    assert result.best is not None
    assert result.best.record_id == "python/pip-proxy-error/pip20"


def test_structured_fields_are_error_evidence() -> None:
    assert by_role(KUBECTL, "exception") == ["Reason: OOMKilled; Exit Code: 137"]
    assert "Started:      Fri, 15 Sep 2023 09:56:14 +0200" in by_role(KUBECTL, "context")
    index = MatchIndex.build(
        [
            make(
                "kubernetes/oomkilled/k8s1",
                "OOMKilled: container exceeded its memory limit (exit code 137)",
                r"OOMKilled",
                "kubernetes",
            )
        ]
    )
    alone = extract("Reason:       OOMKilled")
    result = index.triage(KUBECTL)
    assert result.best is not None and result.best.record_id == "kubernetes/oomkilled/k8s1"
    assert result.answered
    assert alone.errors  # one field alone is still read as an error


def test_a_report_heading_says_where_the_error_is_and_its_advice_is_prose() -> None:
    assert by_role(SPRING, "exception") == [
        "Web server failed to start. Port 8080 was already in use."
    ]
    assert "APPLICATION FAILED TO START" in by_role(SPRING, "wrapper")
    assert by_role(SPRING, "prose")[-1].startswith("Identify and stop the process")
    index = MatchIndex.build(
        [
            make(
                "java/spring-port-in-use/boot2",
                "Web server failed to start. Port 8080 was already in use.",
                r"Port \d+ was already in use",
                "java",
            ),
            make(
                "java/spring-application-failed/boot2",
                "APPLICATION FAILED TO START",
                r"APPLICATION FAILED TO START",
                "java",
            ),
        ]
    )
    result = index.triage(SPRING)
    assert result.best is not None and result.best.record_id == "java/spring-port-in-use/boot2"
    assert result.answered


def test_a_start_up_banner_gives_way_to_the_traceback_after_it() -> None:
    # the notice is written for this test, in the shape start-up checks print
    banner = "WARNING: Python 3.13 is not supported yet; please upgrade bitsandbytes.\n"
    assert by_role(banner + TRACEBACK, "banner") == [banner.strip()]
    assert by_role(banner, "error") == [banner.strip()]  # alone, it is what the paste says
    cause = "Could not load bitsandbytes native library: libbitsandbytes_cpu.so: cannot open\n"
    assert by_role(cause + TRACEBACK, "banner") == []  # a failure before a traceback stays
    index = MatchIndex.build(
        [
            make(
                "python/unsupported-version/py3",
                "Python version is not supported",
                r"Python \S+ is not supported",
                "python",
            ),
            make(
                "python/cannot-open-shared-object/py3",
                "OSError: cannot open shared object file: No such file or directory",
                r"cannot open shared object file",
                "python",
            ),
        ]
    )
    result = index.triage(banner + TRACEBACK)
    assert result.best is not None
    assert result.best.record_id == "python/cannot-open-shared-object/py3"


def test_a_log_inside_another_tools_log_reads_as_it_does_alone() -> None:
    """Terraform's ``│ `` box inside a build log's ``#N T `` prefix: both are stripped, and
    a line that was only the outer prefix is an empty line again, as it is in the paste
    alone (the shape hypothesis met first, in the Terraform pastes of the committed sets)."""
    boxed = [p for p in PASTES if "\n│ Error:" in p]
    assert boxed, "the committed sets hold Terraform's boxed errors"
    for terraform in boxed:
        lines = terraform.split("\n")
        nested = "\n".join(f"#7 {i}.{i * 3} " + line for i, line in enumerate(lines))
        alone = [(e.line_no, e.text) for e in extract(terraform).errors]
        assert [(e.line_no, e.text) for e in extract(nested).errors] == alone
    stripped = [p for p in boxed if not extract(p).errors[0].text.startswith("│")]
    assert stripped, "some are long enough that the box is learnt as their prefix"


def _paste_with(words: str) -> str:
    """The committed paste that holds ``words``, so a test reads a real log's layout."""
    return next(text for text in PASTES if words in text)


def test_a_lines_own_indentation_ends_the_prefix_put_in_front_of_it() -> None:
    """Under a writer's prefix, the lines the log itself indented (``kubectl get events``'
    tab-separated columns) keep their indentation and their words: only the writer's
    prefix is stripped, and the columns are not mistaken for more of it."""
    events = _paste_with("FailedScheduling after upgrade")
    plain = [(e.line_no, e.text) for e in extract(events).errors]
    assert any(text.startswith("2h") for _, text in plain)  # the columns are the line's own
    for shape in ("| ", 'Step #4 - "deploy": ', "#7 0.{n} ", "api-1  | "):
        lines = [shape.format(n=i) + line for i, line in enumerate(events.split("\n"))]
        assert [(e.line_no, e.text) for e in extract("\n".join(lines)).errors] == plain, shape
        prefix = learn_prefix(lines)
        assert prefix is not None
        assert [line[prefix.match(line).end() :] for line in lines] == events.split("\n")  # type: ignore[union-attr]


def test_a_prefix_padded_to_a_column_is_stripped_to_that_column() -> None:
    """foreman pads each process's name to one column (``web.1            | ``); under
    another writer's prefix the padding is still the prefix's, not an indentation."""
    foreman = _paste_with("Restarting with inotify reloader")
    plain = [(e.line_no, e.text) for e in extract(foreman).errors]
    assert plain
    lines = ['Step #3 - "web": ' + line for line in foreman.split("\n")]
    assert [(e.line_no, e.text) for e in extract("\n".join(lines)).errors] == plain
