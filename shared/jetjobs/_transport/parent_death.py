"""A child process that the kernel signals when its parent thread ends: for programs we cannot change.

nats-server has no way to notice that the process which started it died; Linux does:
`prctl(PR_SET_PDEATHSIG, SIGTERM)` in the child asks the kernel to send it SIGTERM when its parent
ends, however the parent ends (`kill -9` included). Two details decide how it is set up:

- It must be set in the child, between fork and exec. `subprocess`'s `preexec_fn` would run Python
  code in a forked copy of a process that has other threads (unsafe: a lock held by another thread
  at the fork stays held for ever in the copy). Instead the child starts as a tiny Python program
  (`python -I -S -c`, no site, no imports beyond `ctypes` and `os`: about 15 ms) that calls prctl
  and then `execv`s the real program in the same process; the setting survives the exec.
- "Parent" means the parent *thread*: the signal comes when the thread that forked the child
  ends, even if the rest of the process lives on. The caller forks from a thread that lives exactly
  as long as the child (`EmbeddedServer` forks from the thread that reads the server's log until
  it exits), never from a pool thread that may end while the child runs.

The program also checks that its parent is still the process that started it: had the parent died
between the fork and the prctl, no signal would ever come, and it exits at once instead.

Elsewhere (macOS) there is no such call and the command runs as it is.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence

# Kept to the standard library's bare minimum: it runs before every nats-server start.
# PR_SET_PDEATHSIG is 1 in <linux/prctl.h>.
_TIE = """\
import ctypes, os, sys
signum, parent, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
if ctypes.CDLL(None, use_errno=True).prctl(1, signum, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_PDEATHSIG) failed: " + os.strerror(ctypes.get_errno()))
if os.getppid() != parent:
    sys.exit("not started: the process that started it has already ended")
os.execvp(argv[0], argv)
"""


def dies_with_parent(command: Sequence[str], signum: int = signal.SIGTERM) -> list[str]:
    """`command` wrapped so that the kernel sends it `signum` when the thread that starts it ends.

    The wrapped command keeps the process id of the one it wraps (it execs), its environment and
    its open descriptors.
    """
    if sys.platform != "linux":
        return list(command)
    return [sys.executable, "-I", "-S", "-c", _TIE, str(int(signum)), str(os.getpid()), *command]
