"""Missing pages get the friendly error page, which must be as accessible as the rest."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.support import assert_accessible


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/questions/999999", "There is no question number 999999."),
        ("/no/such/page", "We could not find that page."),
    ],
)
def test_missing_page_shows_the_friendly_404(page: Page, path: str, message: str) -> None:
    """A 404 status, a plain-language page in the site's layout, and a way back home."""
    response = page.goto(path)
    assert response is not None
    assert response.status == 404
    expect(page).to_have_title(re.compile(r"^Page not found · "))
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    expect(page.get_by_text("Error 404")).to_be_visible()
    expect(page.get_by_role("main")).to_contain_text(message)
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()
    assert_accessible(page, "404")

    page.get_by_role("link", name="Go to the home page").click()
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Study for your certification")
