"""Shared machinery: the server, worker processes, counting events, RSS."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
from nats.aio.client import Client as NATS

ROOT = Path(__file__).resolve().parent.parent


def worker_env(url: str, namespace: str, **extra: str) -> dict[str, str]:
    """Environment of a benchmark worker process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JETJOBS_", "NATS_", "OTEL_"))}
    env.update(NATS_URL=url, JETJOBS_NAMESPACE=namespace, **extra)
    return env


@contextmanager
def worker_process(
    url: str, namespace: str, *, concurrency: int = 64, queues: str = "default", **extra: str
) -> Iterator[subprocess.Popen[str]]:
    """A `jetjobs worker benchmarks.apps:app` process, ready (it logged worker.started)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jetjobs.cli",
            "--log-format",
            "json",
            "worker",
            "benchmarks.apps:app",
            "-c",
            str(concurrency),
            "-Q",
            queues,
        ],
        cwd=ROOT,
        env=worker_env(url, namespace, **extra),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if "worker.started" in line:
                break
        else:
            raise RuntimeError(f"worker exited early: {process.wait()}")
        # Keep draining stderr (one log line per job) so the worker never blocks on a full pipe.
        stream = process.stderr
        threading.Thread(target=lambda: [None for _ in stream], daemon=True).start()
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def peak_rss_mb(pid: int) -> float:
    """VmHWM (peak resident set) of a live process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Counter:
    """Counts messages on a subject; `wait(n)` returns when n have arrived."""

    def __init__(self) -> None:
        self.count = 0
        self.first = 0.0
        self.last = 0.0
        self._reached = anyio.Event()
        self._target = 0

    async def subscribe(self, nc: NATS, subject: str) -> None:
        async def on_msg(_msg: object) -> None:
            self.count += 1
            now = time.perf_counter()
            if self.count == 1:
                self.first = now
            self.last = now
            if self._target and self.count >= self._target:
                self._reached.set()

        await nc.subscribe(subject, cb=on_msg)

    async def wait(self, target: int, timeout: float = 600) -> None:
        """Return once `target` messages have arrived in all."""
        self._target = target
        self._reached = anyio.Event()
        if self.count >= target:
            return
        with anyio.fail_after(timeout):
            await self._reached.wait()
