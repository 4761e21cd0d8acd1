"""Each job kind's handler: the use case its :func:`~bot.slack.queue.jobs.task` declaration names,
wired once at start.

Use cases name what they use as keyword-only parameters; :func:`inject`
binds them from the composition root's dependencies by name
(:mod:`bot.bootstrap`), so each takes exactly what it uses and a
missing one is an error at start, not at the first click. ``/errkb`` is one
job kind whose subcommand picks the use case, from the command table
(:data:`bot.slack.usecases.slash.SUBCOMMANDS`) that also drives its parser and help.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from bot.render.state import load_state
from bot.slack.queue.jobs import TASKS, ActionJob, CommandJob, HomeJob, JobKind, Task

# the use-case modules: importing them declares their tasks
from bot.slack.usecases import (  # noqa: F401
    additions,
    answer_paste,
    app_home,
    assistant,
    corrections,
    digest_actions,
    feedback,
    fixes,
    followup,
    slash,
    welcome,
)
from bot.store.jobs_repo import Job

Handler = Callable[[Job], None]
#: Given per call, not wired: the job being done.
PER_CALL = frozenset({"job"})


def inject(fn: Callable[..., Any], deps: Mapping[str, object]) -> Callable[..., Any]:
    """``fn`` with its keyword-only dependencies bound from ``deps`` by name."""
    wanted = [n for n, p in inspect.signature(fn).parameters.items() if p.kind is p.KEYWORD_ONLY]
    missing = [n for n in wanted if n not in deps and n not in PER_CALL]
    if missing:
        raise LookupError(f"{fn.__qualname__} needs {', '.join(missing)}, which nothing provides")
    return functools.partial(fn, **{n: deps[n] for n in wanted if n in deps})


def handler_of(
    task: Task, deps: Mapping[str, object], publish_home: Callable[..., None]
) -> Handler:
    """The job's payload validated, the state it carries loaded, then the use case; a click
    in the Home tab publishes the tab again, showing what the click changed."""
    run = inject(task.run, deps)
    wanted = inspect.signature(task.run).parameters
    per_call = "job" in wanted and wanted["job"].kind is inspect.Parameter.KEYWORD_ONLY

    def handle(job: Job) -> None:
        payload = task.payload.model_validate(job.payload)
        states = [] if task.state is None else [load_state(task.state, payload.state_value())]
        run(payload, *states, **task.args, **({"job": job} if per_call else {}))
        if task.state is not None and isinstance(payload, ActionJob) and payload.home:
            publish_home(HomeJob(user=payload.user))

    return handle


def job_handlers(deps: Mapping[str, object]) -> dict[str, Handler]:
    """Every job kind's handler, its use case wired from ``deps``."""
    publish_home = inject(app_home.publish_home, deps)
    handlers = {kind: handler_of(task, deps, publish_home) for kind, task in TASKS.items()}
    subcommands = {s.name: inject(s.run, deps) for s in slash.SUBCOMMANDS.values() if s.run}

    def handle_command(job: Job) -> None:
        command = CommandJob.model_validate(job.payload)
        subcommands[command.name](command)

    handlers[JobKind.COMMAND] = handle_command
    return handlers
