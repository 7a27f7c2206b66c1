"""A learner reads the Sparsity guide's "Test yourself" lists: the questions an author linked
and the strong suggestions, the latter marked "Related"; never the word "suggested"."""

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.support import assert_accessible, assert_no_horizontal_scroll

GUIDE = "/notes/sparsity-guide"
FIRST = "#what-2-4-structured-sparsity-means"  # 5 linked by an author, 3 weak suggestions
MEASURING = "#measuring-with-trtexec"  # 3 linked by an author, 2 strong suggestions


@pytest.fixture(params=[{"width": 1280, "height": 900}, {"width": 390, "height": 844}])
def guide(shipped_server: dict[str, str], browser: Browser, request) -> Iterator[Page]:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=shipped_server["url"], viewport=request.param)
    page = context.new_page()
    page.goto(GUIDE)
    yield page
    context.close()


def test_the_guide_lists_linked_questions_and_strong_suggestions_as_related(guide: Page) -> None:
    first = guide.locator(FIRST).get_by_role("complementary", name="Questions on")
    expect(first.get_by_role("listitem")).to_have_count(5)
    expect(first.get_by_text("Related", exact=True)).to_have_count(0)
    measuring = guide.locator(MEASURING).get_by_role("complementary", name="Questions on")
    expect(measuring.get_by_role("listitem")).to_have_count(5)
    expect(measuring.get_by_text("Related", exact=True)).to_have_count(2)
    expect(guide.get_by_text("suggested")).to_have_count(0)
    assert_accessible(guide, "the guide, as a learner")
    assert_no_horizontal_scroll(guide, "the guide, as a learner")
