"""The real application plus the bare endpoint that every benchmark figure is compared to."""

from fastapi import FastAPI

from app.main import create_app

BARE_BODY = {"status": "ok"}


def create_bench_app() -> FastAPI:
    """Build the real app with GET /bench/bare, served through the same middleware."""
    app = create_app()

    @app.get("/bench/bare", include_in_schema=False)
    async def bare() -> dict[str, str]:
        """Answer a constant: the floor of what any route costs."""
        return BARE_BODY

    return app
