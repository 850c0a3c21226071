"""The whole-stack benchmark's arithmetic: histogram quantiles and sample deltas."""

from __future__ import annotations

import math

import pytest

from hebei.bench.stack_metrics import buckets_of, delta, histogram_quantile, method_p99, total


@pytest.mark.parametrize(
    ("q", "buckets", "expected"),
    [
        (0.5, [(0.01, 50.0), (0.1, 100.0), (math.inf, 100.0)], 0.01),
        (0.75, [(0.01, 50.0), (0.1, 100.0), (math.inf, 100.0)], 0.055),
        (0.99, [(0.01, 0.0), (0.02, 100.0), (math.inf, 100.0)], 0.0199),
        (0.5, [(1.0, 0.0), (math.inf, 10.0)], 1.0),  # beyond the last bound: its lower end
        (0.5, [(1.0, 0.0), (math.inf, 0.0)], None),  # no observations
    ],
)
def test_histogram_quantile_interpolates_like_prometheus(q, buckets, expected) -> None:
    value = histogram_quantile(q, buckets)
    assert value == (None if expected is None else pytest.approx(expected))


def test_buckets_deltas_and_totals_select_by_labels() -> None:
    def sample(le: str, kind: str, value: float):
        return (("m_bucket", (("le", le), ("seat_kind", kind))), value)

    before = dict([sample("0.01", "bot", 5), sample("+Inf", "bot", 5), sample("+Inf", "person", 1)])
    after = dict(
        [sample("0.01", "bot", 15), sample("+Inf", "bot", 25), sample("+Inf", "person", 3)]
    )
    moved = delta(after, before)
    assert buckets_of(moved, "m", seat_kind="bot") == [(0.01, 10.0), (math.inf, 20.0)]
    assert total(moved, "m_bucket", le="+Inf") == 22.0


def test_method_p99_names_service_and_method() -> None:
    labels = (("grpc_method", "Play"), ("grpc_service", "hebei.v1.TableService"))
    samples = {
        ("grpc_server_handling_seconds_count", labels): 10.0,
        ("grpc_server_handling_seconds_bucket", (*labels, ("le", "0.005"))): 10.0,
        ("grpc_server_handling_seconds_bucket", (*labels, ("le", "+Inf"))): 10.0,
    }
    assert method_p99(samples) == {"TableService/Play": pytest.approx(4.95)}
