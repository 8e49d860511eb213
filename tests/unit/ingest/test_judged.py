"""Which judged id a result counts as (`haygate.ingest.judged`): the most specific of its ancestors a query
judged: itself, its section, its record."""

import json
import subprocess
import sys
from pathlib import Path

from haystack import Document

from haygate import __version__
from haygate.ingest.judged import CorpusIds, ancestors, counted_as, graded_id

CHUNK = "file:guide.md#Install/From source#chunk2"
SECTION, RECORD = "file:guide.md#Install/From source", "file:guide.md"


def test_a_chunk_has_its_section_and_its_record_as_ancestors() -> None:
    assert ancestors(CHUNK, RECORD) == [CHUNK, SECTION, RECORD]
    assert ancestors(SECTION, RECORD) == [SECTION, RECORD]  # a section left whole is its own section
    assert ancestors(RECORD, RECORD) == [RECORD]  # a record indexed whole


def test_a_result_counts_as_the_most_specific_ancestor_its_query_judged() -> None:
    chain = ancestors(CHUNK, RECORD)
    assert counted_as(chain, {RECORD: 2}) == RECORD  # the file was judged: any of its sections finds it
    assert counted_as(chain, {SECTION: 3, RECORD: 1}) == SECTION
    assert counted_as(chain, {"file:other.md": 2}) == CHUNK  # judged nothing it is part of: itself, a miss


def test_a_judge_grades_by_record_or_section() -> None:
    assert graded_id(CHUNK, RECORD, "record") == RECORD
    assert graded_id(CHUNK, RECORD, "section") == SECTION
    assert graded_id(CHUNK, None, "record") == SECTION  # no record known: the section


def test_an_unknown_judged_id_gets_the_closest_real_ones() -> None:
    corpus = CorpusIds.of_documents(
        [
            Document(id=f"{SECTION}#chunk0", content="a", meta={"record_id": RECORD}),
            Document(id="file:faq.md#FAQ", content="b", meta={"record_id": "file:faq.md"}),
        ]
    )
    assert corpus.names(RECORD) and corpus.names(SECTION) and corpus.names(f"{SECTION}#chunk0")
    assert corpus.unknown([RECORD, "file:guides.md", SECTION]) == {"file:guides.md": [RECORD, "file:faq.md", SECTION]}
    assert corpus.examples() == {"record": "file:faq.md", "section": "file:faq.md#FAQ"}


def test_an_id_an_earlier_version_wrote_is_mapped_to_the_sections_id_now() -> None:
    """Earlier ids kept a heading's attribute list (`Request Files { #request-files }`) and named every section
    by its heading path; an author's anchor names it now."""
    page = "file:tutorial/request-files.md"
    corpus = CorpusIds.of_documents(
        [
            Document(
                id=f"{page}#request-files",
                content="a",
                meta={"record_id": page, "heading_path": ["Upload", "Request Files"]},
            ),
            Document(
                id=f"{page}#Upload/Sizes#chunk1",
                content="b",
                meta={"record_id": page, "heading_path": ["Upload", "Sizes"]},
            ),
        ]
    )
    assert corpus.current(f"{page}#Upload {{ #upload }}/Request Files {{ #request-files }}") == f"{page}#request-files"
    assert corpus.current(f"{page}#Upload/Request Files") == f"{page}#request-files"  # by its heading path
    assert corpus.current(f"{page}#Upload {{ #upload .big }}/Sizes") == f"{page}#Upload/Sizes"
    assert corpus.current(f"{page}#Upload/Weights") is None and corpus.current("file:other.md#Upload/Sizes") is None


def test_planned_ids_are_kept_whole_and_read_back_only_as_kept(tmp_path: Path) -> None:
    """`haygate eval` keeps a corpus's planned ids between runs: read back as written; anything else (nothing,
    a torn or foreign file, another haygate's) reads as nothing kept, so the corpus is planned again."""
    corpus = CorpusIds.of_documents(
        [Document(id=f"{SECTION}#chunk{i}", content="a", meta={"record_id": RECORD}) for i in range(3)]
    )
    kept = tmp_path / "eval-ids" / "docs-0123.json"
    assert CorpusIds.read(kept) is None
    corpus.write(kept)
    assert CorpusIds.read(kept) == corpus
    assert [p.name for p in kept.parent.iterdir()] == [kept.name]  # nothing left aside
    stored = json.loads(kept.read_text())
    for broken in ("{", "[]", json.dumps({**stored, "haygate": "0.0.1"}), json.dumps({"haygate": __version__})):
        kept.write_text(broken)
        assert CorpusIds.read(kept) is None, broken


def test_ids_that_cannot_be_kept_leave_nothing_behind(tmp_path: Path) -> None:
    """A disk that takes no more (a file-size limit stands in for a full disk, in a child process): the write
    fails with the OS's error, and neither a torn file nor the one set aside is left."""
    kept = tmp_path / "eval-ids" / "docs-0123.json"
    child = f"""
import resource, signal, sys
from haygate.compat import install
install()  # Haystack without torch, as every entry point of haygate imports it
from haystack import Document
from haygate.ingest.judged import CorpusIds
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
corpus = CorpusIds.of_documents([Document(id=f"d{{i}}", content="a", meta={{"record_id": "r"}}) for i in range(100)])
resource.setrlimit(resource.RLIMIT_FSIZE, (256, resource.RLIM_INFINITY))
try:
    corpus.write(__import__("pathlib").Path({str(kept)!r}))
except OSError as error:
    sys.exit(f"refused: {{error.strerror}}")
"""
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "refused: File too large" in done.stderr, done.stderr
    assert list(kept.parent.iterdir()) == []
