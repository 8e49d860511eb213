"""haygate's benchmarks, studies and operational scripts, each run from the checkout's root as a module.

- `scripts.bench.*`: what a call, an ingest or a server costs (time, memory, load), printed as JSON;
- `scripts.studies.*`: which setting or rule ranks, filters or estimates best on a judged set, printed as JSON;
- `scripts.workload`: the inputs the benchmarks send (generated CVs, never-seen query texts);
- `scripts.measure`: the measuring every one of them shares (ports, percentiles, memory, load, a served process);
- `scripts/install.py` (run by `make install`, standard library only), `scripts/hardening.py` (what haygate does
  when an operator gets things wrong) and `scripts/soak.py` (a served haygate under a long mixed load).

The figures they print, with the machine and date each was taken on, are in docs/results/benchmarks.md.
"""

from pathlib import Path

import haygate._env  # noqa: F401  (offline defaults before anything reads the environment)
from haygate.compat import install

install()  # Haystack as the server runs it (torch deferred), before any script imports it: the figures are its

PROJECT = Path(__file__).resolve().parent.parent
"""The checkout's root: the configs, pipelines, samples and judged sets the scripts read."""
