"""Server settings, read from `HAYGATE_*` environment variables."""

import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent

Tier = Literal["public", "internal", "admin"]
TIER_ORDER: dict[str, int] = {"public": 0, "internal": 1, "admin": 2}


class Settings(BaseSettings):
    """Everything a deployment changes; nothing here is per tool."""

    model_config = SettingsConfigDict(env_prefix="HAYGATE_", extra="ignore")

    home: Path = Field(default=PROJECT_ROOT, description="Folder holding configs/ and pipelines/.")
    data_dir: Path = Field(default=PROJECT_ROOT / "data", description="Where embedded shards live.")
    qdrant_url: str | None = Field(default=None, description="Use a Qdrant server instead of Qdrant Edge.")
    qdrant_api_key: str | None = None
    token: str | None = Field(default=None, description="Bearer token required on HTTP when set.")
    tier: Tier = Field(default="public", description="Highest tool access tier this server exposes.")
    project_id: str | None = Field(default=None, description="Tenant key applied server-side.")
    host: str = "127.0.0.1"
    port: int = 8000

    @property
    def tools_dir(self) -> Path:
        return self.home / "configs" / "tools"

    @property
    def collections_dir(self) -> Path:
        return self.home / "configs" / "collections"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Settings are read once per process; tests call `get_settings.cache_clear()` after changing env."""
    return Settings()


@contextmanager
def settings_override(**values: str | None) -> Iterator[Settings]:
    """Temporarily set `HAYGATE_<NAME>` variables (None unsets), e.g. to point at an isolated eval store."""
    names = {f"HAYGATE_{key.upper()}": value for key, value in values.items()}
    previous = {name: os.environ.get(name) for name in names}
    for name, value in names.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    get_settings.cache_clear()
    try:
        yield get_settings()
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        get_settings.cache_clear()
