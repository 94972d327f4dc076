"""Stage services started with other settings than this run: found from their heartbeats, and said.

Every stage service puts a fingerprint in its heartbeat: the jobsearch version and a hash of the
settings it runs with (`jobsearch.settings.service_fingerprint`). A service left running from
another terminal, or started before a change of provider, serves the same queue as the services a
run starts, and would do some of the run's jobs with its own settings. So a run reads the live
workers of the pipeline's queues once it is connected, before it starts its own services, and
compares their fingerprints with its own:

- a run that starts its services refuses to start while such a service runs (`OtherSettings`,
  with the warning as its message): its jobs would be shared with it;
- with `--no-services` the services running elsewhere are the ones doing the work, with their own
  settings, which may rightly differ from this shell's: the run says so and goes on.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence

import msgspec
from nats.aio.client import Client as NATS

from jetjobs import Settings, live_workers
from jobsearch.jobs import QUEUES, Stage
from jobsearch.settings import service_fingerprint

_STAGE_OF: dict[str, Stage] = {queue: stage for stage, queue in QUEUES.items()}


class OtherService(msgspec.Struct, kw_only=True, frozen=True):
    """A live worker of the pipeline's queues, from its heartbeat."""

    host: str
    pid: int
    queues: list[str]
    stages: list[Stage]  # the stages of those queues
    fingerprint: str  # "" from a worker that does not say (an older jobsearch, another app)
    worker: str  # its jetjobs worker id


class OtherSettings(Exception):
    """Stage services run with other settings than this run; the message says which and what to do."""

    def __init__(self, message: str, others: Sequence[OtherService]) -> None:
        super().__init__(message)
        self.others = list(others)


async def services_with_other_settings(
    nc: NATS, settings: Settings, *, fingerprint: str | None = None
) -> list[OtherService]:
    """The live workers of the pipeline's queues whose fingerprint is not `fingerprint`.

    `fingerprint`: this process's (`service_fingerprint()` of its environment) unless given. A
    worker without one (an older jobsearch, or not a jobsearch service) counts as other settings.
    """
    own = service_fingerprint() if fingerprint is None else fingerprint
    return [
        OtherService(
            host=beat.host,
            pid=beat.pid,
            queues=beat.queues,
            stages=[_STAGE_OF[queue] for queue in beat.queues if queue in _STAGE_OF],
            fingerprint=beat.fingerprint,
            worker=beat.id,
        )
        for beat in await live_workers(nc, settings)
        if beat.fingerprint != own and any(queue in _STAGE_OF for queue in beat.queues)
    ]


async def check_services(nc: NATS, settings: Settings, *, starting_services: bool) -> str | None:
    """Call once connected, before the run's own services start: None when no live service of
    the pipeline's queues runs with other settings, else the warning to show.

    Raises:
        OtherSettings: `starting_services` (a run without `--no-services`) and such a service
            runs; its message is the warning.
    """
    others = await services_with_other_settings(nc, settings)
    if not others:
        return None
    warning = other_settings_warning(others, starting_services=starting_services)
    if starting_services:
        raise OtherSettings(warning, others)
    return warning


def other_settings_warning(
    others: Sequence[OtherService], *, starting_services: bool, here: str | None = None
) -> str:
    """The warning about `others`, for a run that starts its services or one with `--no-services`.

    `here`: this host's name (default `socket.gethostname()`); services elsewhere are named with
    their host.
    """
    here = socket.gethostname() if here is None else here
    version = service_fingerprint().partition(":")[0]
    one = len(others) == 1
    count = f"{len(others)} stage service{'' if one else 's'}"
    listed = "; ".join(_describe(other, here, version) for other in others)
    if not starting_services:
        return (
            f"{count} {'runs' if one else 'run'} with other settings than this shell's ({listed}): "
            "with --no-services "
            f"{'it does' if one else 'they do'} this run's jobs, with the settings "
            f"{'it was' if one else 'they were'} started with"
        )
    them = "it" if one else "them"
    local = " ".join(str(other.pid) for other in others if other.host == here)
    # A service that a `jobsearch run` started is started again by that run when killed.
    kill = f" (on this host, a `jobsearch serve` also stops with `kill {local}`)" if local else ""
    return (
        f"{count} {'is' if one else 'are'} already running with other settings than this run "
        f"({listed}): "
        f"{'it' if one else 'they'} would take some of this run's jobs and do them with "
        f"{'its' if one else 'their'} own settings, so the run does not start. Stop {them}, then "
        f"run again: Ctrl-C in the terminal of the `jobsearch serve` or `jobsearch run` that "
        f"started {them}{kill}. Or run with --no-services to let {them} do the work with "
        f"{'its' if one else 'their'} settings"
    )


def _describe(other: OtherService, here: str, version: str) -> str:
    """`pid 4242 draft`, `pid 77 dedupe on host-b, version 0.0.9`, `pid 9 fetch, settings unknown`."""
    where = "" if other.host == here else f" on {other.host}"
    parts = [f"pid {other.pid} {'/'.join(other.stages)}{where}"]
    their_version = other.fingerprint.partition(":")[0]
    if not other.fingerprint:
        parts.append("settings unknown")
    elif their_version != version:
        parts.append(f"version {their_version}")
    return ", ".join(parts)
