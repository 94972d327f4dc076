"""`python -m benchmarks.jobsearch_run [--size 5000] [--open] [--repeat 1]`: the whole pipeline.

Each measurement is `jobsearch run` as a person runs it (four `jobsearch serve STAGE` children,
the embedded nats-server, the offline provider) in a fresh data dir and server store:
1. the example profile as shipped (40 bundled sample postings): wall time of the first and the
   second run (the second finds nothing new);
2. the example profile with `Sample(size=N)`: listings per second through the whole pipeline
   (fetch, dedupe, draft, export, tracker render), wall time from the command's start to its exit;
   with `--open` the profile's search filters are emptied, so every listing is drafted and exported.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "profile.toml"
_DONE = re.compile(r"done in ([0-9.]+) s")
_LISTINGS = re.compile(r"listings   seen (\d+), new (\d+)")


def profile(directory: Path, *, size: int | None = None, open_search: bool = False) -> Path:
    """The example profile, its sample source optionally scaled up and its filters optionally off
    (written as `directory/profile.toml`; the pipeline's end-to-end tests use it too)."""
    text = EXAMPLE.read_text()
    if 'board = "sample"' not in text:
        raise ValueError(f"{EXAMPLE} no longer reads the sample board: this helper needs updating")
    if size is not None:
        text = text.replace('board = "sample"', f'board = "sample"\nsize = {size}', 1)
    if open_search:
        start, end = text.index("[search]"), text.index("[writing]")
        text = text[:start] + "[search]\n\n" + text[end:]
    path = directory / "profile.toml"
    path.write_text(text)
    return path


def run(path: Path, home: Path) -> tuple[float, str]:
    """Run `jobsearch run --profile PATH` with its data and server store under `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NATS_", "JETJOBS_", "JOBSEARCH_"))}
    env |= {"JOBSEARCH_DATA_DIR": str(home / "data"), "NATS_STORE_DIR": str(home / "nats")}
    env["LLM_PROVIDER"] = "offline"
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"jobsearch run failed ({done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    return wall, done.stdout


def main() -> None:
    """Print the measurements."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.jobsearch_run")
    parser.add_argument("--size", type=int, default=5000, help="generated sample listings (default 5000)")
    parser.add_argument("--open", action="store_true", help="no search filters: draft every listing")
    parser.add_argument("--repeat", type=int, default=1, help="scaled-up runs, median reported")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "example"
        home.mkdir()
        path = profile(home, size=None, open_search=False)
        for label in ("first", "second"):
            wall, out = run(path, home)
            seen_new = _LISTINGS.search(out)
            print(f"example profile, {label} run: {wall:.1f} s wall" + (
                f" (seen {seen_new.group(1)}, new {seen_new.group(2)})" if seen_new else ""
            ))  # fmt: skip
        rates = []
        for attempt in range(args.repeat):
            home = Path(tmp) / f"scaled{attempt}"
            home.mkdir()
            path = profile(home, size=args.size, open_search=args.open)
            wall, out = run(path, home)
            seen_new = _LISTINGS.search(out)
            rates.append(args.size / wall)
            print(
                f"Sample(size={args.size}){' open search' if args.open else ''}: {wall:.1f} s wall, "
                f"{args.size / wall:.0f} listings/s" + (f" (new {seen_new.group(2)})" if seen_new else "")
            )
        if args.repeat > 1:
            print(f"median: {statistics.median(rates):.0f} listings/s")


if __name__ == "__main__":
    main()
