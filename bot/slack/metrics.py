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

======================================  ==================  ===========================================
metric                                  labels              what
======================================  ==================  ===========================================
errkb_events_total                      kind                Slack events, commands, interactions received
errkb_answers_total                     kind                replies errkb posted
errkb_declines_total                    reason              pastes errkb stayed silent on
errkb_slack_api_errors_total            method, error       Slack Web API calls that failed
errkb_job_retries_total                 kind, reason        jobs postponed after a failure or rate limit
errkb_jobs_expired_total                kind                jobs given up: the answer would come too late
errkb_knowledge_rebuilds_total          kind                rebuilds of the index and graph (full, incremental)
errkb_queue_pending                     —                   jobs waiting (due, or waiting for a retry)
errkb_queue_running                     —                   jobs being done now, on any server
errkb_queue_oldest_pending_seconds      —                   age of the oldest unfinished job
errkb_match_seconds                     (histogram)         time to triage one paste
======================================  ==================  ===========================================
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics import disable_created_metrics

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    def __init__(self) -> None:
        # In text format 0.0.4 each ``*_created`` sample (a timestamp per label set,
        # meant for OpenMetrics) is a gauge series of its own: it would double what
        # Prometheus stores and tell nothing, since these counters never reset. (The
        # switch is the library's, process-wide; errkb is its only user.)
        disable_created_metrics()
        self.registry = r = CollectorRegistry()
        self._events = Counter(
            "errkb_events",
            "Slack events, commands and interactions received.",
            ["kind"],
            registry=r,
        )
        self._answers = Counter("errkb_answers", "Replies errkb posted.", ["kind"], registry=r)
        self._declines = Counter(
            "errkb_declines", "Pastes errkb stayed silent on.", ["reason"], registry=r
        )
        self._slack_errors = Counter(
            "errkb_slack_api_errors",
            "Slack Web API calls that failed.",
            ["method", "error"],
            registry=r,
        )
        self._retries = Counter(
            "errkb_job_retries",
            "Jobs postponed after a transient failure or a rate limit.",
            ["kind", "reason"],
            registry=r,
        )
        self._expired = Counter(
            "errkb_jobs_expired",
            "Jobs given up because their answer would come too late.",
            ["kind"],
            registry=r,
        )
        self._rebuilds = Counter(
            "errkb_knowledge_rebuilds",
            "Rebuilds of the match index and graph.",
            ["kind"],
            registry=r,
        )
        self._pending = Gauge(
            "errkb_queue_pending",
            "Jobs waiting to be done (due or waiting for a retry).",
            registry=r,
        )
        self._running = Gauge(
            "errkb_queue_running", "Jobs being done now, on any server.", registry=r
        )
        self._oldest = Gauge(
            "errkb_queue_oldest_pending_seconds", "Age of the oldest unfinished job.", registry=r
        )
        self._match = Histogram(
            "errkb_match_seconds", "Time to triage one paste.", buckets=LATENCY_BUCKETS, registry=r
        )

    def event(self, kind: str) -> None:
        self._events.labels(kind=kind).inc()

    def answer(self, kind: str) -> None:
        self._answers.labels(kind=kind).inc()

    def decline(self, reason: str) -> None:
        self._declines.labels(reason=reason).inc()

    def slack_error(self, method: str, error: str) -> None:
        self._slack_errors.labels(method=method, error=error).inc()

    def job_retry(self, kind: str, reason: str) -> None:
        self._retries.labels(kind=kind, reason=reason).inc()

    def job_expired(self, kind: str) -> None:
        self._expired.labels(kind=kind).inc()

    def rebuild(self, kind: str) -> None:
        """The match index and graph were rebuilt: ``full`` or ``incremental``."""
        self._rebuilds.labels(kind=kind).inc()

    def queue(self, pending: int, running: int, oldest_seconds: float) -> None:
        self._pending.set(pending)
        self._running.set(running)
        self._oldest.set(oldest_seconds)

    def gauge(self, name: str) -> float:
        return self.value(name)

    def match_latency(self, seconds: float) -> None:
        self._match.observe(seconds)

    def value(self, name: str, **labels: str) -> float:
        """One sample's value as ``GET /metrics`` shows it (0 if never counted)."""
        return self.registry.get_sample_value(name, labels) or 0.0

    def render(self) -> str:
        """The text exposition (format 0.0.4) of every metric, for ``GET /metrics``."""
        return generate_latest(self.registry).decode()
