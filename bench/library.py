"""Write a large content library in the JSON export format, for the library benchmark.

    python bench/library.py OUT_DIR [--questions 50000] [--notes 200] [--seed 1]

writes OUT_DIR/library.json (by default 50 sets of 1,000 questions, 20 topics, 200 notes of
about ten sections; about 70 MB) and OUT_DIR/add-20.json (20 new questions in a set of their
own under one of the library's topics). The text is drawn from a technical vocabulary with a
few words particular to each topic, so suggested note links have something to find. The
same seed writes the same files, byte for byte.
"""

import argparse
import json
import random
from pathlib import Path
from typing import Any

FORMAT = "studyhall.content/1"
TOPICS, SETS, NOTES, SECTIONS = 20, 50, 200, 10
COMMON = """tensorrt engine inference model layer kernel precision latency throughput batch
tensor memory workspace builder runtime plugin network graph optimization profile shape
dynamic static calibration quantization accuracy performance deployment server client
request stream context execution device host transfer buffer allocation cache timing
tactic fusion convolution activation weights bias scale range sparsity pruning format
export import parser onnx operator node input output dimension axis broadcast reduction
""".split()
FILLER = """which what when how does should would must could first best main typical
common correct expected following given default recommended supported required optional
reason effect result benefit cost risk limit option setting value mode step stage
""".split()
PARTICULAR = """int8 fp16 fp32 tf32 bf16 fp8 int4 dla jetson orin xavier triton nvinfer
refit serialize deserialize timingcache polygraphy trtexec cudagraph multistream
ensemble batcher sequence backend repository scheduler instance concurrency mig
nsight profiler cupti roofline occupancy warp tensorcore sm l2 hbm nvlink pcie
qat ptq entropy minmax percentile histogram kl divergence symmetric asymmetric zeropoint
attention transformer bert gpt llama kvcache paged inflight speculative beam sampling
conv2d deconv pooling softmax layernorm gelu matmul gemm einsum gather scatter slice
reformat layout nchw nhwc chw32 hwc8 vectorized strided padding alignment
""".split()


class Writer:
    """Draw deterministic text: common words everywhere, a few particular to each topic."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        words = PARTICULAR[:]
        self.rng.shuffle(words)
        self.topic_words = [words[i::TOPICS] + [f"topic{i}term"] for i in range(TOPICS)]

    def words(self, topic: int, count: int) -> str:
        pick = self.rng.random
        out = []
        for _ in range(count):
            roll = pick()
            if roll < 0.15:
                out.append(self.rng.choice(self.topic_words[topic]))
            elif roll < 0.45:
                out.append(self.rng.choice(FILLER))
            else:  # a rough Zipf: early common words come up more often
                out.append(COMMON[int(len(COMMON) * pick() ** 2)])
        return " ".join(out)

    def sentence(self, topic: int, count: int) -> str:
        text = self.words(topic, count)
        return text[0].upper() + text[1:]


def topics() -> list[dict[str, Any]]:
    """Four areas, each with four subtopics (20 topics)."""
    items = []
    for area in range(4):
        items.append({"slug": f"area-{area + 1}", "title": f"Area {area + 1}", "parent": None})
        for sub in range(4):
            slug = f"area-{area + 1}-part-{sub + 1}"
            title = f"Area {area + 1}, part {sub + 1}"
            items.append({"slug": slug, "title": title, "parent": f"area-{area + 1}"})
    return [{**t, "description": f"Questions and notes of {t['title']}."} for t in items]


def question(writer: Writer, set_slug: str, key: int, topic: str, index: int) -> dict[str, Any]:
    """One single-answer question of four choices, sometimes linked to a note section."""
    correct = writer.rng.randrange(4)
    notes = []
    if writer.rng.random() < 0.02:
        notes = [f"note-{writer.rng.randrange(NOTES) + 1}#section-{writer.rng.randrange(3) + 1}"]
    return {
        "id": f"{set_slug}/{key}",
        "set": set_slug,
        "topic": topic,
        "stem": writer.sentence(index, 22) + "?",
        "choices": [
            {"text": writer.sentence(index, 11), "correct": n == correct} for n in range(4)
        ],
        "explanation": writer.sentence(index, 46) + ".",
        "kind": "single",
        "source": "",
        "notes": notes,
    }


def note(writer: Writer, number: int, topic: str, index: int) -> dict[str, Any]:
    """A note of an introduction and ten sections headed `Section N`."""
    parts = [writer.sentence(index, 30) + "."]
    for section in range(1, SECTIONS + 1):
        paragraphs = [writer.sentence(index, 45) + "." for _ in range(3)]
        parts += [f"## Section {section}", *paragraphs]
    return {
        "slug": f"note-{number}",
        "title": f"Note {number}: {writer.words(index, 4)}",
        "author": "bench",
        "topic": topic,
        "source": "",
        "markdown": "\n\n".join(parts) + "\n",
    }


def library(seed: int, questions: int, notes: int = NOTES) -> dict[str, Any]:
    """Build the library document (with `notes` notes of ten sections)."""
    writer = Writer(seed)
    tree = topics()
    per_set = -(-questions // SETS)
    sets, items = [], []
    for s in range(SETS):
        index = s % TOPICS
        slug = f"set-{s + 1}"
        sets.append({"slug": slug, "title": f"Set {s + 1}", "source": "", "topic": None})
        sets[-1]["topic"] = tree[index]["slug"]
        for key in range(1, min(per_set, questions - s * per_set) + 1):
            items.append(question(writer, slug, key, tree[index]["slug"], index))
    written = [note(writer, n + 1, tree[n % TOPICS]["slug"], n % TOPICS) for n in range(notes)]
    return {"format": FORMAT, "topics": tree, "question_sets": sets, "questions": items} | {
        "notes": written
    }


def additions(seed: int) -> dict[str, Any]:
    """Twenty new questions in a new set under the library's first subtopic."""
    writer = Writer(seed + 1)
    topic = topics()[1]
    slug = "additions"
    return {
        "format": FORMAT,
        "topics": [topic],
        "question_sets": [{"slug": slug, "title": "Additions", "topic": topic["slug"]}],
        "questions": [question(writer, slug, n, topic["slug"], 1) for n in range(1, 21)],
        "notes": [],
    }


def write(
    folder: Path, seed: int = 1, questions: int = 50_000, notes: int = NOTES
) -> tuple[Path, Path]:
    """Write library.json and add-20.json into folder; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = folder / "library.json", folder / "add-20.json"
    documents = (library(seed, questions, notes), additions(seed))
    for path, document in zip(paths, documents, strict=True):
        path.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description="Write a large library in the JSON format.")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--questions", type=int, default=50_000)
    parser.add_argument("--notes", type=int, default=NOTES, help="notes of ten sections each")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for path in write(args.folder, args.seed, args.questions, args.notes):
        print(f"{path}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
