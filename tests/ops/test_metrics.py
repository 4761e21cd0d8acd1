"""``GET /metrics``'s text, as Prometheus reads it: every metric errkb counts, by the names and
labels operators' dashboards use, one registry per bot."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from bot.slack.web.metrics import LATENCY_BUCKETS, Metrics


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


def test_rebuilds_queue_and_job_metrics_appear_once_reported() -> None:
    metrics = Metrics()
    assert not {name for name, _ in _samples(metrics)} & {
        "errkb_knowledge_rebuilds_total",
        "errkb_queue_depth",
        "errkb_job_retries_total",
    }, "nothing measures them yet: no zero that would look like a figure"
    metrics.rebuild("incremental")
    samples = _samples(metrics)
    assert samples[("errkb_knowledge_rebuilds_total", (("kind", "full"),))] == 0  # zero is shown
    assert samples[("errkb_knowledge_rebuilds_total", (("kind", "incremental"),))] == 1
    metrics.rebuild("incremental")
    metrics.queue(3, 1.5)
    metrics.retry("answer", "SlackUnavailable")
    metrics.expire("answer")
    samples = _samples(metrics)
    assert samples[("errkb_knowledge_rebuilds_total", (("kind", "incremental"),))] == 2
    assert samples[("errkb_queue_depth", ())] == 3
    assert samples[("errkb_queue_oldest_age_seconds", ())] == 1.5
    assert (
        samples[("errkb_job_retries_total", (("kind", "answer"), ("reason", "SlackUnavailable")))]
        == 1
    )
    assert samples[("errkb_job_expirations_total", (("kind", "answer"),))] == 1
    waiting = [10.0, 12.5]
    metrics.watch_queue(lambda: len(waiting), lambda: max(waiting, default=0.0))
    waiting.append(30.0)  # read when scraped, not when set
    samples = _samples(metrics)
    assert (
        samples[("errkb_queue_depth", ())] == 3
        and samples[("errkb_queue_oldest_age_seconds", ())] == 30
    )


def test_each_bot_counts_apart_and_label_values_are_escaped() -> None:
    first = Metrics()
    second = Metrics()
    first.slack_error('say "hi"\\', "x\ny")
    assert second.value("errkb_slack_api_errors_total", method='say "hi"\\', error="x\ny") == 0
    samples = _samples(first)
    assert (
        samples[("errkb_slack_api_errors_total", (("error", "x\ny"), ("method", 'say "hi"\\')))]
        == 1
    )
