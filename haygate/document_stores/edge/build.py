"""Build a shard's indexes in a process of its own: `python -m haygate.document_stores.edge.build`.

Qdrant Edge holds the GIL while it optimizes (measured here: 25.7 s for 30,000 vectors of 384 dimensions,
in which the serving thread of the same process ran once). A server therefore never builds in its own
process: `EdgeDocumentStore.optimize_aside` copies the shard, this process optimizes the copy, and the
server swaps the built copy in. Reads what to build from stdin: the store's `to_dict()` with `data_dir`
pointing at the copy's folder. Exits 0 once the copy is built and closed; on failure it prints one line
saying why to stderr and exits 1.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import json
import os
import sys

from haygate.compat import install


def main() -> int:
    install()  # haygate.compat's patches of Haystack, before the store imports it
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    # The server that started it answers calls meanwhile: it goes first for the cores, and keeps one to itself.
    os.nice(10)
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) > 1:
        os.sched_setaffinity(0, cores[1:])
    try:
        store = EdgeDocumentStore.from_dict(json.loads(sys.stdin.read()))
        try:
            store.optimize()
        finally:
            store.close()
    except Exception as error:  # the parent logs it and keeps the shard it has
        print(f"{type(error).__name__}: {error}".splitlines()[0], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
