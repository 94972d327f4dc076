"""`python -m benchmarks.jobsearch_run [--sizes 1000 10000] [--open] [--no-drafts] [--repeat 1]`.

Each measurement is `jobsearch run` as a person runs it (four `jobsearch serve STAGE` children,
the embedded nats-server, the offline provider) in a fresh data dir and server store:
1. the example profile as shipped (40 bundled sample postings): wall time of the first and the
   second run (the second finds nothing new);
2. the example profile with `Sample(size=N)`: listings per second through the whole pipeline
   (fetch, dedupe, draft, export, tracker render), wall time from the command's start to its exit;
   with `--open` the profile's search filters are emptied, so every listing is drafted and exported;
   with `--no-drafts` the profile says `[drafting] enabled = false` (fetch, dedupe, export only).
   Per size: the wall time, postings per second, and each job type's busy time and rate as
   `jobsearch run --timings` reports them (the ledger's clock), so how each stage grows shows.
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
_LISTINGS = re.compile(r"listings   seen (\d+) = new (\d+)")
_TIMING = re.compile(r"timing\s+(\S+)\s+([\d,]+) jobs in\s+([\d.]+) s")


def profile(
    directory: Path,
    *,
    size: int | None = None,
    open_search: bool = False,
    drafting: bool = True,
    draft_all: bool = True,
) -> Path:
    """The example profile, its sample source optionally scaled up, its filters and its drafting
    optionally off, and (`draft_all`, the default) its drafting bar lowered so that every listing
    is drafted (written as `directory/profile.toml`; the pipeline's end-to-end tests use it)."""
    text = EXAMPLE.read_text()
    if draft_all:
        bar = "min_fit = 50\nmax_per_run = 15\n"
        if bar not in text:
            raise ValueError(f"{EXAMPLE} no longer has `min_fit = 50`, `max_per_run = 15`: update the helper")
        text = text.replace(bar, "min_fit = 0\nmax_per_run = 10000\n")
    if not drafting:
        if "[drafting]\nenabled = true" not in text:
            raise ValueError(
                f"{EXAMPLE} no longer has `[drafting] enabled = true`: this helper needs updating"
            )
        text = text.replace("[drafting]\nenabled = true", "[drafting]\nenabled = false")
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
        [sys.executable, "-m", "jobsearch.cli", "run", "--profile", str(path), "--timings"],
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
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[5000], help="sample postings per run (default 5000)"
    )
    parser.add_argument("--open", action="store_true", help="no search filters: keep every listing")
    parser.add_argument("--no-drafts", action="store_true", help="[drafting] enabled = false")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size, median reported")
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
        for size in args.sizes:
            walls = []
            for attempt in range(args.repeat):
                home = Path(tmp) / f"n{size}-{attempt}"
                home.mkdir()
                path = profile(home, size=size, open_search=args.open, drafting=not args.no_drafts)
                wall, out = run(path, home)
                walls.append(wall)
            wall = statistics.median(walls)
            seen_new = _LISTINGS.search(out)
            mode = (" open search" if args.open else "") + (" no drafts" if args.no_drafts else "")
            print(
                f"Sample(size={size}){mode}: {wall:.1f} s wall, {size / wall:,.0f} postings/s"
                + (f" (new {seen_new.group(2)})" if seen_new else "")
            )
            for job_type, count, seconds in _TIMING.findall(out):
                jobs, busy = int(count.replace(",", "")), float(seconds)
                rate = f"{size / busy:,.0f} postings/s" if busy and job_type.endswith("_batch") else ""
                print(f"    {job_type:<24} {jobs:>7,} jobs, busy {busy:6.2f} s  {rate}")


if __name__ == "__main__":
    main()
