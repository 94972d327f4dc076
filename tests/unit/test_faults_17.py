"""Issue 17, item 7, without a server: other libraries' log records stay JSON lines."""

from __future__ import annotations

import json
import subprocess
import sys

PROGRAM = """
import logging
from jetjobs._observability.log import configure_logging
configure_logging(json=True)
logging.getLogger("asyncio").error("Task was destroyed but it is pending!\\ntask: <Task pending>")
try:
    raise ConnectionResetError("reset by peer")
except ConnectionResetError:
    logging.getLogger("nats.aio.client").error("nats: encountered error", exc_info=True)
logging.getLogger("nats.aio.client").info("below the threshold: not logged")
"""


def test_item7_stdlib_records_are_json_lines() -> None:
    """asyncio's and nats-py's records (a traceback included) are one JSON line each on stderr."""
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True, timeout=60
    )
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    assert [(line["logger"], line["level"]) for line in lines] == [
        ("asyncio", "error"),
        ("nats.aio.client", "error"),
    ]
    assert "ConnectionResetError: reset by peer" in lines[1]["exception"]
