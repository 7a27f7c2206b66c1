"""GIFT categories: `$CATEGORY: a/b/c` paths turned into topics and a question set each.

Path `a/b/c` makes topics `a`, `a-b` (under `a`) and `a-b-c` (under `a-b`), each titled with
its own name; Moodle's `$course$`-like prefixes and a leading "top" are dropped, and `//` is
a slash in a name. A category's questions go into a set with the deepest topic's slug, titled
with the path ("a / b / c"); questions before any category into a set named after the file.
"""

import re

from app.content.bundle import Bundle, QuestionData, QuestionSetData, TopicData
from app.content.markdown import slugify
from app.importers.errors import ImportRefused
from app.importers.keys import file_set, text_key, title_key

_MOODLE_PREFIX = re.compile(r"^\$\w*\$$")


class Catalogue:
    """The topics, and a question set per category, gathered as the file is read."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.topics: dict[str, tuple[TopicData, tuple[str, ...]]] = {}
        self.sets: dict[str, QuestionSetData] = {}
        self.current: QuestionSetData | None = None
        self.keys: dict[tuple[str, str], int] = {}

    def category(self, raw: str, line: int) -> None:
        """Make the category's topics (a/b/c: three) and its set the current one."""
        file = self.file
        path = _path(raw)
        if not path:
            self.current = None
            return
        parent: str | None = None
        for depth in range(1, len(path) + 1):
            slug = "-".join(slugify(name) for name in path[:depth])
            known = self.topics.get(slug)
            if known is not None and known[1] != path[:depth]:
                raise ImportRefused(
                    file,
                    line,
                    f"the category {' / '.join(path[:depth])!r} gives the topic slug {slug!r}, "
                    f"as {' / '.join(known[1])!r} on line {known[0].line} does; rename one",
                )
            if known is None:
                topic = TopicData(slug=slug, title=path[depth - 1], parent=parent, line=line)
                self.topics[slug] = (topic, path[:depth])
            parent = slug
        assert parent is not None
        title = " / ".join(path) if len(" / ".join(path)) <= 200 else path[-1][:200]
        self.current = self.sets.setdefault(
            parent, QuestionSetData(parent, title, source=file, topic=parent, line=line)
        )

    def add(self, title: str | None, data: QuestionData) -> None:
        """Add a question to the current set, keyed by its title or else its text."""
        file = self.file
        if self.current is None:
            self.current = file_set(file, data.line)
            self.current = self.sets.setdefault(self.current.slug, self.current)
        qset = self.current
        data.key = title_key(title) if title else text_key(data.stem)
        data.topic = qset.topic
        first = self.keys.setdefault((qset.slug, data.key), data.line)
        if first != data.line:
            what = f"the title {title!r}" if title else "the same text"
            raise ImportRefused(
                file,
                data.line,
                f"a question with {what} is already on line {first} in this category "
                f"(key {data.key!r}); questions are matched by title, or by text when "
                "untitled, so give it another",
            )
        qset.questions.append(data)

    def bundle(self) -> Bundle:
        """The topics, and the sets that received a question."""
        return Bundle(
            topics=[topic for topic, _ in self.topics.values()],
            question_sets=[qset for qset in self.sets.values() if qset.questions],
        )


def _path(raw: str) -> tuple[str, ...]:
    """Split a category path at '/' ('//' is a slash in a name), without Moodle's prefixes."""
    parts = raw.replace("//", "\ue008").split("/")
    names = [" ".join(part.replace("\ue008", "/").split()) for part in parts]
    names = [name for name in names if name]
    while names and _MOODLE_PREFIX.match(names[0]):
        names.pop(0)
    if names and names[0] == "top":
        names.pop(0)
    return tuple(names)
