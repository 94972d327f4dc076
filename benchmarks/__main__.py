"""`python -m benchmarks [--jobs N] [--only NAME ...] [--repeat N]`: run, print the table, write JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio

from benchmarks import peers, suite
from jetjobs import EmbeddedServer

SCENARIOS = (
    "publish",
    "consume",
    "consume-2",
    "consume-late",
    "consume-traced",
    "consume-sampled",
    "e2e",
    "latency",
    "recovery",
    "peers",
)


@contextmanager
def otlp_sink() -> Iterator[str]:
    """An OTLP/HTTP endpoint that accepts and drops spans (tracing cost without a collector)."""

    class Sink(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


async def run(args: argparse.Namespace, url: str, sink: str) -> suite.Bench:
    bench = suite.Bench(url=url, jobs=args.jobs)
    for _ in range(args.repeat):
        await run_once(bench, args.only or SCENARIOS, sink)
    bench.rows = medians(bench.rows)
    bench.extra.update(peers.against_best_peer(bench.rows))
    bench.extra.update(suite.cpu_ratios(bench.extra))
    return bench


def medians(rows: list[suite.Row]) -> list[suite.Row]:
    """One row per scenario (in first-seen order): the median jetjobs and baseline figures."""
    by_scenario: dict[str, list[suite.Row]] = {}
    for row in rows:
        by_scenario.setdefault(row.scenario, []).append(row)
    return [
        dataclasses.replace(
            same[0],
            jetjobs=statistics.median(r.jetjobs for r in same),
            baseline=statistics.median(r.baseline for r in same),
            notes="; ".join(filter(None, [same[0].notes, f"median of {len(same)}" if len(same) > 1 else ""])),
        )
        for same in by_scenario.values()
    ]


async def run_once(bench: suite.Bench, chosen: list[str] | tuple[str, ...], sink: str) -> None:
    for name in SCENARIOS:
        if name not in chosen:
            continue
        print(f"... {name}", flush=True)
        if name == "publish":
            await suite.publish(bench)
        elif name == "consume":
            await suite.consume(bench, tracing_endpoint=None)
        elif name == "consume-2":
            await suite.consume(bench, tracing_endpoint=None, workers=2)
        elif name == "consume-late":
            await suite.consume(bench, tracing_endpoint=None, claim_after=0.05)
        elif name == "consume-traced":
            await suite.consume(bench, tracing_endpoint=sink)
        elif name == "consume-sampled":
            await suite.consume(bench, tracing_endpoint=None, sampled=0.1)
            await suite.consume(bench, tracing_endpoint=sink, sampled=0.1)
        elif name == "e2e":
            await suite.end_to_end(bench, workers=1)
            await suite.end_to_end(bench, workers=2)
        elif name == "latency":
            await suite.latency(bench)
        elif name == "recovery":
            await suite.recovery(bench)
            await suite.recovery(bench, heartbeat=(0.5, 1))
        elif name == "peers":
            await peers.peers(bench)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--jobs", type=int, default=20_000, help="jobs per throughput scenario")
    parser.add_argument("--only", nargs="*", choices=SCENARIOS, help="run only these scenarios")
    parser.add_argument("--repeat", type=int, default=1, help="run N times; report medians")
    parser.add_argument("--output", type=Path, default=Path("bench-results.json"))
    args = parser.parse_args()
    started = time.time()
    with tempfile.TemporaryDirectory() as store, EmbeddedServer(store) as server, otlp_sink() as sink:
        bench = anyio.run(run, args, server.url, sink)
    print()
    print(suite.table(bench.rows))
    for key, value in bench.extra.items():
        print(f"{key}: {value}")
    print(
        f"({time.time() - started:.0f} s, {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()})"
    )
    args.output.write_text(
        json.dumps(
            {
                "rows": [dict(vars(r), ratio=r.ratio) for r in bench.rows],
                **bench.extra,
                "jobs": args.jobs,
                "at": started,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
