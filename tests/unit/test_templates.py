"""`haygate init`'s templates: a new project's tool speaks of documentation in general, never of the example
project's corpus, and its examples fit the bundled samples."""

import re
from pathlib import Path

import yaml

from haygate.templates import init_project

OTHER_CORPUS = re.compile(r"haystack|deepset|serializ|pipeline to yaml|documentsplitter|\b3\.0\b", re.IGNORECASE)


def test_the_minimal_project_s_tool_describes_no_other_corpus(tmp_path: Path) -> None:
    init_project(tmp_path / "mine", "minimal")
    text = (tmp_path / "mine" / "configs" / "tools" / "search_docs.yaml").read_text()
    assert not OTHER_CORPUS.search(text), OTHER_CORPUS.search(text)
    declaration = yaml.safe_load(text)
    samples = "".join(p.read_text() for p in (tmp_path / "mine" / "samples" / "docs").glob("*.md"))
    for name in ("source", "version"):  # the filter examples are values the samples hold
        [value] = declaration["parameters"][name]["examples"]
        assert f"{name}: {value}" in samples or f'{name}: "{value}"' in samples, (name, value)
    assert set(declaration["parameters"]) == set(
        yaml.safe_load((Path(__file__).resolve().parents[2] / "configs" / "tools" / "search_docs.yaml").read_text())[
            "parameters"
        ]
    )  # the same parameters, types and bounds as the example's: only the words differ
