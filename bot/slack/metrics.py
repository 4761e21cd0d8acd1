"""Prometheus counters and a histogram, and their text exposition (format 0.0.4).

Small and thread-safe: the listeners count, ``GET /metrics`` renders.
"""

from __future__ import annotations

import threading
from collections import defaultdict

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _labels(pairs: tuple[tuple[str, str], ...]) -> str:
    if not pairs:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in pairs) + "}"


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters: dict[str, dict[tuple[tuple[str, str], ...], float]] = defaultdict(
            lambda: defaultdict(float)
        )
        self._buckets = [0] * len(LATENCY_BUCKETS)
        self._latency_sum = 0.0
        self._latency_count = 0
        self._gauges: dict[str, float] = {}

    def inc(self, name: str, **labels: str) -> None:
        with self._lock:
            self._counters[name][tuple(sorted(labels.items()))] += 1

    def event(self, kind: str) -> None:
        self.inc("errkb_events_total", kind=kind)

    def answer(self, kind: str) -> None:
        self.inc("errkb_answers_total", kind=kind)

    def decline(self, reason: str) -> None:
        self.inc("errkb_declines_total", reason=reason)

    def slack_error(self, method: str, error: str) -> None:
        self.inc("errkb_slack_api_errors_total", method=method, error=error)

    def job_retry(self, kind: str, reason: str) -> None:
        self.inc("errkb_job_retries_total", kind=kind, reason=reason)

    def job_expired(self, kind: str) -> None:
        self.inc("errkb_jobs_expired_total", kind=kind)

    def rebuild(self, kind: str) -> None:
        self.inc("errkb_knowledge_rebuilds_total", kind=kind)

    def queue(self, pending: int, running: int, oldest_seconds: float) -> None:
        with self._lock:
            self._gauges["errkb_queue_pending"] = pending
            self._gauges["errkb_queue_running"] = running
            self._gauges["errkb_queue_oldest_pending_seconds"] = oldest_seconds

    def gauge(self, name: str) -> float:
        with self._lock:
            return self._gauges.get(name, 0.0)

    def match_latency(self, seconds: float) -> None:
        with self._lock:
            for i, bound in enumerate(LATENCY_BUCKETS):
                if seconds <= bound:
                    self._buckets[i] += 1
            self._latency_sum += seconds
            self._latency_count += 1

    def value(self, name: str, **labels: str) -> float:
        with self._lock:
            return self._counters.get(name, {}).get(tuple(sorted(labels.items())), 0.0)

    def render(self) -> str:
        helps = {
            "errkb_events_total": "Slack events, commands and interactions received.",
            "errkb_answers_total": "Replies errkb posted.",
            "errkb_declines_total": "Pastes errkb stayed silent on.",
            "errkb_slack_api_errors_total": "Slack Web API calls that failed.",
            "errkb_job_retries_total": "Jobs postponed after a transient failure or a rate limit.",
            "errkb_jobs_expired_total": "Jobs given up because their answer would come too late.",
            "errkb_knowledge_rebuilds_total": "Rebuilds of the match index and graph.",
        }
        gauge_helps = {
            "errkb_queue_pending": "Jobs waiting to be done (due or waiting for a retry).",
            "errkb_queue_running": "Jobs being done now, on any server.",
            "errkb_queue_oldest_pending_seconds": "Age of the oldest unfinished job.",
        }
        lines: list[str] = []
        with self._lock:
            for name, help_text in helps.items():
                lines += [f"# HELP {name} {help_text}", f"# TYPE {name} counter"]
                for labels, value in sorted(self._counters.get(name, {}).items()):
                    lines.append(f"{name}{_labels(labels)} {value:g}")
            for name, help_text in gauge_helps.items():
                lines += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge",
                          f"{name} {self._gauges.get(name, 0.0):g}"]  # fmt: skip
            name = "errkb_match_seconds"
            lines += [f"# HELP {name} Time to triage one paste.", f"# TYPE {name} histogram"]
            for bound, count in zip(LATENCY_BUCKETS, self._buckets, strict=True):
                lines.append(f'{name}_bucket{{le="{bound:g}"}} {count}')
            lines.append(f'{name}_bucket{{le="+Inf"}} {self._latency_count}')
            lines.append(f"{name}_sum {self._latency_sum:.6f}")
            lines.append(f"{name}_count {self._latency_count}")
        return "\n".join(lines) + "\n"
