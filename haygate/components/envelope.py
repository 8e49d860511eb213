"""The results envelope of a pipeline whose output is a list of Documents, and its schema.

Haystack-free on purpose: a declaration without an `output_schema` takes `DOCUMENTS_ENVELOPE_SCHEMA`, and the
catalog (which answers `tools/list` before Haystack is imported) reads it.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from haystack import Document

# A pipeline whose output is a list of Documents (a Haystack user's own, saved with `Pipeline.dumps()`) needs no
# formatter: each Document becomes a result of this shape, and a declaration may leave out its output_schema.
DOCUMENTS_ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "content": {"type": ["string", "null"]},
                    "score": {"type": ["number", "null"]},
                    "meta": {"type": "object"},
                },
                "required": ["id", "content", "score", "meta"],
            },
        },
        "metadata": {
            "type": "object",
            "properties": {
                "query": {"type": ["string", "null"]},
                "result_count": {"type": "integer"},
                "message": {"type": "string"},
            },
            "required": ["result_count", "message"],
        },
    },
    "required": ["results", "metadata"],
}


def documents_envelope(documents: list["Document"], query: str | None) -> dict[str, Any]:
    """The standard results envelope of a list of Documents: id, content, score and meta of each, and a
    message that says how many matched (or that nothing did).
    """
    results = [{"id": d.id, "content": d.content, "score": d.score, "meta": dict(d.meta)} for d in documents]
    label = f" for '{query}'" if query else ""
    message = f"{len(results)} result(s){label}." if results else f"No results{label}. Try other or fewer words."
    return {"results": results, "metadata": {"query": query, "result_count": len(results), "message": message}}
