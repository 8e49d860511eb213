"""haygate's patches of Haystack internals (`haygate.compat`): on the version they were checked against,
active and equivalent to what they replace; on any other version this test fails, and says what to do."""

import copy

import haystack.core.pipeline.base
import haystack.core.pipeline.pipeline
import haystack.core.pipeline.utils
from haystack import Document
from haystack.dataclasses import SparseEmbedding

import haygate.gateway.loader  # noqa: F401  (installs the deep copy)
from haygate import compat


def test_haystack_is_the_version_the_patches_were_checked_against() -> None:
    installed = ".".join(compat.haystack_version().split(".")[:2])
    assert installed == compat.HAYSTACK_TESTED, (
        f"haystack-ai {installed} is installed; haygate.compat patches {compat.DEVICE_MODULE} and "
        f"{compat.DEEPCOPY} in {', '.join(compat.DEEPCOPY_MODULES)} as they were in {compat.HAYSTACK_TESTED}. "
        "Read those in the new version, adjust the patches, then raise HAYSTACK_TESTED."
    )


def test_the_deep_copy_is_installed_everywhere_haystack_copies_inputs() -> None:
    for module in (haystack.core.pipeline.utils, haystack.core.pipeline.pipeline, haystack.core.pipeline.base):
        assert getattr(module, compat.DEEPCOPY) is compat.fast_deepcopy, module.__name__


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
