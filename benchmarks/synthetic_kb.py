"""Large synthetic knowledge bases whose records are distinct, not copies of real ones.

Each record is drawn from a seeded generator: a made-up library and component
(pronounceable words from syllables, so the vocabulary grows with the size as
a real one does), an error phrase from a list of real error shapes, and
identifiers filled in. Its regex has three to five top-level alternatives, each
with its own literals (type names, messages, dotted module paths) joined by
``.*``; its signature is the first alternative written out; root cause, tags,
versions and transition-graph links (to other generated records) vary too. So
a 100k base has hundreds of thousands of distinct regex branches, as a real
one of that size would, and the text index has a realistic spread of terms.
"""

from __future__ import annotations

import random
import re

from bot.records import Record

SYLLABLES = (
    "ka ro mi tel vor an zu pe lix dra mo qua sen ti bel or fa nu gri hal je cos ul vin"
    " pra de sto mar ky len obi rax tu wem"
).split()
DOMAINS = (
    "python java node go rust docker kubernetes postgres mysql redis kafka nginx terraform"
    " pytorch cuda android gradle react dotnet php"
).split()
PHRASES = (
    ("{Type}Error", "cannot allocate {thing} for {ident}"),
    ("{Type}Exception", "failed to open {thing} '{ident}'"),
    ("{Type}Fault", "{thing} {ident} timed out after {n} ms"),
    ("{Type}Error", "no such {thing}: {ident}"),
    ("{Type}Exception", "connection to {ident} refused while reading {thing}"),
    ("{Type}Error", "invalid {thing} in {ident} at offset {n}"),
    ("{Type}Warning", "{thing} {ident} is deprecated and will be removed"),
    ("{Type}Error", "permission denied writing {thing} {ident}"),
)
THINGS = (
    "buffer socket manifest shard lease handle schema token segment plugin cursor bucket".split()
)
OS = ("linux", "macos", "windows")


def _word(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts))


def synthetic_record(rng: random.Random, number: int) -> dict[str, object]:
    """Record ``number``, as native data; distinct from every other one."""
    domain = rng.choice(DOMAINS)
    library = _word(rng, 2) + str(number % 97)
    component = _word(rng, 3)
    kind, message = rng.choice(PHRASES)
    type_name = kind.format(Type=component.capitalize() + _word(rng, 1).capitalize())
    branches = []
    signature = ""
    for b in range(rng.randint(3, 5)):
        ident = f"{library}.{_word(rng, 2)}_{number}_{b}"
        text = message.format(thing=rng.choice(THINGS), ident=ident, n=rng.randint(10, 9999))
        head = re.escape(type_name if b == 0 else f"{library}.{component}")
        words = re.escape(text.split(" ")[0]) + ".*" + re.escape(ident)
        branches.append(f"{head}.*{words}")
        if b == 0:
            signature = f"{type_name}: {text}"
    env = f"{library}{rng.randint(1, 9)}-{rng.choice(OS)}"
    return {
        "id": f"{domain}/{library}-{component}-{number}/{env}",
        "signature": signature,
        "regex": "(" + "|".join(branches) + ")",
        "domain": domain,
        "category": "runtime_error",
        "root_cause": f"The {component} of {library} {rng.choice(THINGS)} handling fails when"
        f" {_word(rng, 2)} {rng.choice(THINGS)} is "
        f"{rng.choice(['stale', 'missing', 'locked', 'full'])}.",
        "tags": [library, component, rng.choice(THINGS)],
        "versions": [{"version": f"{library} >={rng.randint(1, 5)}.{rng.randint(0, 9)}"}],
        "workarounds": [
            {"action": f"Reset the {component} {rng.choice(THINGS)}", "success_rate": 0.8}
        ],
    }


def synthetic_records(size: int, *, seed: int = 13) -> list[Record]:
    """``size`` distinct records, the same ones for the same seed."""
    rng = random.Random(seed)
    data = [synthetic_record(rng, n) for n in range(size)]
    ids = [str(d["id"]) for d in data]
    for d in data:  # about one edge per record, some to records that are not there
        leads = [rng.choice(ids) for _ in range(rng.choice((0, 1, 1, 2)))]
        if rng.random() < 0.05:
            leads.append(f"{d['domain']}/missing-{rng.randrange(size)}/any")
        confused = [rng.choice(ids)] if rng.random() < 0.1 else []
        d["transition_graph"] = {
            "leads_to": [x for x in leads if x != d["id"]],
            "frequently_confused_with": [x for x in confused if x != d["id"]],
        }
    return [Record.model_validate(d) for d in data]
