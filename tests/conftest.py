"""Shared fixtures: real stores in temp dirs, real loaders and gateways, the sample collections ingested once.

Settings are objects handed to a loader, never environment variables: a test builds the `Settings` it
needs, and the loader it opens is closed when the test ends.
"""

import os
import tempfile
from pathlib import Path

from tests.support.cache import built, copy_tree, model_cache_dir

# The ONNX export of the model (about 10 s) is made once per machine (per version of the export code) and
# shared by every loader and server process the tests start, instead of once per temp data dir.
os.environ.setdefault("HAYGATE_MODEL_CACHE_DIR", str(model_cache_dir()))

import haygate._env  # noqa: F401  (offline defaults before anything reads the environment)
from haygate.compat import install

install()  # haygate.compat's patches of Haystack, before any module here or in a test imports Haystack
# ruff: noqa: E402 - the imports below come after install(), as they must

# isort: split
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.settings import Settings
from tests.support.project import EMBEDDING_MODEL, SAMPLES_PROJECT, SHARED_DATA, make_settings
from tests.support.samples import CROSS_ENCODER_INPUTS, SAMPLES_INPUTS, build_tiny_cross_encoder, ingest_samples
from tests.support.serving import http_for, serve


@pytest.fixture(scope="session", autouse=True)
def embedding_model() -> None:
    """The model's ONNX export (made once per machine) loaded once per session, as shared set-up: the tests
    that embed then pay for their own work only."""
    from haygate.components.embedding_backends import load_backend

    load_backend(EMBEDDING_MODEL, "onnx", Path(os.environ["HAYGATE_MODEL_CACHE_DIR"]))


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """A fresh, empty data dir."""
    return make_settings(tmp_path / "data")


@pytest.fixture
def loader(settings: Settings) -> Iterator[Loader]:
    with Loader(settings) as opened:
        yield opened


@pytest.fixture(scope="session")
def ingested_samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample collections as ingested, built once per machine for this checkout's content (tests/support/cache.py).
    Never opened: every user of it gets a copy."""
    return built("samples", SAMPLES_INPUTS, ingest_samples, tmp_path_factory.mktemp("samples-build"))


@pytest.fixture(scope="session")
def samples_dir(ingested_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding the ingested sample collections, for this session's in-process gateway."""
    return copy_tree(ingested_samples, tmp_path_factory.mktemp("samples") / "data")


@pytest.fixture
def samples_copy(ingested_samples: Path, tmp_path: Path) -> Path:
    """A data dir of this test's own holding the ingested samples: for a test that writes to them."""
    return copy_tree(ingested_samples, tmp_path / "samples-data")


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
    """A random 2-layer BERT cross-encoder with the MiniLM tokenizer: drives the real loading code. Built
    (seeded, so always the same) once per machine for its build code and the pinned versions."""
    folder = tmp_path_factory.mktemp("cross-encoder")
    return built("tiny-cross-encoder", CROSS_ENCODER_INPUTS, build_tiny_cross_encoder, folder)


@pytest.fixture(scope="session")
def base_url(gateway: Gateway) -> Iterator[str]:
    """The sample gateway over real HTTP (REST and streamable-HTTP MCP)."""
    yield from serve(http_for(gateway))


# Fixtures whose users are slow by what they do, whatever else they are marked.
SLOW_FIXTURES = {
    "ingested_samples": "the first build ingests every sample collection with real embeddings",
    "tiny_cross_encoder": "a cross-encoder loads torch and sentence-transformers",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SLOW_FIXTURES.keys() & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    items[:] = longest_files_first(items)


def longest_files_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The test files the longest first, as their tests declare: a `budget` where one is set (a test known to be
    long), else a few seconds for a slow test and next to nothing for the rest. `make test` hands whole files to
    its workers in this order (`--dist loadfile`; xdist's own reordering, by test count, is off in
    pyproject.toml): a long file started last kept one worker busy well after the other had finished. Each file
    keeps its own order."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.partition("::")[0], []).append(item)

    def expected(test: pytest.Item) -> float:
        if budget := test.get_closest_marker("budget"):
            return float(budget.args[0])
        return EXPECTED_SLOW if test.get_closest_marker("slow") else EXPECTED_FAST

    return [item for tests in sorted(files.values(), key=lambda tests: -sum(map(expected, tests))) for item in tests]


EXPECTED_SLOW, EXPECTED_FAST = 5.0, 0.05  # seconds a test without a budget usually takes here, slow or not


# -- ../shared/data: read only by tests marked `shared_data`, which skip where it is absent --------------------
#
# The marker is what says a test needs data this checkout does not carry. So it cannot drift from the truth,
# an audit hook watches each test run (set-up, call and teardown): a test that opens or lists a path under
# ../shared/data, or starts a process naming one, without the marker fails and says so.

SHARED_DATA_TEXT = str(SHARED_DATA)
SHARED_DATA_WRITTEN = "../shared/data"  # as commands and eval.yaml files spell it, relative to the checkout
_shared_reads: list[str] = []  # what the running test read of ../shared/data
_watching = [False]


def _shared_path(value: Any) -> str | None:
    if not isinstance(value, str | bytes | os.PathLike):
        return None
    text = os.fsdecode(value)
    if "shared" not in text:
        return None
    if SHARED_DATA_WRITTEN in text or os.path.abspath(text).startswith(SHARED_DATA_TEXT):
        return text
    return None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _watching[0] or event not in ("open", "os.listdir", "os.scandir", "subprocess.Popen"):
        return
    try:
        if event == "subprocess.Popen":
            arguments = args[1] if isinstance(args[1], list | tuple) else [args[1]]
            found = next((p for p in map(_shared_path, arguments) if p), None)
        else:
            found = _shared_path(args[0]) if args else None
        if found and len(_shared_reads) < 5:
            _shared_reads.append(f"{event} {found}")
    except Exception:  # an audit hook must never break the code it watches
        pass


sys.addaudithook(_audit)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("shared_data") is not None and not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent: this test reads the judged datasets beside the checkout")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _shared_reads.clear()
    _watching[0] = True
    try:
        yield
    finally:
        _watching[0] = False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
    if call.when != "teardown" or not _shared_reads or item.get_closest_marker("shared_data") is not None:
        return
    report.outcome = "failed"
    report.longrepr = (
        f"{item.nodeid} read ../shared/data without the `shared_data` marker ({'; '.join(_shared_reads)}). "
        "Mark it `@pytest.mark.shared_data`, so it skips, with the reason, where the data is absent."
    )


def pytest_sessionfinish() -> None:
    """A session's own model exports (about 90 MB, when the machine cache is off) go with it."""
    folder = Path(os.environ["HAYGATE_MODEL_CACHE_DIR"])
    if folder.parent == Path(tempfile.gettempdir()) and folder.name.startswith("haygate-test-models-"):
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tiny_store(tmp_path: Path) -> Iterator[Any]:
    """An empty Qdrant Edge collection with 3-d vectors, a keyword index and text indexes: for components."""
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    store = EdgeDocumentStore(
        "tiny",
        str(tmp_path / "data"),
        embedding_dim=3,
        payload_indexes={"meta.record_id": "keyword", "meta.group": "keyword", "meta.terms": "keyword_prefix"},
        text_fields=["content", "meta.title"],
    )
    yield store
    store.close()
