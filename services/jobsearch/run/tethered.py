"""`python -m jobsearch.run.tethered ARGS`: `jobsearch ARGS` that ends when its parent process ends.

The child's side of `jobsearch.run.lifeline`: a thread blocks on the lifeline's read end (the
descriptor named by `JOBSEARCH_LIFELINE_FD`), and at end of file, which means the parent has
ended,

1. points stderr at /dev/null: its reader, the parent, is gone, and a log line written into a
   pipe nobody reads would fail the very shutdown it reports;
2. sends this process SIGTERM: the command stops as it does when a person stops it (a stage
   service stops fetching and hands back its unfinished jobs);
3. should it still run `grace_period` + 15 s later (a shutdown that hangs), ends it with status 1.

Without the variable it is plain `jobsearch ARGS`. (Nothing imports this module, so that
`python -m` runs it without importing it twice.)
"""

from __future__ import annotations

import os
import signal
import sys
import threading

from jetjobs import ConfigError, load_settings
from jobsearch.cli import main as jobsearch
from jobsearch.run.lifeline import ENV

_MARGIN = 15.0  # beyond the grace period, for the connection's close and the interpreter's exit


def watch(fd: int, deadline: float) -> None:
    """Block until the parent is gone (end of file on `fd`), then stop this process."""
    while os.read(fd, 1):  # the parent never writes; read() returns b"" at end of file only
        pass
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.kill(os.getpid(), signal.SIGTERM)
    threading.Event().wait(deadline)  # a bounded wait for the graceful stop, not a poll
    os._exit(1)


def main(argv: list[str]) -> int:
    """Start the watch (when a lifeline was passed), then run `jobsearch ARGV`."""
    fd = os.environ.pop(ENV, "")
    if fd:
        try:
            grace = load_settings().grace_period
        except ConfigError:
            grace = 30.0  # the command itself reports the bad setting
        os.set_inheritable(int(fd), False)  # not for this command's own children
        threading.Thread(target=watch, args=(int(fd), grace + _MARGIN), name="lifeline", daemon=True).start()
    return jobsearch(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
