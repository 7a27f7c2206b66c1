"""The set-up files agree: the lock pins every dependency pyproject.toml declares, with hashes,
and the Docker image installs and starts the way `make run` does."""

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from app.config import PROJECT_ROOT

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)


def _pins(name: str) -> dict[str, str]:
    text = (PROJECT_ROOT / "requirements" / name).read_text()
    return {canonicalize_name(package): version for package, version in PIN.findall(text)}


def _declared(extra: str | None = None) -> set[str]:
    project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]
    listed = project["optional-dependencies"][extra] if extra else project["dependencies"]
    return {canonicalize_name(Requirement(line).name) for line in listed}


@pytest.mark.parametrize(
    ("lock", "extras"), [("runtime.txt", [None]), ("test.txt", [None, "test"])]
)
def test_the_lock_pins_every_declared_dependency(lock, extras):
    pins = _pins(lock)
    for extra in extras:
        assert _declared(extra) <= set(pins), f"{lock} misses {_declared(extra) - set(pins)}"
    assert "setuptools" in pins  # the project is built in place without fetching a backend


def test_the_runtime_pins_are_the_test_pins():
    runtime, test = _pins("runtime.txt"), _pins("test.txt")
    assert {name: test.get(name) for name in runtime} == runtime


@pytest.mark.parametrize("lock", ["runtime.txt", "test.txt"])
def test_every_pin_carries_hashes(lock):
    text = (PROJECT_ROOT / "requirements" / lock).read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n\n", 1)[-1])
    for entry in entries:
        if PIN.match(entry):
            assert "--hash=sha256:" in entry, entry.splitlines()[0]


def _studyhall_commands(text: str) -> list[list[str]]:
    """Each `studyhall ...` command in text, without its --host and --port values."""
    commands = []
    for match in re.finditer(r"studyhall ([a-z-]+(?: --[a-z-]+(?: [^\s&\"]+)?)*)", text):
        words = match.group(1).split()
        kept = [w for i, w in enumerate(words) if not (i and words[i - 1] in {"--host", "--port"})]
        commands.append([w for w in kept if w not in {"--host", "--port"}])
    return commands


def test_the_image_starts_as_make_run_does():
    makefile = (PROJECT_ROOT / "Makefile").read_text()
    recipe = makefile.split("\nrun: install\n", 1)[1].split("\n\n", 1)[0]
    dockerfile = (PROJECT_ROOT / "Dockerfile").read_text()
    cmd = next(line for line in dockerfile.splitlines() if line.startswith("CMD "))
    expected = [["migrate"], ["seed", "--if-changed"], ["serve"]]
    assert _studyhall_commands(recipe) == expected
    assert _studyhall_commands(cmd) == expected
    assert "--require-hashes --no-deps -r requirements/runtime.txt" in dockerfile
    assert "--require-hashes --no-deps -r requirements/runtime.txt" in makefile
