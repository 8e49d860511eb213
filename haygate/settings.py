"""Deployment settings, read from `HAYGATE_*` environment variables.

A `Settings` object is built once, at the entry point (the CLI, a test, an evaluation run), and handed to
the loader, which is the only reader: components never see settings, they get what the loader builds
from them (a document store, an absolute file path). Nothing in haygate writes `os.environ`, apart
from the offline defaults `haygate._env` sets (with `setdefault`) before Haystack is imported.
"""

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from haygate.errors import ConfigurationError
from haygate.home import PREFIX, PROJECT_MARKER, default_home

Tier = Literal["public", "internal", "admin"]
TIER_ORDER: dict[str, int] = {"public": 0, "internal": 1, "admin": 2}


class Settings(BaseSettings):
    """Everything a deployment changes; nothing here is per tool."""

    model_config = SettingsConfigDict(env_prefix="HAYGATE_", extra="ignore", frozen=True)

    home: Path = Field(
        default_factory=Path.cwd,  # a placeholder: `_home_and_data` always sets it
        description="The project: the folder holding configs/ and pipelines/ (default: the current folder or the "
        "nearest one above it that holds configs/tools/).",
    )
    data_dir: Path = Field(
        default_factory=Path.cwd,  # a placeholder: `_home_and_data` always sets it
        description="Where embedded shards live (default: <home>/data).",
    )
    store: str | None = Field(
        default=None,
        description="The store backend: `edge` (Qdrant Edge in the data dir), `qdrant` (a server, at qdrant_url), "
        "`memory` (Haystack's in-memory store, kept in a file in the data dir) or one a package registers "
        "(default: qdrant when qdrant_url is set, else edge).",
    )
    qdrant_url: str | None = Field(default=None, description="Use a Qdrant server instead of Qdrant Edge.")
    qdrant_api_key: str | None = Field(default=None, description="API key for that server.")
    ray_address: str | None = Field(
        default=None,
        description="Ingest and evaluation indexing embed on this Ray cluster (`auto`, `HOST:PORT`, `ray://HOST:PORT`, "
        "or `local` for a Ray of this machine alone; needs the `ray` extra); unset, they embed in this process.",
    )
    ray_actors: int | None = Field(
        default=None, ge=1, description="Embedding actors on the Ray cluster (default: as many as its nodes hold)."
    )
    ray_actor_cpus: float = Field(
        default=1.0, gt=0, description="CPUs each embedding actor reserves, and the model threads it runs."
    )
    ray_actor_gpus: float = Field(
        default=0.0, ge=0, description="GPUs each embedding actor reserves (more than 0: its model runs on the GPU)."
    )
    token: str | None = Field(default=None, description="Bearer token required on HTTP when set.")
    tier: Tier = Field(default="public", description="Highest tool access tier this server exposes.")
    project_id: str | None = Field(
        default="default",
        description='Tenant key applied server-side ("default" in the samples); empty hides tenant-scoped tools.',
    )

    @model_validator(mode="before")
    @classmethod
    def _home_and_data(cls, values: Any) -> Any:
        """No home given: the nearest project at or above the current folder, else the current folder itself
        (`has_project` then says there is none); no data dir: the home's data/."""
        if not isinstance(values, dict):
            return values
        values = dict(values)
        if values.get("home") in (None, ""):
            values["home"] = default_home()
        if values.get("data_dir") in (None, ""):
            values["data_dir"] = Path(values["home"]) / "data"
        return values

    @field_validator("project_id", mode="before")
    @classmethod
    def _empty_means_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    host: str = Field(default="127.0.0.1", description="Address `haygate serve --http` binds.")
    port: int = Field(default=8000, description="Port `haygate serve --http` listens on.")
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description="Host names HTTP answers to besides localhost, 127.0.0.1 and [::1] (any port) and the bound "
        "address: comma-separated names, name:port or patterns such as *.corp.example; * turns the check off.",
    )
    allowed_origins: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description="Web origins whose pages may call the server besides the loopback ones, comma-separated "
        "(https://console.example, http://*.corp.example:8080); they get CORS headers; * turns the check off.",
    )

    @field_validator("allowed_hosts", "allowed_origins", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        return tuple(part.strip() for part in value.split(",") if part.strip()) if isinstance(value, str) else value

    max_body_bytes: int = Field(default=32 * 1024 * 1024, description="Largest HTTP request body; larger get 413.")
    startup_timeout: float = Field(
        default=120.0, description="How long a call waits for a starting server before UNAVAILABLE (seconds)."
    )
    watch: bool = Field(default=True, description="Reload the tools when configs/ or pipelines/ change.")
    model_cache_dir: Path | None = Field(
        default=None, description="Where ONNX exports of the models are kept (default: <data_dir>/.models)."
    )
    eval_dir: Path | None = Field(
        default=None,
        description="Where the console finds evaluation reports, `eval --out` folders (default: <home>/eval-out).",
    )
    disk_reserve_mb: int = Field(
        default=64,
        ge=0,
        description="Free space (MiB) every shard open and write must leave on the data dir's filesystem.",
    )

    log_format: Literal["plain", "json"] = Field(
        default="plain", description="Log lines as plain text, or one JSON object per line."
    )
    telemetry: bool = Field(
        default=True, description="Per-call log lines, Prometheus metrics and stage timing (off: to measure them)."
    )
    metrics_public: bool = Field(
        default=False, description="Serve /metrics without the bearer token (for a scraper on a trusted network)."
    )
    otlp_endpoint: str | None = Field(
        default=None,
        description="Send OpenTelemetry traces over OTLP/HTTP here, e.g. http://localhost:4318/v1/traces "
        "(needs the `otel` extra); unset, no span leaves the process.",
    )
    service_name: str = Field(default="haygate", description="The service name traces carry.")
    skill_name: str | None = Field(
        default=None,
        description="The name of the project's skill (skill://<name>/SKILL.md) and of the project in the server's "
        "instructions (default: the project folder's name, in lower case with hyphens).",
    )

    @property
    def models_dir(self) -> Path:
        return self.model_cache_dir or self.data_dir / ".models"

    @property
    def evaluations_dir(self) -> Path:
        return self.eval_dir or self.home / "eval-out"

    @property
    def judged_sets_dir(self) -> Path:
        """The project's judged sets (`evaluation/<set>/`), which the console's Judge tab writes."""
        return self.home / "evaluation"

    @property
    def has_project(self) -> bool:
        return (self.home / PROJECT_MARKER).is_dir()

    @property
    def tools_dir(self) -> Path:
        return self.home / "configs" / "tools"

    @property
    def collections_dir(self) -> Path:
        return self.home / "configs" / "collections"

    @property
    def pipelines_dir(self) -> Path:
        return self.home / "pipelines"

    def exposes(self, tier: str) -> bool:
        """Whether a tool of `tier` is served at this server's tier."""
        return TIER_ORDER[tier] <= TIER_ORDER[self.tier]


READ_ELSEWHERE = ("KEEP_VECTORS",)  # variables read where they act (haygate.components.kept_vectors), not settings


def refuse_misspelt_variables(environ: dict[str, str]) -> None:
    """A `HAYGATE_*` variable that names no setting but is close to one is a typo that would leave its setting at
    the default (`HAYGATE_TOKN`: a server with no token): refused, naming the variable meant. Names close to none
    (another tool's, a test's) are left alone."""
    known = [name.upper() for name in Settings.model_fields] + list(READ_ELSEWHERE)
    unknown = sorted(v for v in environ if v.upper().startswith(PREFIX) and v.upper()[len(PREFIX) :] not in known)
    if not unknown:
        return  # the usual case, before `serve` lists its tools: nothing more to import or compare
    from haygate.yamlfile import closest

    for variable in unknown:
        meant = closest(variable.upper()[len(PREFIX) :], known, cutoff=0.8)
        if meant is not None:
            msg = f"{variable} is not a haygate setting: did you mean {PREFIX}{meant}? (unset it, or rename it)"
            raise ConfigurationError(msg, {"variable": variable, "did_you_mean": PREFIX + meant})
