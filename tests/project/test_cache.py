"""The tests' build cache (`tests/support/cache.py`) is keyed by every file a build reads, so a cached build is never
stale: a new top-level entry of the checkout must be either an input of the sample build or named here, with why the
build does not read it."""

import subprocess

from tests.support.project import PROJECT
from tests.support.samples import SAMPLES_INPUTS

NOT_READ_BY_THE_SAMPLES_BUILD = {
    ".ci": "CI's entry point",
    ".gitignore": "git's",
    "MANIFEST.in": "what the sdist carries",
    "Makefile": "the commands that run the build, not what it reads",
    "README.md": "documentation",
    "docs": "documentation",
    "mkdocs.yml": "the documentation site",
    "evaluation": "judged sets: evaluations ingest their own corpora",
    "scripts": "benchmarks and studies",
    "server.py": "the served entry point; an ingest does not start a server",
    "setup.py": "packaging",
    "tests": "the tests themselves, but for tests/support/samples.py and project.py, which hold the build (inputs)",
}


def test_every_tracked_top_level_entry_is_an_input_of_the_samples_build_or_says_why_not() -> None:
    listed = subprocess.run(["git", "ls-files"], cwd=PROJECT, capture_output=True, text=True, check=True).stdout
    tracked = {line.split("/")[0] for line in listed.splitlines()}
    inputs = {path.relative_to(PROJECT).parts[0] for path in SAMPLES_INPUTS}
    assert tracked - inputs - set(NOT_READ_BY_THE_SAMPLES_BUILD) == set(), "unaccounted for: a build input or not?"
    assert not set(NOT_READ_BY_THE_SAMPLES_BUILD) - tracked, "a stale entry"
    assert {"components", "haygate", "samples", "configs", "pipelines"} <= inputs
