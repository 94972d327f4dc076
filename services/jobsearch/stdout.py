"""Standard output that a reader may close early (`jobsearch listings | head`)."""

from __future__ import annotations

import os
import signal
import sys


def closed_pipe() -> int:
    """The reader went away: end quietly, as Unix tools do; the exit status to return.

    Python would report the closed pipe again when it flushes stdout at exit, so stdout is
    pointed at /dev/null first. The status is 128 + SIGPIPE, what a shell reports for `cat | head`.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE
