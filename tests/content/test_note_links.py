"""A question's linked note sections come with the start of each section."""

from app.content.markdown import excerpt
from tests.factories import choice_ids, question_id


def test_excerpt_is_plain_text_cut_after_a_word():
    assert excerpt("1. **Support:** FP32 & <b>FP16</b>") == "Support: FP32 & <b>FP16</b>"
    long = excerpt("word " * 100, limit=22)
    assert long == "word word word word…"


def test_an_answered_question_shows_an_excerpt_of_each_linked_section(client, seeded):
    qid = question_id(seeded, "3")
    right, _ = choice_ids(seeded, "3")
    html = client.get(f"/questions/{qid}", params={"choice": right}).text
    links = html[html.index("Learn more in the notes") :]
    assert '<p class="excerpt">Support: FP32, FP16, and INT8.' in links
    body = client.post(f"/api/v1/questions/{qid}/check", json={"choice_ids": [right]}).json()
    mixed = next(n for n in body["notes"] if n["anchor"] == "working-with-mixed-precision")
    assert mixed["excerpt"].startswith("Support: FP32, FP16, and INT8.")
    assert mixed["excerpt"].endswith("…") and len(mixed["excerpt"]) <= 161
