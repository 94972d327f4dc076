"""jetjobs' web pages: the operations page (`jetjobs ui`) and the kit other pages build on.

The kit (public, for any page built on jetjobs, e.g. the pipeline's review page):

- `build_app(routes, title=..., token=..., loopback=...)`: a Starlette app with the base
  template, the vendored `/static/jetjobs.js` and `jetjobs.css`, a CSRF token and the access guard;
- `templates(*dirs)`: autoescaping Jinja2 templates that can extend `base.html`;
- `checked_form(request)`: a POST's form once its CSRF token and origin are checked;
- `bind(host, port)`, `access_token(host, token)`, `serve(app, sock, ...)`: loopback by
  default, a token whenever the address is not loopback.

The operations page itself is `jetjobs.ui._ops.build_ops_app`.
"""

from jetjobs.ui._access import CSRF_FIELD, checked_form, is_loopback
from jetjobs.ui._pages import build_app, seconds_text, templates
from jetjobs.ui._server import access_token, bind, serve

__all__ = [
    "CSRF_FIELD",
    "access_token",
    "bind",
    "build_app",
    "checked_form",
    "is_loopback",
    "seconds_text",
    "serve",
    "templates",
]
