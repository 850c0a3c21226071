"""What ``hebei bench scale`` reads of the running stack at one moment (:class:`Snapshot`):
each engine replica's metrics, the other services' and the bot workers', and the CPU seconds of
every component's processes and of the bench process itself (:data:`OWN`)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import psutil

from hebei.bench.stack_metrics import Components, components_of, scrape, scrape_all

if TYPE_CHECKING:
    from hebei.stack.processes import Stack

__all__ = ["OWN", "ProcessCpu", "Snapshot", "StackParts", "cpu_between", "process_cpu"]

OWN = "bench (scripted people)"  # this process: the people's client and the monitoring
TABLES_ACTIVE = "hebei_table_tables_active"


ProcessCpu = dict[tuple[int, float], float]  # (pid, start time) -> CPU seconds so far


def process_cpu(processes: Sequence[psutil.Process]) -> ProcessCpu:
    """CPU seconds each of ``processes`` has used so far, by (pid, start time)."""
    out: ProcessCpu = {}
    for process in processes:
        try:
            with process.oneshot():
                times = process.cpu_times()
                out[(process.pid, process.create_time())] = times.user + times.system
        except psutil.Error:
            continue
    return out


def cpu_between(before: ProcessCpu, after: ProcessCpu) -> float:
    """CPU seconds used between two readings by the processes alive at the second (one that
    started meanwhile counts whole, one that ended is not counted): never negative, as a
    difference of sums is when a configured server's backends come and go."""
    return sum(max(0.0, seconds - before.get(key, 0.0)) for key, seconds in after.items())


@dataclass
class Snapshot:
    """Everything read at one moment: each engine replica's metrics, the other services'
    and the bot workers', CPU seconds of every component's processes and of this one."""

    at: float
    replicas: dict[str, Any]
    services: dict[str, Any]
    bots: Any
    cpu: dict[str, ProcessCpu]

    def cpu_since(self, earlier: Snapshot) -> dict[str, float]:
        """CPU seconds of each component (and this process, :data:`OWN`) since ``earlier``."""
        return {
            name: cpu_between(earlier.cpu.get(name, {}), found) for name, found in self.cpu.items()
        }


@dataclass
class StackParts:
    """The parts of the running stack the benchmark reads."""

    stack: Stack
    components: Components
    table_names: list[str]
    metrics: dict[str, str]  # process name -> its /metrics address
    services: dict[str, list[str]] = field(default_factory=dict)  # service -> every /metrics

    @classmethod
    def of(cls, stack: Stack) -> StackParts:
        names = [name for name, child in stack.children.items() if child.service == "table"]
        metrics = {
            name: child.metrics_address
            for name, child in stack.children.items()
            if child.address and child.metrics_address
        }
        services: dict[str, list[str]] = {}
        for name, child in stack.children.items():
            if child.address and child.metrics_address and child.service != "table":
                services.setdefault(child.service or name, []).append(child.metrics_address)
        return cls(stack, components_of(stack), names, metrics, services)

    def snapshot(self) -> Snapshot:
        processes = self.components.processes()
        return Snapshot(
            at=time.perf_counter(),
            replicas={name: scrape(self.metrics[name]) for name in self.table_names},
            services={name: scrape_all(found) for name, found in self.services.items()},
            bots=scrape_all(self.stack.bot_metrics_addresses),
            cpu={
                **{name: process_cpu(found) for name, found in processes.items()},
                OWN: process_cpu([psutil.Process()]),
            },
        )

    def live_tables(self) -> dict[str, int]:
        """Live tables on each engine replica now."""
        return {
            name: int(scrape(self.metrics[name]).get((TABLES_ACTIVE, ()), 0))
            for name in self.table_names
        }

    def memory(self) -> dict[str, tuple[int, int]]:
        """(PSS, RSS) of each component now."""
        return self.components.memory()

    def died(self) -> list[str]:
        return [c.exit_message() for c in self.stack.children.values() if not c.running()]
