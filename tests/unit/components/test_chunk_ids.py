from haystack import Document
from haystack.components.preprocessors.document_splitter import DocumentSplitter

from haygate.components.chunk_ids import ChunkIds


def split(*documents: Document) -> list[Document]:
    splitter = DocumentSplitter(split_by="word", split_length=220, split_overlap=30)
    return splitter.run(list(documents))["documents"]


class TestChunkIds:
    def test_to_dict_and_from_dict(self) -> None:
        assert ChunkIds().to_dict() == {
            "type": "haygate.components.chunk_ids.ChunkIds",
            "init_parameters": {"separator": " "},
        }
        assert ChunkIds.from_dict(ChunkIds().to_dict()).separator == " "

    def test_run_gives_stable_chunk_ids(self) -> None:
        words = [f"w{i}" for i in range(500)]
        long = Document(id="long", content=" ".join(words), meta={"record_id": "long"})
        short = Document(id="short", content="a few words", meta={"record_id": "short"})
        chunks = ChunkIds().run(split(long, short))["documents"]
        assert [c.id for c in chunks] == ["long#chunk0", "long#chunk1", "long#chunk2", "short"]
        assert [c.meta.get("chunk_index") for c in chunks] == [0, 1, 2, None]
        assert {c.meta.get("chunk_count") for c in chunks[:3]} == {3}
        # word windows of 220 with 30 overlapping, exactly the words, no trailing separator
        assert [c.content for c in chunks[:3]] == [
            " ".join(words[0:220]),
            " ".join(words[190:410]),
            " ".join(words[380:500]),
        ]
        assert chunks[3].content == "a few words" and chunks[3].meta == {"record_id": "short"}
