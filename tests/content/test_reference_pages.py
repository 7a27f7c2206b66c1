"""References show under the explanation, as links to the source that leave no way back in."""

from app.web.headers import CONTENT_SECURITY_POLICY
from tests.factories import choice_ids, cite, count_queries, question_id, tags

GUIDE = {
    "title": "TensorRT Developer Guide: Working with Quantized Types",
    "url": "https://docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/work-quantized-types.html?a=1&b=2",
    "version": "TensorRT 10.x",
}
BARE = {"url": "https://docs.nvidia.com/deeplearning/tensorrt/release-notes/index.html"}


def sources(html: str) -> list[dict[str, str | None]]:
    """The links in the page's list of sources."""
    start = html.index('<ul class="sources">')
    return tags(html[start : html.index("</ul>", start)], "a")


def test_practice_feedback_shows_each_source_with_its_version(client, seeded):
    cite(seeded, "3", GUIDE, BARE)
    qid = question_id(seeded, "3")
    assert "Source:" not in client.get(f"/questions/{qid}").text  # only with the feedback
    right, _ = choice_ids(seeded, "3")
    html = client.post(f"/questions/{qid}", data={"choice": str(right)}).text
    assert html.index('class="prose explanation"') < html.index('<ul class="sources">')
    assert html.index('<ul class="sources">') < html.index("Learn more in the notes")
    links = sources(html)
    assert [link["href"] for link in links] == [GUIDE["url"], BARE["url"]]
    assert all(set(str(link["rel"]).split()) >= {"noopener", "noreferrer"} for link in links)
    assert f'Source: <a href="{GUIDE["url"].replace("&", "&amp;")}"' in html
    assert f">{GUIDE['title']}</a> (TensorRT 10.x)</li>" in html
    assert f">{BARE['url']}</a></li>" in html  # no title: the address; no version: nothing


def test_the_htmx_feedback_block_shows_the_sources(client, seeded):
    cite(seeded, "3", GUIDE)
    qid = question_id(seeded, "3")
    _, wrong = choice_ids(seeded, "3")
    response = client.post(
        f"/questions/{qid}", data={"choice": str(wrong[0])}, headers={"HX-Request": "true"}
    )
    assert response.text.lstrip().startswith('<div id="practice"')
    assert [link["href"] for link in sources(response.text)] == [GUIDE["url"]]


def test_a_question_without_references_shows_no_sources(client, seeded):
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    html = client.post(f"/questions/{qid}", data={"choice": str(right)}).text
    assert "Correct!" in html and "Source:" not in html and 'class="sources"' not in html


def test_reference_text_is_shown_as_text_under_the_usual_headers(client, seeded):
    cite(seeded, "3", {**GUIDE, "title": "<script>alert(1)</script>", "version": "<b>10</b>"})
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    response = client.post(f"/questions/{qid}", data={"choice": str(right)})
    assert "&lt;script&gt;alert(1)&lt;/script&gt;</a> (&lt;b&gt;10&lt;/b&gt;)" in response.text
    assert "<script>alert" not in response.text
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_references_cost_the_question_page_no_query(app, client, seeded):
    page = f"/questions/{question_id(seeded, '3')}"
    with count_queries(app) as without:
        assert client.get(page).status_code == 200
    cite(seeded, "3", GUIDE, BARE, {"url": "https://docs.nvidia.com/third"})
    with count_queries(app) as cited:
        assert client.get(page).status_code == 200
    assert len(cited) == len(without) == 2
    with count_queries(app) as graded:
        html = client.get(f"{page}?choice={choice_ids(seeded, '3')[0]}").text
    assert len(sources(html)) == 3
    assert len(graded) == 3  # the page, its note links, and the answer key


def test_the_check_api_returns_the_sources_and_the_question_api_does_not(client, seeded):
    cite(seeded, "3", GUIDE, BARE)
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    assert "references" not in client.get(f"/api/v1/questions/{qid}").json()
    body = client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]}).json()
    assert body["references"] == [GUIDE, {"title": None, **BARE, "version": None}]
