"""Every shipped tool answers its example calls, plain and explained, the same whether RRF is fused here from
the sources' own lists (what Qdrant Edge does, `hybrid.rrf`) or inside the engine (what a server does)."""

import pytest

from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.gateway.runtime import Gateway

pytestmark = pytest.mark.integration


def test_every_shipped_tool_answers_the_same_fused_here_or_in_the_engine(
    gateway: Gateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = {}
    for name, tool in gateway.tools.items():
        if tool.pipeline is not None:
            for number, arguments in enumerate(tool.example_arguments()):
                answers[name, number] = (tool.run(arguments), tool.explain(arguments))
    monkeypatch.setattr(EdgeDocumentStore, "fuses_rrf_here", False)
    for (name, number), (answer, explained) in answers.items():
        arguments = gateway.tools[name].example_arguments()[number]
        assert gateway.tools[name].run(arguments) == answer, (name, arguments)
        assert gateway.tools[name].explain(arguments) == explained, (name, arguments)
    assert len(answers) >= 10
