"""Front matter and the first heading of a Markdown file."""

import pytest

from haygate.text.markdown import FrontMatterError, first_heading, split_front_matter


def test_front_matter_and_body() -> None:
    front, body, line = split_front_matter("---\ntitle: Guide\nversion: '2.0'\n---\n# Guide\nIntro.\n")
    assert front == {"title": "Guide", "version": "2.0"} and body == "# Guide\nIntro." and line == 5
    assert split_front_matter("# No front matter") == ({}, "# No front matter", 1)


def test_broken_front_matter_is_named() -> None:
    with pytest.raises(FrontMatterError, match="never ends"):
        split_front_matter("---\ntitle: x\n")
    with pytest.raises(FrontMatterError, match="invalid front matter"):
        split_front_matter("---\n: [\n---\nbody")


def test_first_heading_skips_code_fences() -> None:
    assert first_heading("```bash\n# not a heading\n```\n## Real one ##\n") == "Real one"
    assert first_heading("no headings") is None
