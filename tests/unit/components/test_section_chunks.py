"""`SectionChunks`: sections cut into pieces that fit the model, by its own tokenizer."""

from typing import Any

import pytest
from haystack import Document

from haygate.components.section_chunks import SectionChunks
from haygate.errors import ConfigurationError

LONG = "\n\n".join(
    f"Paragraph {n}: the cache keeps every tarball it has fetched. It is verified on read." for n in range(40)
)


class TestSectionChunks:
    def test_init_defaults_and_refuses_a_window_too_small(self) -> None:
        chunks = SectionChunks()
        assert (chunks.model, chunks.max_tokens, chunks.title_field) == (
            "sentence-transformers/all-MiniLM-L6-v2",
            None,
            "title",
        )
        with pytest.raises(ConfigurationError, match="max_tokens"):
            SectionChunks(max_tokens=8)

    def test_to_dict(self) -> None:
        assert SectionChunks(max_tokens=384).to_dict() == {
            "type": "haygate.components.section_chunks.SectionChunks",
            "init_parameters": {
                "model": "sentence-transformers/all-MiniLM-L6-v2",
                "max_tokens": 384,
                "title_field": "title",
                "separator": "\n",
            },
        }

    def test_from_dict(self) -> None:
        assert SectionChunks.from_dict(SectionChunks(max_tokens=300).to_dict()).max_tokens == 300

    def test_run_cuts_a_long_section_into_pieces_that_fit_with_their_title(self) -> None:
        chunks = SectionChunks(max_tokens=128)
        section = Document(id="guide.md#Cache", content=LONG, meta={"title": "Caching > How it works", "x": 1})
        [short] = chunks.run([Document(id="guide.md#Intro", content="Short.", meta={"title": "Intro"})])["documents"]
        assert short.id == "guide.md#Intro" and short.content == "Short."  # whole: its own id, no chunk meta
        pieces: list[Any] = chunks.run([section])["documents"]
        title_tokens = chunks.count("Caching > How it works\n")
        assert len(pieces) > 1
        assert [p.id for p in pieces] == [f"guide.md#Cache#chunk{n}" for n in range(len(pieces))]
        assert all(p.meta["chunk_count"] == len(pieces) and p.meta["x"] == 1 for p in pieces)
        assert all(chunks.count(p.content) + title_tokens + 2 <= 128 for p in pieces)
        assert " ".join(p.content for p in pieces).split() == LONG.split()  # every word once

    def test_run_leaves_its_input_untouched(self) -> None:
        section = Document(id="a#b", content=LONG, meta={"title": "T"})
        SectionChunks(max_tokens=64).run([section])
        assert section.content == LONG and section.id == "a#b" and "chunk_index" not in section.meta


def test_each_text_is_encoded_once_per_run() -> None:
    """A block is counted as a block, then again as a window's part: the tokenizer sees each text once (half
    of planning a corpus's ids was those second encodes), and the windows are the same."""
    chunker = SectionChunks(max_tokens=64)
    chunker.warm_up()
    sections = [Document(id=f"s{n}", content=LONG, meta={"title": "Cache"}) for n in range(2)]
    sections.append(Document(id="short", content="One short paragraph.", meta={"title": "Cache"}))
    expected = [(d.id, d.content) for d in chunker.run(sections)["documents"]]

    encoded: list[str] = []
    tokenizer = chunker._tokenizer

    class Counting:
        def encode(self, text: str, **kwargs: Any) -> Any:
            encoded.append(text)
            return tokenizer.encode(text, **kwargs)

    chunker._tokenizer = Counting()
    assert [(d.id, d.content) for d in chunker.run(sections)["documents"]] == expected
    assert len(expected) > 3 and len(encoded) == len(set(encoded)), len(encoded) - len(set(encoded))
