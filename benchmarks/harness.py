"""Shared machinery: counting events, reading RSS and CPU time (workers come from jetjobs.testing)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
from nats.aio.client import Client as NATS

from jetjobs._transport.inbox import subscribe_direct

ROOT = Path(__file__).resolve().parent.parent


def peak_rss_mb(pid: int) -> float:
    """VmHWM (peak resident set) of a live process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a live process has used so far (from /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Counter:
    """Counts messages on a subject; `wait(n)` returns when n have arrived."""

    def __init__(self) -> None:
        self.count = 0
        self.first = 0.0
        self.last = 0.0
        self._reached = anyio.Event()
        self._target = 0

    async def subscribe(self, nc: NATS, subject: str) -> None:
        """Count the messages on `subject` as they are read (no task per message: the counting
        process shares the machine's cores with the worker it measures)."""

        def on_msg(_msg: object) -> None:
            self.count += 1
            now = time.perf_counter()
            if self.count == 1:
                self.first = now
            self.last = now
            if self._target and self.count >= self._target:
                self._reached.set()

        await subscribe_direct(nc, subject, on_msg)

    async def wait(self, target: int, timeout: float = 600) -> None:
        """Return once `target` messages have arrived in all."""
        self._target = target
        self._reached = anyio.Event()
        if self.count >= target:
            return
        with anyio.fail_after(timeout):
            await self._reached.wait()
