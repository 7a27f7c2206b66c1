from collections.abc import Callable
from types import ModuleType

import pytest


@pytest.fixture
def text_searches(monkeypatch) -> Callable[[ModuleType], list[str]]:
    """Count an importer's line look-ups that read its text from the start (a pass each):
    `searches = text_searches(errata)`, then parse, then look at `searches`."""

    def watch(module: ModuleType) -> list[str]:
        searches: list[str] = []
        for name in ("line_at", "first_line_with"):
            real = getattr(module, name)

            def counted(text, at, real=real, name=name):
                searches.append(name)
                return real(text, at)

            monkeypatch.setattr(module, name, counted)
        return searches

    return watch
