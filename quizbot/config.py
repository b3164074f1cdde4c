"""One validated settings object for the whole process.

Settings come from the environment (``QUIZBOT_*``, plus the conventional ``DATABASE_URL``) and are
checked once at startup. A bad value raises :class:`~quizbot.errors.ConfigError` naming the
environment variable and how to fix it, so nothing fails later in the middle of a run.
"""

from __future__ import annotations

import json
import os
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from quizbot.errors import ConfigError

if TYPE_CHECKING:
    from storage.engine import EngineOptions

__all__ = ["ModelOptions", "Settings", "default_home", "get_settings", "load_settings"]

ENV_PREFIX = "QUIZBOT_"

# How to fix each setting, shown with the validation message.
_HINTS: dict[str, str] = {
    "home": "set QUIZBOT_HOME to a writable directory, e.g. QUIZBOT_HOME=~/.local/share/quizbot",
    "database_url": (
        "set DATABASE_URL to sqlite:///PATH/TO/quizbot.db or "
        "postgresql+psycopg://USER:PASSWORD@HOST:5432/DBNAME"
    ),
    "models": "set QUIZBOT_MODELS to comma-separated litellm model strings, e.g. "
    "QUIZBOT_MODELS=openai/gpt-4o-mini,baseline/always-true",
    "schedules_file": "set QUIZBOT_SCHEDULES_FILE to an existing TOML file of [[monitor]] tables",
    "host": "set QUIZBOT_HOST to an address to listen on, e.g. 127.0.0.1 or 0.0.0.0",
    "port": "set QUIZBOT_PORT to a whole number between 1 and 65535",
    "log_level": "set QUIZBOT_LOG_LEVEL to one of DEBUG, INFO, WARNING, ERROR",
    "debug": "set QUIZBOT_DEBUG to 1 or 0",
    "sqlite_synchronous": "set QUIZBOT_SQLITE_SYNCHRONOUS to FULL (never lose a committed answer, "
    "the default) or NORMAL (faster; may lose the last commits on power loss, not on a crash)",
    "sqlite_busy_timeout_ms": "set QUIZBOT_SQLITE_BUSY_TIMEOUT_MS to a whole number of "
    "milliseconds between 100 and 600000",
    "db_pool_size": "set QUIZBOT_DB_POOL_SIZE to a whole number between 1 and 100",
    "admin_password": "set QUIZBOT_ADMIN_PASSWORD to a non-empty password, or unset it",
    "scheduler": "set QUIZBOT_SCHEDULER to 1 (run the monitors inside `quizbot serve`) or 0",
    "model_settings": "set QUIZBOT_MODEL_SETTINGS to a JSON object from model string (or pattern "
    'such as "ollama/*") to options, e.g. {"openai/gpt-4o-mini": {"api_key_env": "WORK_KEY", '
    '"max_concurrency": 16, "timeout": 30}}; options: api_base, api_key_env, timeout, '
    "max_concurrency, style",
}


def default_home() -> Path:
    """Where quizbot keeps its data when ``QUIZBOT_HOME`` is not set.

    Follows the XDG base-directory convention: ``$XDG_DATA_HOME/quizbot`` or
    ``~/.local/share/quizbot``.
    """
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "quizbot"


class ModelOptions(BaseModel):
    """How to reach one model (or every model matching a pattern); unset fields fall through.

    Keys are never settings: ``api_key_env`` names the environment variable that holds the key.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    api_base: str | None = Field(default=None, pattern=r"^https?://\S+$")
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    timeout: float | None = Field(default=None, gt=0, le=3600)
    max_concurrency: int | None = Field(default=None, ge=1, le=512)
    style: Literal["chat", "completion"] | None = None


class Settings(BaseSettings):
    """Every setting quizbot reads, validated. Build it with :func:`load_settings`."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        extra="ignore",
        frozen=True,
        populate_by_name=True,
        env_ignore_empty=True,  # `QUIZBOT_DEBUG= quizbot ...` means unset, as in most tools
    )

    home: Path = Field(default_factory=default_home, description="Data directory.")
    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("QUIZBOT_DATABASE_URL", "DATABASE_URL", "database_url"),
        description="SQLAlchemy URL; defaults to a SQLite file in the data directory.",
    )
    models: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Models the app and monitors offer (litellm strings)."
    )
    schedules_file: Path | None = Field(default=None, description="TOML file of monitors.")
    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(default=7860, ge=1, le=65535)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    debug: bool = Field(default=False, description="Show tracebacks for unexpected errors.")
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    sqlite_busy_timeout_ms: int = Field(default=30_000, ge=100, le=600_000)
    db_pool_size: int = Field(default=10, ge=1, le=100)
    admin_password: SecretStr | None = None
    scheduler: bool = Field(
        default=False, description="Run the monitors' scheduler inside `quizbot serve`."
    )
    model_settings: Annotated[dict[str, ModelOptions], NoDecode] = Field(
        default_factory=dict, description="Per-model endpoint, key variable and limits (JSON)."
    )
    embedding_model: str | None = Field(
        default=None,
        description="litellm embedding model for the open-recall cosine (none: no cosine).",
    )
    recall_tiers: str | None = Field(
        default=None,
        pattern=r"^\s*(?i:f1|rouge1|bleu1|cosine)\s*:\s*[0-9.]+\s*:\s*[0-9.]+\s*$",
        description='Open recall tiers "metric:low:high" (default "f1:0.25:0.7", docs/recall.md).',
    )

    @field_validator("model_settings", mode="before")
    @classmethod
    def _parse_model_settings(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"not valid JSON ({exc.msg} at character {exc.pos})") from None
            if not isinstance(value, dict):
                raise ValueError("must be a JSON object of model -> options")
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str) or not key.strip() or any(c.isspace() for c in key):
                    raise ValueError(f"model key {key!r} must be a model string without spaces")
        return value

    @field_validator("log_level", "sqlite_synchronous", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("home", mode="before")
    @classmethod
    def _expand_home(cls, value: Any) -> Any:
        if isinstance(value, str):
            if not value.strip():
                raise ValueError("must not be empty")
            return Path(value).expanduser()
        return value

    @field_validator("models", mode="before")
    @classmethod
    def _split_models(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("models")
    @classmethod
    def _check_models(cls, value: list[str]) -> list[str]:
        for name in value:
            if any(ch.isspace() for ch in name):
                raise ValueError(f"model name {name!r} contains whitespace")
        if len(set(value)) != len(value):
            raise ValueError("a model is listed twice")
        return value

    @field_validator("database_url")
    @classmethod
    def _check_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        from storage.engine import normalize_database_url  # noqa: PLC0415 - SQLAlchemy

        try:
            return normalize_database_url(value.strip())
        except ConfigError as exc:  # reported with the other settings' problems
            raise ValueError(exc.message.removeprefix("DATABASE_URL: ")) from None

    @field_validator("schedules_file", mode="before")
    @classmethod
    def _check_schedules(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        path = Path(value).expanduser()
        if not path.is_file():
            raise ValueError(f"no such file: {path}")
        return path

    @field_validator("admin_password")
    @classmethod
    def _check_password(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value():
            raise ValueError("must not be empty")
        return value

    @property
    def effective_database_url(self) -> str:
        """The database URL in force: ``database_url`` or a SQLite file under ``home``."""
        if self.database_url:
            return self.database_url
        from storage.engine import normalize_database_url  # noqa: PLC0415 - SQLAlchemy

        return normalize_database_url(f"sqlite:///{self.default_sqlite_file}")

    @property
    def default_sqlite_file(self) -> Path | None:
        """The SQLite file under ``home`` in force, or None when ``DATABASE_URL`` is set."""
        return None if self.database_url else self.home / "quizbot.db"

    def engine_options(self) -> EngineOptions:
        """Database tuning taken from these settings."""
        from storage.engine import EngineOptions  # noqa: PLC0415 - SQLAlchemy

        return EngineOptions(
            sqlite_synchronous=self.sqlite_synchronous,
            busy_timeout_ms=self.sqlite_busy_timeout_ms,
            pool_size=self.db_pool_size,
        )

    def model_options(self, model: str) -> ModelOptions:
        """The options for ``model``: its exact entry, else the most specific matching pattern.

        Patterns use shell wildcards (``ollama/*``, ``openai/gpt-4o*``); the longest matching
        pattern wins. A model with no entry gets empty options (defaults apply).
        """
        if model in self.model_settings:
            return self.model_settings[model]
        matches = [p for p in self.model_settings if fnmatchcase(model, p)]
        return self.model_settings[max(matches, key=len)] if matches else ModelOptions()

    def ensure_home(self) -> Path:
        """Create the data directory if needed and return it."""
        try:
            self.home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"QUIZBOT_HOME={self.home}: cannot create the data directory ({exc.strerror})",
                hint=_HINTS["home"],
            ) from exc
        return self.home


def _env_name(field: str) -> str:
    if field == "database_url":
        return "DATABASE_URL"
    return f"{ENV_PREFIX}{field.upper()}"


def load_settings(**overrides: Any) -> Settings:
    """Read and validate settings from the environment; ``overrides`` win (used by the CLI).

    Raises :class:`ConfigError` naming every bad setting and its fix.
    """
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        problems: list[str] = []
        hints: list[str] = []
        for err in exc.errors():
            field = str(err["loc"][0]).lower().removeprefix("quizbot_") if err["loc"] else "?"
            shown = err.get("input")
            value = f"={shown!r}" if isinstance(shown, str | int | float) else ""
            msg = str(err["msg"]).removeprefix("Value error, ")
            # Inside a nested setting, name the entry and key: QUIZBOT_MODEL_SETTINGS["m"].timeout
            where = "".join(
                f".{part}" if i % 2 else f"[{json.dumps(part)}]"
                for i, part in enumerate(err["loc"][1:])
            )
            problems.append(f"{_env_name(field)}{where}{value}: {msg}")
            if field in _HINTS and _HINTS[field] not in hints:
                hints.append(_HINTS[field])
        raise ConfigError(
            "invalid setting" + ("s" if len(problems) > 1 else "") + ": " + "; ".join(problems),
            hint="; ".join(hints) or None,
        ) from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, loaded once."""
    return load_settings()
