"""What ``GET /metrics`` exposes: errkb's Prometheus metrics, kept by ``prometheus_client``.

Each :class:`Metrics` owns a ``CollectorRegistry`` of its own (not the
library's global one), so two bots in one test process never count into each
other. The methods below are the only way the rest of errkb counts; the
exposition is ``prometheus_client``'s text format 0.0.4.

One ``errkb serve`` is one process whose workers are threads, and
``prometheus_client``'s metrics are thread-safe, so its multi-process mode
(``PROMETHEUS_MULTIPROC_DIR``, a directory of memory-mapped files shared by
forked workers) is not used: it would only be needed if one replica ran
several worker processes behind one port. Replicas are separate scrape targets.

The metrics of the request path exist from the start (a zero is a figure).
Those of parts that report only once they run (rebuilds, the job queue) are
registered on first report, so ``/metrics`` never shows a zero for something
nothing measures.

===============================  ======================  ==================================
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Literal, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics import disable_created_metrics

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

M = TypeVar("M", Counter, Gauge)


class Metrics:
    def __init__(self) -> None:
        # In text format 0.0.4 each ``*_created`` sample (a timestamp per label set,
        # meant for OpenMetrics) is a gauge series of its own: it would double what
        # Prometheus stores and tell nothing, since these counters never reset. (The
        # switch is the library's, process-wide; errkb is its only user.)
        disable_created_metrics()
        self.registry = registry = CollectorRegistry()
        self._lock = threading.Lock()
        self._later: dict[str, Counter | Gauge] = {}
        self._events = Counter(
            "errkb_events",
            "Slack events, commands and interactions received.",
            ["kind"],
            registry=registry,
        )
        self._answers = Counter(
            "errkb_answers", "Replies errkb posted.", ["kind"], registry=registry
        )
        self._declines = Counter(
            "errkb_declines", "Pastes errkb stayed silent on.", ["reason"], registry=registry
        )
        self._slack_errors = Counter(
            "errkb_slack_api_errors",
            "Slack Web API calls that failed.",
            ["method", "error"],
            registry=registry,
        )
        self._match = Histogram(
            "errkb_match_seconds",
            "Time to triage one paste.",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )

    def _first(
        self,
        kind: type[M],
        name: str,
        doc: str,
        labels: tuple[str, ...] = (),
        values: tuple[str, ...] = (),
    ) -> M:
        """The metric ``name``, registered the first time something reports it."""
        with self._lock:
            if name not in self._later:
                metric = kind(name, doc, labels, registry=self.registry)
                for value in values:  # every expected label value shows, at 0
                    metric.labels(value)
                self._later[name] = metric
            found = self._later[name]
        assert isinstance(found, kind)
        return found

    def event(self, kind: str) -> None:
        self._events.labels(kind=kind).inc()

    def answer(self, kind: str) -> None:
        self._answers.labels(kind=kind).inc()

    def decline(self, reason: str) -> None:
        self._declines.labels(reason=reason).inc()

    def slack_error(self, method: str, error: str) -> None:
        self._slack_errors.labels(method=method, error=error).inc()

    def match_latency(self, seconds: float) -> None:
        self._match.observe(seconds)

    def rebuild(self, kind: Literal["full", "incremental"]) -> None:
        """The match index and graph were rebuilt: from all records (full) or the changed ones."""
        counter = self._first(
            Counter,
            "errkb_knowledge_rebuilds",
            "Rebuilds of the match index and graph.",
            ("kind",),
            ("full", "incremental"),
        )
        counter.labels(kind).inc()

    def queue(self, depth: int, oldest_age_seconds: float) -> None:
        """How many jobs wait now, and how long the oldest has waited (0 when none)."""
        self._queue_depth().set(depth)
        self._queue_age().set(oldest_age_seconds)

    def watch_queue(
        self, depth: Callable[[], float], oldest_age_seconds: Callable[[], float]
    ) -> None:
        """Read the queue's depth and its oldest job's age whenever ``/metrics`` is read."""
        self._queue_depth().set_function(depth)
        self._queue_age().set_function(oldest_age_seconds)

    def _queue_depth(self) -> Gauge:
        return self._first(Gauge, "errkb_queue_depth", "Jobs waiting for a worker.")

    def _queue_age(self) -> Gauge:
        return self._first(
            Gauge, "errkb_queue_oldest_age_seconds", "How long the oldest waiting job has waited."
        )

    def retry(self, kind: str, reason: str) -> None:
        """A job of this kind failed for ``reason`` (an error's name, ``ratelimited``) and is
        tried again."""
        self._first(
            Counter, "errkb_job_retries", "Jobs tried again after a failure.", ("kind", "reason")
        ).labels(kind, reason).inc()

    def expire(self, kind: str) -> None:
        """A job of this kind waited too long and is dropped unrun."""
        self._first(
            Counter,
            "errkb_job_expirations",
            "Jobs dropped unrun because they waited too long.",
            ("kind",),
        ).labels(kind).inc()

    def value(self, name: str, **labels: str) -> float:
        """One sample's value as ``GET /metrics`` shows it (0 if never counted)."""
        return self.registry.get_sample_value(name, labels) or 0.0

    def render(self) -> str:
        """The text exposition (format 0.0.4) of every metric, for ``GET /metrics``."""
        return generate_latest(self.registry).decode()
