"""haygate's reach into Haystack's internals (`haygate.compat`): on the version it was checked against, the
torch patch active and the fast copy equivalent to Haystack's own, which stays Haystack's (so `Pipeline.run`
judges haygate's executor with its own copying); on any other version this test fails, and says what to do."""

import copy

import haystack.core.pipeline.base
import haystack.core.pipeline.pipeline
import haystack.core.pipeline.utils
from haystack import Document
from haystack.dataclasses import SparseEmbedding

import haygate.gateway.loader  # noqa: F401  (everything a served pipeline imports)
from haygate import compat


def test_haystack_is_the_version_the_patches_were_checked_against() -> None:
    installed = ".".join(compat.haystack_version().split(".")[:2])
    assert installed == compat.HAYSTACK_TESTED, (
        f"haystack-ai {installed} is installed; haygate.compat patches {compat.DEVICE_MODULE} and copies as "
        f"{compat.DEEPCOPY} in {compat.DEEPCOPY_MODULE} did in {compat.HAYSTACK_TESTED}. Read those in the new "
        "version, adjust haygate.compat, then raise HAYSTACK_TESTED."
    )


def test_haystack_copies_inputs_with_its_own_function() -> None:
    """haygate's executor copies with `fast_deepcopy`; nothing puts it into Haystack, whose `Pipeline.run` is
    the executor's oracle in the tests and a user's own code elsewhere."""
    own = haystack.core.pipeline.utils._deepcopy_with_exceptions
    assert own.__module__ == compat.DEEPCOPY_MODULE and own is not compat.fast_deepcopy
    for module in (haystack.core.pipeline.pipeline, haystack.core.pipeline.base):
        assert getattr(module, compat.DEEPCOPY) is own, module.__name__


def test_the_fast_copy_equals_a_deep_copy_and_shares_nothing_mutable() -> None:
    documents = [
        Document(
            id="d1",
            content="text",
            meta={"tags": ["a", "b"], "nested": {"k": [1, 2]}, "n": 3},
            embedding=[0.1, 0.2],
            sparse_embedding=SparseEmbedding(indices=[1, 4], values=[0.5, 0.25]),
            score=0.7,
        )
    ]
    data = {"documents": documents, "query": "q", "filters": {"operator": "AND", "conditions": []}, "top_k": 5}
    copied = compat.fast_deepcopy(data)
    assert copied == copy.deepcopy(data)
    [original], [clone] = data["documents"], copied["documents"]
    assert clone is not original and clone.meta is not original.meta
    assert clone.meta["nested"]["k"] is not original.meta["nested"]["k"] and clone.embedding is not original.embedding
    assert clone.sparse_embedding is not original.sparse_embedding
