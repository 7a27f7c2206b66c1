"""Jinja2 templates, and rendering a whole page or one named block of it (for htmx)."""

from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context

from app.config import PROJECT_ROOT

templates = Jinja2Templates(directory=PROJECT_ROOT / "templates")


@pass_context
def url_for(context: Any, name: str, /, **params: Any) -> str:
    """Return the path (not the absolute URL) of a named route, so pages work behind any host."""
    return str(context["request"].app.url_path_for(name, **params))


templates.env.globals["url_for"] = url_for
templates.env.globals["app_name"] = "Studyhall"
templates.env.trim_blocks = True
templates.env.lstrip_blocks = True


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
    if block is None:
        return templates.TemplateResponse(request, name, context, status_code=status_code)
    template = templates.get_template(name)
    ctx = template.new_context({"request": request, **context})
    html = "".join(template.blocks[block](ctx))
    return HTMLResponse(html, status_code=status_code)
