"""Run a page (`jetjobs ui`, `jobsearch ui`) as the user would: a subprocess, its URL read from stdout."""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import AsyncIterator, Mapping, Sequence

import anyio

from jetjobs import Settings
from jetjobs.testing import worker_env


def page_env(settings: Settings, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a page process: every jetjobs setting pinned to `settings` (as a worker's)."""
    return worker_env(settings, settings.nats.url or "") | dict(extra or {})


@contextlib.asynccontextmanager
async def serving(
    module: str, args: Sequence[str], env: Mapping[str, str], *, cwd: str | None = None
) -> AsyncIterator[str]:
    """Start `python -m MODULE ARGS`, yield the URL it prints once it listens, SIGTERM it after."""
    process = await anyio.open_process(
        [sys.executable, "-m", module, *args], stdout=-1, stderr=-1, env=dict(env), cwd=cwd
    )  # -1: subprocess.PIPE
    assert process.stdout is not None
    assert process.stderr is not None
    errors = bytearray()

    async def drain_stderr() -> None:
        assert process.stderr is not None
        async for chunk in process.stderr:
            errors.extend(chunk)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(drain_stderr)
            url = ""
            with anyio.fail_after(30):
                buffered = b""
                async for chunk in process.stdout:
                    buffered += chunk
                    if b"\n" in buffered:
                        break
            line = buffered.decode(errors="replace").strip()
            url = line.split(" on ", 1)[1] if " on http" in line else ""
            if not url:
                raise RuntimeError(f"{module} did not start: {line}\n{errors.decode(errors='replace')}")
            yield url
            tg.cancel_scope.cancel()
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        with anyio.CancelScope(shield=True), anyio.move_on_after(10):
            await process.wait()
        if process.returncode is None:
            process.kill()
        await process.aclose()
        sys.stderr.write(errors.decode(errors="replace"))  # pytest shows it when the test fails
