"""What the docs collection makes of documentation folders, with no model and no store: files, sections,
includes read and not found, changelogs, and how many sections still carry a site's raw syntax. Prints JSON.

    .venv/bin/python -m scripts.studies.dialects evaluation/pydantic_docs/corpus evaluation/redux_docs/corpus

The docs indexing pipeline runs up to its first embedder (`Loader.preview`), as `haygate eval` plans a corpus.
Raw syntax is counted outside code blocks (a page's code may show syntax on purpose): attribute lists,
admonition and tab fences, MDX statements and JSX, MyST directives and roles, template macros.
"""

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from haygate.components.chunk_ids import record_of
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import planned_documents
from haygate.ingest.readers import read_records
from haygate.settings import Settings

PROJECT = Path(__file__).resolve().parents[2]
RAW = {
    "attribute list": re.compile(r"\{ ?[#.][\w-]+[^}]*\}"),
    "admonition or tab fence": re.compile(r"^\s*(!!!|\?\?\?|///|:::|===)(\s|\w|$)", re.MULTILINE),
    "MDX statement": re.compile(r"^(import|export) .*(from|=)", re.MULTILINE),
    "JSX or HTML tag": re.compile(r"<(?:[A-Z]\w+|div|abbr|details|summary|img|br|span|p)\b[^>]*>"),
    "MyST directive or role": re.compile(r"```\{\w|\{(?:ref|doc|term|py:\w+|eq|numref)\}`"),
    "template macro": re.compile(r"\{\{.*?\}\}"),
    "snippet line": re.compile(r"--8<--"),
}
CODE = re.compile(r"^(`{3,}|~{3,}).*?^\1\s*$", re.MULTILINE | re.DOTALL)


def study(corpus: Path) -> dict[str, Any]:
    """The figures of one folder."""
    with tempfile.TemporaryDirectory() as data:
        values: dict[str, Any] = {
            "qdrant_url": None,
            "qdrant_api_key": None,
            "token": None,
            "tier": "public",
            "project_id": "default",
        }
        with Loader(Settings(home=PROJECT, data_dir=Path(data), **values)) as loader:
            schema = loader.schema("docs")
            options = schema.read_options() if hasattr(schema, "read_options") else None
            records = list(read_records(corpus, options) if options is not None else read_records(corpus))
            documents = list(planned_documents(loader.preview("docs"), schema, records))
    pages = [r.data for r in records if r.data is not None]
    sections: dict[str, Any] = {}
    for document in documents:
        sections.setdefault(record_of(document.id), document)
    raw: Counter[str] = Counter()
    examples: dict[str, str] = {}
    for section_id, document in sections.items():
        prose = CODE.sub("", f"{document.meta.get('title', '')}\n{document.content or ''}")
        for kind, pattern in RAW.items():
            if found := pattern.search(prose):
                raw[kind] += 1
                examples.setdefault(kind, f"{section_id}: {found.group(0)[:60]}")
    titles = [str(document.meta.get("title", "")) for document in sections.values()]
    return {
        "corpus": str(corpus),
        "files": len(records),
        "refused": sum(r.data is None for r in records),
        "sections": len(sections),
        "chunks": len(documents),
        "includes_read": sum(len(page.get("includes") or ()) for page in pages),
        "includes_not_found": sum(len(page.get("missing_includes") or ()) for page in pages),
        "changelogs": sorted(str(page.get("path")) for page in pages if page.get("changelog") is True),
        "sections_with_raw_syntax": sum(1 for document in sections.values() if _any_raw(document)),
        "raw_syntax_by_kind": dict(sorted(raw.items())),
        "raw_syntax_examples": examples,
        "titles_with_attribute_lists": sum(bool(RAW["attribute list"].search(t)) for t in titles),
        "doubled_section_paths": sum(_doubled(str(d.meta.get("section_path", ""))) for d in sections.values()),
        "words": sum(len(str(page.get("text", "")).split()) for page in pages),
    }


def _any_raw(document: Any) -> bool:
    prose = CODE.sub("", f"{document.meta.get('title', '')}\n{document.content or ''}")
    return any(pattern.search(prose) for pattern in RAW.values())


def _doubled(path: str) -> bool:
    """A slug part that repeats itself (`query-parameters-query-parameters`)."""
    for part in path.split("/"):
        words = part.split("-")
        half = len(words) // 2
        if half and len(words) % 2 == 0 and words[:half] == words[half:]:
            return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+", type=Path, help="documentation folders")
    args = parser.parse_args(argv)
    for corpus in args.corpora:
        print(json.dumps(study(corpus), indent=None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
