"""Jinja2 templates, and rendering a whole page or one named block of it (for htmx)."""

from collections import OrderedDict
from collections.abc import Hashable
from functools import lru_cache
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2.runtime import Macro
from starlette.routing import Router

from app.config import PROJECT_ROOT
from app.web.static import static_url

templates = Jinja2Templates(directory=PROJECT_ROOT / "templates")


_router: list[Router] = []  # the application's, set by `bind_routes`


def bind_routes(router: Router) -> None:
    """Give url_for the route table (every app the factory builds has the same routes)."""
    _router[:] = [router]
    _path.cache_clear()
    vars(paths).clear()


def url_for(name: str, /, **params: Any) -> str:
    """Return the path (not the absolute URL) of a named route, so pages work behind any host.

    It needs no request, so macros import without context and Jinja caches them; paths are
    remembered, since the router tries each route in turn and a page asks for about twenty.
    Static files get their content-hashed name, which browsers may cache for good.
    """
    if name == "static":
        return static_url(params["path"])
    return _path(name, tuple(sorted(params.items())))


@lru_cache(maxsize=50_000)
def _path(name: str, params: tuple[tuple[str, Any], ...]) -> str:
    return str(_router[0].url_path_for(name, **dict(params)))


class _Paths:
    """The path of each route that takes no parameters, as an attribute: `paths.home`.

    A page names a dozen of them (the header's links); an attribute costs a template a
    fraction of a call. Each is asked of `url_for` once, then kept as an attribute.
    """

    def __getattr__(self, name: str) -> str:
        if name.startswith("__"):
            raise AttributeError(name)
        path = url_for(name)
        setattr(self, name, path)
        return path


class _Assets(dict[str, str]):
    """The URL of each static file, by its name: `assets['app.css']` (see `static_url`)."""

    def __missing__(self, path: str) -> str:
        url = self[path] = static_url(path)
        return url


paths, assets = _Paths(), _Assets()
templates.env.globals["url_for"] = url_for
templates.env.globals["paths"] = paths
templates.env.globals["assets"] = assets
templates.env.globals["app_name"] = "Studyhall"
templates.env.trim_blocks = True
templates.env.lstrip_blocks = True
# Templates change only with a deploy, which restarts the process: no stat() per render.
templates.env.auto_reload = False

# The shared components (components/macros.html: breadcrumbs, pagers, fields, ...) are there
# for every template, and for every block rendered on its own (htmx), without an import:
# an import costs more than most of what a page renders, on every render.
_components = templates.env.get_template("components/macros.html").module
templates.env.globals.update(
    (name, value) for name, value in vars(_components).items() if isinstance(value, Macro)
)


# Messages shown after a redirect: the URL names one of these, so no state is kept anywhere
# and nobody can make a page show text of their choosing.
FLASH = {
    "signed-up": "Welcome! Your account is ready and you are logged in.",
    "logged-in": "You are logged in.",
    "logged-out": "You are logged out.",
    "password-changed": (
        "Your password was changed. Other devices were logged out and your API tokens were revoked."
    ),
    "account-deleted": "Your account and everything in it were deleted.",
    "token-revoked": "The token was revoked; scripts using it can no longer sign in.",
    "role-changed": "The role was changed.",
    "reported": "Thank you: your report was sent to the authors.",
    "report-resolved": "The report was resolved.",
    "erratum-shown": "The report is now shown on its content as an erratum.",
    "erratum-hidden": "The erratum is no longer shown on its content.",
    "link-confirmed": "The link was confirmed: it stays whatever the similarity scores say.",
    "link-rejected": "The link was rejected: it will not be suggested again.",
}


def is_htmx(request: Request) -> bool:
    """Tell whether htmx sent the request (and wants a fragment back)."""
    return request.headers.get("hx-request") == "true"


def render(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    status_code: int = 200,
    block: str | None = None,
) -> HTMLResponse:
    """Render a page template, or only one of its blocks when block is given."""
    context = {
        "viewer": getattr(request.state, "viewer", None),
        "viewer_known": hasattr(request.state, "viewer"),
        "flash": FLASH.get(request.query_params.get("done", "")),
        **context,
    }
    if block is None:
        return templates.TemplateResponse(request, name, context, status_code=status_code)
    template = templates.get_template(name)
    ctx = template.new_context({"request": request, **context})
    html = "".join(template.blocks[block](ctx))
    return HTMLResponse(html, status_code=status_code)


_pages: OrderedDict[Hashable, tuple[object, bytes]] = OrderedDict()
PAGES_LIMIT = 512


def render_page(
    request: Request,
    name: str,
    context: dict[str, Any],
    *,
    source: object,
    key: Hashable,
    by_query: bool = False,
) -> HTMLResponse:
    """Render a whole page made from `source` (an immutable read model), reusing the result.

    The page is kept for its key, the address and who is asking (the header differs), for as
    long as the content cache hands out the same `source` object: a new object after a
    content change renders afresh. Pages with a query string are rendered every time, unless
    `by_query` says the query is part of what the page is (a search): then it is kept by its
    query too, and only a flash message makes it render afresh. Everything else a template
    shows must be in `key`.
    """
    if request.url.query and (not by_query or "done" in request.query_params):
        return render(request, name, context)
    viewer = getattr(request.state, "viewer", None)
    path = request.url.path if not by_query else f"{request.url.path}?{request.url.query}"
    full_key = (name, key, viewer, hasattr(request.state, "viewer"), path)
    kept = _pages.get(full_key)
    if kept is not None and kept[0] is source:
        _pages.move_to_end(full_key)
        return HTMLResponse(kept[1])
    response = render(request, name, context)
    _pages[full_key] = (source, bytes(response.body))
    while len(_pages) > PAGES_LIMIT:
        _pages.popitem(last=False)
    return response
