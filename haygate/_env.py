"""Process-wide defaults that keep haygate offline.

Imported before Haystack, sentence-transformers or FastMCP, because they read these variables at import
time. `setdefault` lets a user who does have network access opt back in.
"""

import os

OFFLINE_DEFAULTS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HAYSTACK_TELEMETRY_ENABLED": "False",
    "FASTMCP_CHECK_FOR_UPDATES": "off",
    "FASTMCP_SHOW_SERVER_BANNER": "false",
    "TOKENIZERS_PARALLELISM": "false",
}

for _name, _value in OFFLINE_DEFAULTS.items():
    os.environ.setdefault(_name, _value)
