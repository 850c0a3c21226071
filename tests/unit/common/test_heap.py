"""settle_heap: everything alive frozen, young collections every GC_YOUNG allocations.

Run in a fresh interpreter each: the collector's settings are process-wide and the test
process must keep its own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hebei.common.heap import GC_YOUNG

PROBE = """
import gc, json
before = gc.get_threshold()
frozen_before = gc.get_freeze_count()
from hebei.common.heap import settle_heap
settle_heap({young})
print(json.dumps({{"before": before, "after": gc.get_threshold(),
                  "frozen_before": frozen_before, "frozen": gc.get_freeze_count()}}))
"""


def _probe(young: str = "") -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(young=young)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return json.loads(out.stdout)


def test_it_freezes_what_is_alive_and_raises_the_young_threshold_only() -> None:
    found = _probe()
    assert found["frozen_before"] == 0
    assert found["frozen"] > 1000  # the modules imported so far, at least
    assert found["after"][0] == GC_YOUNG != found["before"][0]
    assert found["after"][1:] == found["before"][1:]  # the older generations keep theirs


@pytest.mark.parametrize("young", [700, 2_500])
def test_the_young_threshold_can_be_chosen(young: int) -> None:
    assert _probe(str(young))["after"][0] == young
