"""One validated settings object for the whole process.

Settings come from the environment (``QUIZBOT_*``, plus the conventional ``DATABASE_URL``) and are
checked once at startup. A bad value raises :class:`~quizbot.errors.ConfigError` naming the
environment variable and how to fix it, so nothing fails later in the middle of a run.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import unquote

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from quizbot.errors import ConfigError, register_secret

if TYPE_CHECKING:
    from storage.engine import EngineOptions

__all__ = [
    "ModelOptions",
    "Settings",
    "default_home",
    "get_settings",
    "load_settings",
    "register_secrets",
]

ENV_PREFIX = "QUIZBOT_"
# A practice session with no answer for this long is closed ("abandoned") the next time the
# student's sessions are listed or a session is started (QUIZBOT_PRACTICE_IDLE_HOURS).
DEFAULT_PRACTICE_IDLE_HOURS = 12.0

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
    "pg_lock_timeout_ms": "set QUIZBOT_PG_LOCK_TIMEOUT_MS to a whole number of "
    "milliseconds between 100 and 600000",
    "db_pool_size": "set QUIZBOT_DB_POOL_SIZE to a whole number between 1 and 100",
    "max_upload_mb": "set QUIZBOT_MAX_UPLOAD_MB to a whole number of megabytes from 1 to 2048",
    "admin_password": "set QUIZBOT_ADMIN_PASSWORD to a password of at least 10 characters "
    "(not only spaces), or unset it",
    "upload_mb_per_hour": "set QUIZBOT_UPLOAD_MB_PER_HOUR to a whole number of megabytes >= 1",
    "scheduler": "set QUIZBOT_SCHEDULER to 1 (run the monitors inside `quizbot serve`) or 0",
    "practice_idle_hours": "set QUIZBOT_PRACTICE_IDLE_HOURS to a number of hours between 0.1 "
    "and 8760 (a year), e.g. 12",
    "trusted_proxy_header": "set QUIZBOT_TRUSTED_PROXY_HEADER to the header your authenticating "
    "proxy puts the user name in (e.g. X-Forwarded-User), together with QUIZBOT_TRUSTED_PROXIES",
    "trusted_proxies": "set QUIZBOT_TRUSTED_PROXIES to comma-separated addresses or networks of "
    "the proxy (e.g. 127.0.0.1,10.0.0.0/24), together with QUIZBOT_TRUSTED_PROXY_HEADER",
    "allowed_hosts": "set QUIZBOT_ALLOWED_HOSTS to comma-separated host names people open the "
    "app under (e.g. quiz.example.org,quiz.internal), without scheme or path",
    "secure_cookies": "set QUIZBOT_SECURE_COOKIES to 1 (HTTPS in front, e.g. a reverse proxy) or 0",
    "public_url": "set QUIZBOT_PUBLIC_URL to the address people open the app at, e.g. "
    "https://quizbot.example.org (http or https, no query)",
    "metrics_public": "set QUIZBOT_METRICS_PUBLIC to 1 (anyone who reaches the app may read "
    "/metrics) or 0",
    "max_batch_calls": "set QUIZBOT_MAX_BATCH_CALLS to a whole number of model calls (0: no limit)",
    "max_model_calls_per_day": "set QUIZBOT_MAX_MODEL_CALLS_PER_DAY to a whole number of model "
    "calls (0: no limit)",
    "admin_max_batch_calls": "set QUIZBOT_ADMIN_MAX_BATCH_CALLS to a whole number (0: no limit)",
    "admin_max_model_calls_per_day": "set QUIZBOT_ADMIN_MAX_MODEL_CALLS_PER_DAY to a whole "
    "number (0: no limit)",
    "login_per_minute_address": "set QUIZBOT_LOGIN_PER_MINUTE_ADDRESS to a whole number >= 1",
    "login_per_minute_user": "set QUIZBOT_LOGIN_PER_MINUTE_USER to a whole number >= 1",
    "answers_per_minute": "set QUIZBOT_ANSWERS_PER_MINUTE to a whole number >= 1",
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

    @field_validator("api_key_env")
    @classmethod
    def _name_not_key(cls, value: str | None) -> str | None:
        # A key pasted where the variable's name goes: refuse it (without repeating it).
        if (
            value
            and len(value) >= 20
            and any(c.islower() for c in value)
            and any(c.isdigit() for c in value)
        ):
            raise ValueError(
                "looks like a key itself; give the name of the environment variable that "
                "holds the key (e.g. TEAM_OPENAI_KEY)"
            )
        return value


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
    pg_lock_timeout_ms: int = Field(default=30_000, ge=100, le=600_000)
    db_pool_size: int = Field(default=10, ge=1, le=100)
    admin_password: SecretStr | None = None
    max_upload_mb: int = Field(
        default=20, ge=1, le=2048, description="Largest file the app accepts, in megabytes."
    )
    upload_mb_per_hour: int = Field(
        default=200,
        ge=1,
        le=1_000_000,
        description="Megabytes one account may upload to the app per hour (accounts and proxy "
        "mode; HTTP 429 beyond).",
    )
    scheduler: bool = Field(
        default=False, description="Run the monitors' scheduler inside `quizbot serve`."
    )
    practice_idle_hours: float = Field(
        default=DEFAULT_PRACTICE_IDLE_HOURS,
        ge=0.1,
        le=8760,
        description="Hours without an answer after which a practice session is closed.",
    )
    model_settings: Annotated[dict[str, ModelOptions], NoDecode] = Field(
        default_factory=dict, description="Per-model endpoint, key variable and limits (JSON)."
    )
    max_batch_calls: int = Field(
        default=500,
        ge=0,
        le=10_000_000,
        description='Instructors: most model calls one "Ask a model" batch may make '
        "(questions x models, baselines free); 0 = no limit.",
    )
    max_model_calls_per_day: int = Field(
        default=2000,
        ge=0,
        le=10_000_000,
        description="Instructors: most model calls per account per UTC day in the app; "
        "0 = no limit.",
    )
    admin_max_batch_calls: int = Field(
        default=0, ge=0, le=10_000_000, description="The same for admins; 0 (default) = no limit."
    )
    admin_max_model_calls_per_day: int = Field(
        default=0, ge=0, le=10_000_000, description="The same for admins; 0 (default) = no limit."
    )
    login_per_minute_address: int = Field(
        default=60,
        ge=1,
        le=100_000,
        description="Login attempts per client address per minute (a reverse proxy is one "
        "address), on top of the lockout.",
    )
    login_per_minute_user: int = Field(
        default=10, ge=1, le=100_000, description="Login attempts per username per minute."
    )
    answers_per_minute: int = Field(
        default=60,
        ge=1,
        le=100_000,
        description="Practice answers one student (or local session) may submit per minute.",
    )
    trusted_proxy_header: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9-]{1,100}$",
        description="Header naming the user, set by an authenticating proxy (proxy mode).",
    )
    trusted_proxies: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        validate_default=True,
        description="Addresses or networks of that proxy; the header is trusted only from them.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Host names besides 127.0.0.1, localhost and [::1] the app answers to (the "
        "Host header) and whose pages may post to it (the Origin header); in local mode every "
        "other name is refused, so a web page cannot reach the app by DNS rebinding.",
    )
    secure_cookies: bool = Field(
        default=False,
        description="Mark the session cookie Secure even on plain HTTP (HTTPS at a reverse "
        "proxy); it is Secure anyway when the request arrives over HTTPS.",
    )
    public_url: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s/?#]+(/[^\s?#]*)?$",
        description="Where people reach the app (e.g. https://quizbot.example.org): alerts link "
        "to their incident there.",
    )
    metrics_public: bool = Field(
        default=False,
        description="Serve /metrics to anyone who can reach the app (else only as the admin "
        "pages are).",
    )

    queue: bool = Field(
        default=False,
        description="The scheduler queues each monitor night for `quizbot worker` processes "
        "instead of running it itself (PostgreSQL only).",
    )
    queue_stall_seconds: float = Field(
        default=30.0,
        ge=0.5,
        le=3600,
        description="A worker silent this long is taken for dead: its jobs go back on the queue.",
    )
    worker_grace_seconds: float = Field(
        default=30.0,
        ge=0,
        le=86_400,
        description="On SIGTERM, how long a worker lets its running jobs finish before it puts "
        "them back on the queue.",
    )

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _split_proxies(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            for part in value:
                try:
                    ipaddress.ip_network(str(part), strict=False)
                except ValueError:
                    raise ValueError(f"{part!r} is not an address or network") from None
        return value

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [part.strip().lower() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            for part in value:
                if not isinstance(part, str) or not _HOST_NAME.fullmatch(part):
                    raise ValueError(f"{str(part)[:60]!r} is not a host name")
        return value

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_pair(cls, value: list[str], info: ValidationInfo) -> list[str]:
        if bool(info.data.get("trusted_proxy_header")) != bool(value):
            raise ValueError(
                "goes together with QUIZBOT_TRUSTED_PROXY_HEADER: set both (proxy mode) or neither"
            )
        return value

    @property
    def proxy_mode(self) -> bool:
        """Whether an authenticating proxy names the user (QUIZBOT_TRUSTED_PROXY_HEADER)."""
        return bool(self.trusted_proxy_header)

    def trusted_proxy(self, address: str | None) -> bool:
        """Whether a request from ``address`` comes from a configured proxy."""
        if not address:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in ipaddress.ip_network(n, strict=False) for n in self.trusted_proxies)

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
            except RecursionError:
                raise ValueError("JSON nested far too deeply") from None
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
        if value is None:
            return value
        secret = value.get_secret_value()
        if not secret:
            raise ValueError("must not be empty")
        if len(secret) < MIN_ADMIN_PASSWORD or not secret.strip():
            # the accounts' rule (quizbot.accounts.check_password), for the local admin too
            raise ValueError(
                f"must have at least {MIN_ADMIN_PASSWORD} characters, not only whitespace"
            )
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
            lock_timeout_ms=self.pg_lock_timeout_ms,
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
        settings = Settings(**overrides)
    except ValidationError as exc:
        problems: list[str] = []
        hints: list[str] = []
        for err in exc.errors():
            field = str(err["loc"][0]).lower().removeprefix("quizbot_") if err["loc"] else "?"
            shown = err.get("input")
            # A secret's value is never echoed: the admin password, a key someone put where it
            # does not belong (an unknown option), the password in a database URL.
            secret = (
                field in _SECRET_FIELDS
                or err["type"] == "extra_forbidden"
                or (bool(err["loc"]) and err["loc"][-1] == "api_key_env")
            )
            if isinstance(shown, str):
                shown = _URL_PASSWORD.sub(_masked, shown)
            value = f"={shown!r}" if isinstance(shown, str | int | float) and not secret else ""
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
    register_secrets(settings)
    return settings


_SECRET_FIELDS = frozenset({"admin_password"})
MIN_ADMIN_PASSWORD = 10  # as quizbot.accounts.MIN_PASSWORD_LENGTH
_HOST_NAME = re.compile(r"^(\[[0-9a-f:.]{2,45}\]|[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?)$")
_URL_PASSWORD = re.compile(r"//[^:/@\s]*:([^/\s]*)@")


def register_secrets(settings: Settings) -> None:
    """Tell :func:`~quizbot.errors.redact` every secret ``settings`` lead to: the database and
    endpoint passwords, the admin password and the keys held by each ``api_key_env`` variable
    (whatever the variable is called), so none can reach a message, a log line or a table."""
    urls = [
        settings.database_url or "",
        *(o.api_base or "" for o in settings.model_settings.values()),
    ]
    for url in urls:
        match = _URL_PASSWORD.search(url)
        if match:
            register_secret(match.group(1))
            register_secret(unquote(match.group(1)))
    if settings.admin_password is not None:
        register_secret(settings.admin_password.get_secret_value())
    for options in settings.model_settings.values():
        if options.api_key_env:
            register_secret(os.environ.get(options.api_key_env))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, loaded once."""
    return load_settings()


def _masked(match: re.Match[str]) -> str:
    password = match.group(1)
    return match.group(0).replace(password, "***") if password else match.group(0)
