"""Held-out checks beyond dev.jsonl: pastes synthesised from records, and hand-written
errors from ecosystems the deadends corpus does not cover (errkb must decline them).

A synthetic paste wraps a record's signature the way people paste errors: in a
traceback of the record's ecosystem, in log noise with timestamps, or in a
question sentence; numbers, paths and quoted names in it are varied. A record
counts as found when it, or a record with the very same signature words,
comes top.
"""

from __future__ import annotations

import random
import re

from bot.match.normalise import template, tokens
from bot.records import Record

_NUMBER = re.compile(r"\b\d+\b")
_QUOTED = re.compile(r"'[^'\n]{1,60}'|\"[^\"\n]{1,60}\"|`[^`\n]{1,60}`")
_NAMES = (
    "alpha",
    "my_table",
    "worker-7",
    "svc.internal",
    "payments",
    "img_0042",
    "Foo",
    "data.csv",
)


def vary(signature: str, rng: random.Random) -> str:
    """The signature with its numbers and quoted names changed, as another machine says it."""
    text = _NUMBER.sub(lambda m: str(rng.randint(2, 9999)), signature)
    return _QUOTED.sub(lambda m: m.group(0)[0] + rng.choice(_NAMES) + m.group(0)[-1], text)


def _python(line: str, rng: random.Random) -> str:
    frames = "".join(
        f'  File "/srv/app/lib/python3.{rng.randint(8, 12)}/site-packages/pkg/mod{i}.py", line {rng.randint(10, 900)}, in call_{i}\n'
        f"    result = handler(request, **kwargs)\n"
        for i in range(rng.randint(2, 6))
    )
    return f"Traceback (most recent call last):\n{frames}{line}"


def _java(line: str, rng: random.Random) -> str:
    frames = "".join(
        f"\tat com.example.service.Worker{i}.run(Worker{i}.java:{rng.randint(10, 400)})\n"
        for i in range(rng.randint(2, 6))
    )
    return f'Exception in thread "main" {line}\n{frames}'


def _node(line: str, rng: random.Random) -> str:
    frames = "".join(
        f"    at handler{i} (/home/dev/app/src/server{i}.js:{rng.randint(1, 300)}:{rng.randint(1, 40)})\n"
        for i in range(rng.randint(2, 5))
    )
    return f"{line}\n{frames}"


def _log(line: str, rng: random.Random) -> str:
    stamp = f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)} 1{rng.randint(0, 9)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}"
    noise = [
        f"{stamp} INFO starting worker pid={rng.randint(100, 99999)}",
        f"{stamp} INFO loaded configuration from /etc/app/config.yaml",
        f"{stamp} DEBUG connection pool size={rng.randint(2, 64)}",
    ]
    rng.shuffle(noise)
    return "\n".join(
        [*noise[: rng.randint(1, 3)], f"{stamp} ERROR {line}", f"{stamp} INFO shutting down"]
    )


def _question(line: str, rng: random.Random) -> str:
    opener = rng.choice(
        [
            "Hi all, after upgrading I keep getting this:",
            "When I run the build on CI it fails with",
            "Any idea what causes this? It started this morning.",
            "我在运行的时候报错：",
        ]
    )
    closer = rng.choice(["How can I fix it?", "Thanks in advance!", "请问怎么解决？", ""])
    return f"{opener}\n```\n{line}\n```\n{closer}".strip()


_WRAPPERS = {"python": _python, "java": _java, "node": _node}
_FAMILY = {
    "python": ("python", "pytorch", "tensorflow", "huggingface", "pip", "cuda", "opencv", "llm"),
    "java": ("java", "android", "kafka", "elasticsearch"),
    "node": ("node", "react", "nextjs", "typescript"),
}


def synthesise(record: Record, rng: random.Random) -> str:
    """A realistic paste for ``record``: its signature, varied and wrapped."""
    line = vary(record.signature, rng)
    shapes = [_log, _question]
    for family, domains in _FAMILY.items():
        if record.domain in domains:
            shapes.append(_WRAPPERS[family])
    return rng.choice(shapes)(line, rng)


def same_signature(records: list[Record]) -> dict[str, set[str]]:
    """id → ids of records whose signature has exactly the same words (indistinguishable)."""
    groups: dict[frozenset[str], set[str]] = {}
    for r in records:
        groups.setdefault(frozenset(tokens(template(r.signature))), set()).add(r.id)
    return {r.id: groups[frozenset(tokens(template(r.signature)))] for r in records}


#: Real error messages from ecosystems the deadends corpus has no records for.
NEGATIVES = [
    # Erlang/OTP
    "** exception error: no match of right hand side value {error,enoent}\n     in function  app_config:load/1 (src/app_config.erl, line 42)",
    '=CRASH REPORT==== 3-Mar-2024::10:12:01.123456 ===\n  crasher:\n    initial call: gen_server:init_it/6\n    exit_reason: {badarg,[{ets,lookup,[sessions,<<"abc">>],[]}]}',
    # Haskell GHC
    "src/Main.hs:12:15: error:\n    • Couldn't match expected type ‘Int’ with actual type ‘[Char]’\n    • In the first argument of ‘succ’, namely ‘name’",
    "Main.hs:7:1: error:\n    Ambiguous occurrence ‘lookup’\n    It could refer to either ‘Prelude.lookup’ or ‘Data.Map.lookup’",
    # COBOL
    "PAYROLL.cbl:118: error: 'WS-TOTAL-HOURS' is not defined\nPAYROLL.cbl:131: error: PERFORM target 'CALC-OVERTIME' is not a paragraph",
    "IGZ0035S There was an unsuccessful OPEN or CLOSE of file EMPFILE in program PAYROLL at relative location X'03A4'. Neither FILE STATUS nor an ERROR declarative were specified. The status code was 35.",
    # Fortran
    "At line 27 of file solver.f90 (unit = 10, file = 'input.dat')\nFortran runtime error: End of file",
    "solver.f90:54:22:\n\n   54 |       call integrate(x, n, tol)\n      |                      1\nError: Type mismatch in argument 'tol' at (1); passed REAL(8) to REAL(4)",
    # LaTeX
    "! Undefined control sequence.\nl.42 \\includegraphicz\n                     [width=\\linewidth]{figure1.pdf}\n?",
    "! LaTeX Error: File `tikz-cd.sty' not found.\n\nType X to quit or <RETURN> to proceed,\nor enter new name. (Default extension: sty)",
    # Perl
    "Can't locate JSON/XS.pm in @INC (you may need to install the JSON::XS module) (@INC contains: /etc/perl /usr/local/lib/x86_64-linux-gnu/perl/5.34.0) at report.pl line 6.\nBEGIN failed--compilation aborted at report.pl line 6.",
    'Global symbol "$cofnig" requires explicit package name (did you forget to declare "my $cofnig"?) at deploy.pl line 31.\nExecution of deploy.pl aborted due to compilation errors.',
    # OCaml
    'File "bin/main.ml", line 9, characters 18-23:\nError: This expression has type string but an expression was expected of type int',
    # R
    'Error in UseMethod("filter") : \n  no applicable method for \'filter\' applied to an object of class "character"\nCalls: main -> %>% -> filter',
]
