"""`haygate examples` rewrites only the examples of a declaration (`haygate.gateway.examples.rewritten`)."""

from haygate.gateway.examples import as_query, propose, rewritten
from haygate.gateway.runtime import Gateway

DECLARATION = """# my tool: comments stay
name: search_docs
parameters:
  query:
    type: string
    description: What to look for.
    examples:
    - how do I filter results by version
    - install
  source:
    type: string
    description: Only this source.  # a comment on the line
    examples: ["haygate-docs"]
  version:
    type: string
    description: Only this version.
output_schema:
  properties:
    query: {type: string}
"""


def test_examples_are_replaced_or_added_and_nothing_else_changes() -> None:
    text = rewritten(DECLARATION, {"query": ["publish a scoped package"], "source": ["npm"], "version": ["10.2"]})
    assert text.splitlines()[0] == "# my tool: comments stay"
    assert '    examples: ["publish a scoped package"]\n  source:' in text
    assert '    description: Only this source.  # a comment on the line\n    examples: ["npm"]' in text
    assert '    description: Only this version.\n    examples: ["10.2"]\noutput_schema:' in text
    assert "    query: {type: string}" in text  # a key of another block with a parameter's name is left alone
    assert rewritten(text, {"source": ["npm"]}) == text


def test_a_heading_becomes_a_query_as_its_author_wrote_it() -> None:
    assert as_query("Migrating to `2.0` {#migrating}") == "Migrating to 2.0"
    assert as_query("**Deployment** and MCP Clients ¶") == "Deployment and MCP Clients"
    assert as_query("Install") is None  # one word: a slug, not a question
    assert as_query("Migrating to") is None  # stops mid-phrase
    assert as_query("2.0 / 3.0") is None  # no words
    assert as_query(" ".join(["word"] * 9)) is None


def test_examples_drawn_from_the_samples_read_as_a_person_would_type_them(gateway: Gateway) -> None:
    """The docs samples: queries are headings as written, section paths the headings the filter slugs again."""
    proposed = propose(gateway.get("search_docs"))
    assert proposed["query"] and all(as_query(q) == q for q in proposed["query"])
    assert any(q != q.lower() for q in proposed["query"])  # the author's case, not a slug's
    assert proposed["section_path"] and not [p for p in proposed["section_path"] if "-" in p or "/" in p]
    for path in proposed["section_path"]:  # each still finds something through the filter
        answer = gateway.get("search_docs").run({"query": "how", "section_path": path})
        assert answer["results"], path
