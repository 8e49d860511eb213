"""Examples for a tool's parameters, drawn from the data it serves: what `haygate examples` proposes.

A declaration's examples are what an agent reads in `tools/list` (and the console pre-fills): a filter value
no record holds, or a query about another corpus, tells it wrong things. So once a project's own records are
ingested, each filter parameter is offered the values its field holds most often, and the query parameter
queries made of the collection's own headings, kept only where the tool finds something for them.
"""

import json
import re
from typing import Any

from haygate.components.query_builder import QUERY, QueryBuilder
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.gateway.tool import ToolRuntime, collection_store

VALUES_SHOWN = 3  # examples proposed per parameter
VALUES_COUNTED = 200  # distinct values of a field counted to find the most common
TITLE_FIELD = "meta.title"
TITLE_SEPARATOR = " > "  # a section title is its heading path: "Install > From a tarball"


def propose(runtime: ToolRuntime) -> dict[str, list[Any]]:
    """New examples by parameter, for the parameters the data can say something about (a filter whose field
    no record holds gets none: `validate` says so)."""
    pipeline = runtime.pipeline
    if pipeline is None:
        return {}
    store = next((s for _, instance in pipeline.pipeline.walk() if (s := collection_store(instance)) is not None), None)
    if store is None:
        return {}
    proposed: dict[str, list[Any]] = {}
    for name, spec in runtime.declaration.parameters.items():
        if spec.enum is not None:
            continue
        for component, socket in pipeline.inputs.get(name, []):
            builder = pipeline.pipeline.get_component(component)
            if not isinstance(builder, QueryBuilder):
                continue
            if socket == QUERY and spec.type == "string":
                queries = _queries(runtime, store, name)
                if queries:
                    proposed[name] = queries
            elif socket in builder.filters and builder.filters[socket].get("operator", "==") == "==":
                values = _common_values(store, str(builder.filters[socket]["field"]), spec.type)
                if builder.filters[socket].get("transform") == "slug_path":  # the headings, as a person types them
                    values = _as_headings(store, values)
                if values:
                    proposed[name] = values
    return proposed


def _common_values(store: HybridDocumentStore, field: str, kind: str) -> list[Any]:
    """The values of `field` the most records hold, most first (ties in value order)."""
    values = [v for v in store.distinct_values(field) if v is not None][:VALUES_COUNTED]
    counted = [(store.count_documents({"field": field, "operator": "==", "value": v}), v) for v in values]
    ranked = sorted(counted, key=lambda pair: (-pair[0], str(pair[1])))
    typed = [value for _, value in ranked if _fits(value, kind)]
    return typed[:VALUES_SHOWN]


def _as_headings(store: HybridDocumentStore, paths: list[Any]) -> list[Any]:
    """Slugged section paths ("configuring-tools/filters") as the headings they were made from ("Configuring
    Tools > Filters"), which the filter slugs again; a path no title explains stays as it is."""
    headings: dict[str, str] = {}
    for document in store.meta_by_filter(None, fields=["meta.section_path", TITLE_FIELD]):
        slugs = str(document.meta.get("section_path") or "").split("/")
        titles = str(document.meta.get("title") or "").split(TITLE_SEPARATOR)
        if len(slugs) == len(titles):
            for depth in range(1, len(slugs) + 1):
                headings.setdefault("/".join(slugs[:depth]), TITLE_SEPARATOR.join(titles[:depth]))
    return [headings.get(str(path), path) for path in paths]


def _fits(value: Any, kind: str) -> bool:
    return {"string": isinstance(value, str), "integer": isinstance(value, int), "id": True}.get(kind, True)


def _queries(runtime: ToolRuntime, store: HybridDocumentStore, parameter: str) -> list[str]:
    """Queries made of the collection's headings (the last heading of a title, as a reader would ask it),
    spread over its records, each kept only when the tool finds something for it."""
    titled = store.meta_by_filter(None, fields=[TITLE_FIELD, "meta.record_id"])
    seen_in: dict[str, set[str]] = {}  # a heading's words -> the records that have it
    written: dict[str, str] = {}  # a heading folded -> as its author wrote it (the first seen)
    for document in titled:
        heading = as_query(str(document.meta.get("title") or "").split(TITLE_SEPARATOR)[-1])
        if heading is not None:
            record = str(document.meta.get("record_id") or document.id)
            written.setdefault(heading.casefold(), heading)
            seen_in.setdefault(heading.casefold(), set()).add(record)
    # A heading many records share ("See also", "Configuration") says nothing of any one of them.
    headings: dict[str, str] = {}  # record -> its first heading of its own
    for folded, records in sorted(seen_in.items(), key=lambda pair: min(pair[1])):
        record = min(records)
        if len(records) == 1 and record not in headings:
            headings[record] = written[folded]
    candidates = [headings[record] for record in sorted(headings)]
    step = max(1, len(candidates) // (VALUES_SHOWN * 2))
    found = []
    for text in candidates[::step]:
        try:
            answer = runtime.run({parameter: text})
        except Exception:  # a query the tool refuses is no example
            continue
        rows = next((v for v in answer.values() if isinstance(v, list)), [])
        if rows:
            found.append(text)
        if len(found) == VALUES_SHOWN:
            break
    return found


def rewritten(text: str, proposed: dict[str, list[Any]]) -> str:
    """The declaration's YAML with each proposed parameter's `examples:` line replaced (or added under the
    parameter, after its description), everything else as it was: comments, order, layout."""
    lines = text.splitlines(keepends=True)
    for name, values in proposed.items():
        flow = json.dumps(values, ensure_ascii=False)
        block = next((i for i, line in enumerate(lines) if re.match(r"^parameters:\s*(#.*)?$", line)), None)
        if block is None:
            continue
        start = next(
            (
                i
                for i in range(block + 1, len(lines))
                if re.match(rf"^(\s+){re.escape(name)}:\s*(#.*)?$", lines[i])
                or (lines[i].strip() and not lines[i][0].isspace())  # the next top-level key: not in the block
            ),
            None,
        )
        if start is None or not lines[start][0].isspace():
            continue
        indent = len(lines[start]) - len(lines[start].lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        child = " " * (indent + 2)
        at = next((i for i in range(start + 1, end) if lines[i].startswith(f"{child}examples:")), None)
        entry = f"{child}examples: {flow}\n"
        if at is not None:
            stop = at + 1  # a block list under `examples:` goes with it
            while stop < end and lines[stop].startswith((child + "  ", child + "- ")):
                stop += 1
            lines[at:stop] = [entry]
        else:
            lines.insert(end, entry)
    return "".join(lines)


MARKUP = re.compile(r"[`*_]|\{#[^}]*\}|\s*[¶#]+\s*$")  # inline code and emphasis marks, an anchor, a permalink
TRAILING_WORDS = {"a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with"}


def as_query(heading: str) -> str | None:
    """A heading as a person would type it for a query: its words as written (case, digits and dots kept:
    "Migrating to 2.0"), without Markdown marks; None for one too short or too long to be a query (two to eight
    words, two of them words of letters) or one that stops mid-phrase ("Migrating to")."""
    text = " ".join(MARKUP.sub("", heading).split()).strip(" :.-")
    words = text.split()
    lettered = [w for w in words if re.search(r"[A-Za-z]{2}", w)]
    if not 2 <= len(words) <= 8 or len(lettered) < 2 or words[-1].casefold() in TRAILING_WORDS:
        return None
    return text
