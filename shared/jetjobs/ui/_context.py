"""The operations page's state (the deployment it looks at) and how its pages are rendered."""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any
from urllib.parse import quote

from nats.aio.client import Client as NATS
from starlette.requests import Request
from starlette.responses import Response

from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._settings import Settings
from jetjobs._transport.topology import Topology
from jetjobs._wire.timespec import rfc3339
from jetjobs.ui import _overview as overview
from jetjobs.ui._access import CSRF_FIELD
from jetjobs.ui._dead_index import DeadLetterIndex
from jetjobs.ui._pages import TEMPLATES, templates
from jetjobs.ui._sections import REFRESH_EVERY, filter_query

PAGES = templates(
    TEMPLATES / "ops",
    globals_={
        "rfc3339": rfc3339,
        "quote": quote,
        "refresh_every": REFRESH_EVERY,
        "filter_query": filter_query,
    },
)
_RENDERINGS_KEPT = 64


class Ops:
    """The deployment the page looks at, whether it may change anything, and its caches."""

    def __init__(
        self,
        nc: NATS,
        settings: Settings,
        *,
        allow_actions: bool,
        throughput: overview.Throughput | None = None,
    ) -> None:
        self.nc = nc
        self.settings = settings
        self.allow_actions = allow_actions
        self.topology = Topology(settings)
        self.throughput = throughput or overview.Throughput(nc, self.topology)
        self.index = DeadLetterIndex(nc.jetstream(), self.topology)
        # How many times each section was rendered (the work an unchanged refresh must not do).
        self.renders: Counter[str] = Counter()
        self.rendered: OrderedDict[str, str] = OrderedDict()  # ETag -> HTML, the latest few
        self._dead: DeadLetters | None = None

    async def dead_letters(self) -> DeadLetters:
        """The namespace's dead letters (provisions the base streams on first use)."""
        if self._dead is None:
            js = self.nc.jetstream()
            await self.topology.ensure_base(js)
            self._dead = DeadLetters(js, self.topology, Ledger(await self.topology.status_kv(js)))
        return self._dead

    def keep(self, etag: str, html: str) -> None:
        """Remember a fragment's rendering under its ETag (a few, the newest)."""
        self.rendered[etag] = html
        self.rendered.move_to_end(etag)
        while len(self.rendered) > _RENDERINGS_KEPT:
            self.rendered.popitem(last=False)


def ops_of(request: Request) -> Ops:
    """The page's `Ops`."""
    ops: Ops = request.app.state.ops
    return ops


def page_context(request: Request, **context: Any) -> dict[str, Any]:
    """What every operations template sees, plus `context`."""
    ops = ops_of(request)
    return context | {"ops": ops, "namespace": ops.settings.namespace, "actions": ops.allow_actions}


def render(request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
    """A whole page from `templates/ops/NAME`."""
    return PAGES.TemplateResponse(request, name, page_context(request, **context), status_code=status_code)


def render_text(request: Request, name: str, **context: Any) -> str:
    """A template's HTML as text (for a fragment)."""
    fixed = {
        "request": request,
        "csrf_field": CSRF_FIELD,
        "csrf_token": request.app.state.csrf_token,
        "page_title": request.app.state.page_title,
    }
    return PAGES.get_template(name).render(page_context(request, **context) | fixed)
