"""``GET /metrics``'s text, as Prometheus reads it: every metric errkb counts, by the names and
labels operators' dashboards use, one registry per bot."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from bot.slack.metrics import LATENCY_BUCKETS, Metrics


def _samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(metrics.render())
        for s in family.samples
    }


def test_what_the_bot_counts_is_exposed_by_name_and_label() -> None:
    metrics = Metrics()
    metrics.event("event:message")
    metrics.event("event:message")
    metrics.answer("answer")
    metrics.decline("not_confident")
    metrics.slack_error("chat.postMessage", "ratelimited")
    metrics.match_latency(0.003)
    metrics.match_latency(4.0)
    samples = _samples(metrics)
    assert samples[("errkb_events_total", (("kind", "event:message"),))] == 2
    assert samples[("errkb_answers_total", (("kind", "answer"),))] == 1
    assert samples[("errkb_declines_total", (("reason", "not_confident"),))] == 1
    assert (
        samples[
            (
                "errkb_slack_api_errors_total",
                (("error", "ratelimited"), ("method", "chat.postMessage")),
            )
        ]
        == 1
    )
    assert samples[("errkb_match_seconds_bucket", (("le", "0.0025"),))] == 0
    assert samples[("errkb_match_seconds_bucket", (("le", "0.005"),))] == 1
    assert samples[("errkb_match_seconds_bucket", (("le", "+Inf"),))] == 2
    assert samples[("errkb_match_seconds_count", ())] == 2
    assert abs(samples[("errkb_match_seconds_sum", ())] - 4.003) < 1e-9
    assert (
        len([k for k in samples if k[0] == "errkb_match_seconds_bucket"])
        == len(LATENCY_BUCKETS) + 1
    )
    assert not any(name.endswith("_created") for name, _ in samples), "no timestamp series"
    assert metrics.value("errkb_events_total", kind="event:message") == 2
    assert metrics.value("errkb_events_total", kind="never") == 0


def test_jobs_queue_and_rebuilds() -> None:
    metrics = Metrics()
    samples = _samples(metrics)
    assert samples[("errkb_queue_pending", ())] == 0  # the gauges read 0 before the first report
    assert not [name for name, _ in samples if name == "errkb_knowledge_rebuilds_total"]
    metrics.job_retry("paste", "ratelimited")
    metrics.job_retry("paste", "ratelimited")
    metrics.job_expired("paste")
    metrics.rebuild("incremental")
    metrics.queue(3, 1, 12.5)
    samples = _samples(metrics)
    assert samples[("errkb_job_retries_total", (("kind", "paste"), ("reason", "ratelimited")))] == 2
    assert samples[("errkb_jobs_expired_total", (("kind", "paste"),))] == 1
    assert samples[("errkb_knowledge_rebuilds_total", (("kind", "incremental"),))] == 1
    assert samples[("errkb_queue_pending", ())] == 3 and samples[("errkb_queue_running", ())] == 1
    assert metrics.gauge("errkb_queue_oldest_pending_seconds") == 12.5
    metrics.queue(0, 0, 0.0)
    assert metrics.gauge("errkb_queue_pending") == 0


def test_each_bot_counts_apart_and_label_values_are_escaped() -> None:
    first, second = Metrics(), Metrics()
    first.slack_error('say "hi"\\', "x\ny")
    assert second.value("errkb_slack_api_errors_total", method='say "hi"\\', error="x\ny") == 0
    samples = _samples(first)
    assert (
        samples[("errkb_slack_api_errors_total", (("error", "x\ny"), ("method", 'say "hi"\\')))]
        == 1
    )
