"""`haygate examples` rewrites only the examples of a declaration (`haygate.gateway.examples.rewritten`)."""

from haygate.gateway.examples import rewritten

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
