"""Expensive set-up built once per machine, named by the content it was built from, so it is never stale.

The sample collections (real embeddings of every bundled sample) take most of a minute to ingest; the ONNX
export of the model about ten seconds. Both depend only on files of this checkout (the samples, the
configuration, the pipelines, haygate's own source and the pinned dependencies), so a build is kept under
`~/.cache/haygate-tests/<name>-<digest of those files>` and every test session copies it. Any change to any
of those files makes a new digest, and a new build. `HAYGATE_TEST_CACHE=off` builds into the session's temp
dir instead.
"""

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support import PROJECT

KEEP = 3  # builds of one name kept per machine (other checkouts, other branches), the newest first
SKIPPED = {"__pycache__", ".mypy_cache", ".ruff_cache"}


def cache_root() -> Path | None:
    if os.environ.get("HAYGATE_TEST_CACHE", "").lower() in {"off", "0", "false"}:
        return None
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "haygate-tests"


def model_cache_dir() -> Path:
    """Where the tests keep the ONNX exports: per machine, per version of the export code (the export itself
    is named by the model's own fingerprint); per session when the cache is off."""
    root = cache_root()
    if root is None:
        return Path(tempfile.mkdtemp(prefix="haygate-test-models-"))
    code = PROJECT / "haygate" / "components"
    return root / f"models-{digest([code / 'embedding_backends.py', code / 'bert_onnx.py'])}"


def digest(inputs: list[Path]) -> str:
    """Every file under `inputs`, by relative path and bytes."""
    hashed = hashlib.sha256()
    for root in inputs:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            if SKIPPED.isdisjoint(path.parts):
                hashed.update(f"{path.relative_to(root.parent)}\n".encode())
                hashed.update(path.read_bytes())
    return hashed.hexdigest()[:16]


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def built(name: str, inputs: list[Path], build: Callable[[Path], None], scratch: Path) -> Path:
    """The folder `build(folder)` makes from `inputs`, made once per machine (or in `scratch` when the cache
    is off). A build that fails leaves nothing behind."""
    root = cache_root()
    if root is None:
        folder = scratch / name
        build(folder)
        return folder
    target = root / f"{name}-{digest(inputs)}"
    with _locked(root / f".{name}.lock"):
        if not target.is_dir():
            work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
            try:
                build(work / "built")
                (work / "built").rename(target)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        target.touch()
        older = sorted(root.glob(f"{name}-*"), key=lambda p: -p.stat().st_mtime)[KEEP:]
        for stale in older:
            shutil.rmtree(stale, ignore_errors=True)
    return target


def copy_tree(source: Path, target: Path) -> Path:
    """A copy that keeps Qdrant Edge's sparse files sparse (19 MB on disk, 1.3 GB apparent)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", "--sparse=always", str(source), str(target)], check=True)
    return target
