"""The bare app every benchmark figure is compared to: FastAPI, one constant page, no middleware.

It runs in a process of its own with the same uvicorn options as Studyhall, so a ratio says
what Studyhall's routing, middleware, database and templates cost over the framework itself.
The page is about the size of a question page.
"""

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

PAGE = "<!doctype html><title>bare</title>" + "<p>Studyhall bench bare page.</p>" * 200


def create_bare_app() -> FastAPI:
    """Build the bare app: GET / answers a constant page."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/", response_class=HTMLResponse)
    async def page() -> HTMLResponse:
        return HTMLResponse(PAGE)

    return app
