"""Process-wide defaults that keep haygate offline and quiet.

Imported before Haystack, sentence-transformers, FastMCP or ranx, because they read these variables at import
time. `setdefault` lets a user who does have network access opt back in.

ranx's metrics run as plain Python (`NUMBA_DISABLE_JIT`): numba compiles them afresh in every process, 6 to
30 s of every `haygate eval`, while a judged set of a thousand queries scores in half a second uncompiled,
to the same figures (benchmarks page).
"""

import os

__all__ = ["OFFLINE_DEFAULTS", "QUIET_DEFAULTS"]

OFFLINE_DEFAULTS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HAYSTACK_TELEMETRY_ENABLED": "False",
    "FASTMCP_CHECK_FOR_UPDATES": "off",
    "FASTMCP_SHOW_SERVER_BANNER": "false",
    "TOKENIZERS_PARALLELISM": "false",
    "NUMBA_DISABLE_JIT": "1",
    "RAY_USAGE_STATS_ENABLED": "0",  # Ray reports a cluster's use to its makers unless told not to
}

# Quiet unless asked: no bar of a model's files or weights loading (Hugging Face's and transformers' bars
# both follow HF_HUB_DISABLE_PROGRESS_BARS) and no advisory line. A Haystack component's own bar ("Batches:
# 100%|...") is turned off where the loader builds it (`progress_bar`); haygate's bars show on a terminal, or
# with --progress. (TQDM_DISABLE would silence tqdm everywhere, haygate's own bars and their counts too.)
QUIET_DEFAULTS = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
}

for _name, _value in {**OFFLINE_DEFAULTS, **QUIET_DEFAULTS}.items():
    os.environ.setdefault(_name, _value)
