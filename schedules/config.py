"""Monitors as data: the ``[[monitor]]`` tables of a TOML file, validated on load.

Every problem is reported at once with the file, the monitor (by name, or by position when the
name itself is missing) and the key, so a typo in a schedules file is caught when the scheduler
starts rather than at two in the morning. Unknown keys are errors: a misspelt ``anchor_point``
silently falling back to a default would change what is measured.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import tzinfo
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.cron import CronTrigger

from quizbot.errors import REDACTED, InputError, register_secret

if TYPE_CHECKING:
    from quizbot.config import Settings

__all__ = [
    "DEFAULT_SCHEDULES",
    "MonitorSpec",
    "cron_trigger",
    "default_schedules_file",
    "find_monitor",
    "load_monitors",
    "schedules_path",
    "shown_webhook",
]

DEFAULT_SCHEDULES = "monitors.toml"
FORMATS = ("statements", "recall")
PROMPTS = ("standard", "sdak")  # how statements are asked (quizbot.evaluation.service.Wording)
WEBHOOK_FORMATS = ("slack", "json")  # the webhook's body (quizbot.monitoring.alerts)
STATEMENTS_PER_POINT = 16  # 8 variants of the positive triplet and 8 of its negative
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
_CRON_FIELDS = 5


@dataclass(frozen=True)
class MonitorSpec:
    """One monitor: which models, which knowledge, how many points, when, and where to alert."""

    name: str
    models: tuple[str, ...]
    cron: str
    kb: str = "clinical-core"
    item_set: str | None = None  # an imported item set asked whole every night, instead of kb
    relations: tuple[str, ...] | None = None
    points: int = 25
    anchor_points: int = 6
    timezone: str = "UTC"
    shots: int = 0
    idk: bool = True
    rephrase: str | None = None
    webhook: str | None = None
    # "slack": {"text": ...} that chat tools' incoming webhooks take as it is; "json": the raw
    # object with the figures (quizbot.monitoring.alerts)
    webhook_format: str = "slack"
    enabled: bool = True
    alpha: float = 0.01
    window: int = 7
    # "statements" (true/false statements, 16 per knowledge point) or "recall": open recall
    # questions, one per (disease, aspect), ``points`` a night (``anchor_points`` of them fixed),
    # ``relations`` naming the aspects; drift on mean F1 and tier shares.
    format: str = "statements"
    # "standard" (True or False) or "sdak": the verdict "Correct"/"Incorrect" first, then the
    # reason (statements only, zero-shot, no "I do not know"; ``idk`` defaults to false then).
    # Nights add the SDAK pair metrics and test instruction following for drift.
    prompt: str = "standard"
    # format = "recall" only: a judge model asked about every entry the KB cannot verify
    # (quizbot/providers/judge.py); its verdicts count in the night's precision.
    judge: str | None = None

    @property
    def tz(self) -> tzinfo:
        """The monitor's time zone (the night's date is the date there)."""
        return ZoneInfo(self.timezone)

    @property
    def statements_per_night(self) -> int:
        """Items asked of each model per night (one recall question per point)."""
        return self.points if self.format == "recall" else self.points * STATEMENTS_PER_POINT

    def as_json(self) -> dict[str, Any]:
        """The definition as stored with the monitor row."""
        data = asdict(self)
        data["webhook"] = shown_webhook(self.webhook)
        data["models"] = list(self.models)
        data["relations"] = list(self.relations) if self.relations is not None else None
        return data


def default_schedules_file() -> Path:
    """The schedules file shipped with quizbot (``schedules/monitors.toml``)."""
    return Path(str(resources.files("schedules").joinpath(DEFAULT_SCHEDULES)))


def schedules_path(settings: Settings) -> Path:
    """The schedules file in force."""
    return settings.schedules_file or default_schedules_file()


_TABLE_RE = re.compile(r"^\s*\[")
_MONITOR_RE = re.compile(r"^\s*\[\[\s*monitor\s*\]\]")
_KEY_RE = re.compile(r"""^\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_-]+))\s*=""")


def _key_lines(text: str) -> list[tuple[int, dict[str, int]]]:
    """Per ``[[monitor]]`` table, in order: its header's line and the line of each of its keys.

    A plain scan of the text (``tomllib`` keeps no positions), used only to say where a problem
    is; a key it cannot place is reported without a line.
    """
    tables: list[tuple[int, dict[str, int]]] = []
    current: dict[str, int] | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if _MONITOR_RE.match(line):
            current = {}
            tables.append((number, current))
        elif _TABLE_RE.match(line):
            current = None
        elif current is not None and (match := _KEY_RE.match(line)):
            current.setdefault(next(g for g in match.groups() if g), number)
    return tables


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.places: list[tuple[int | None, str | None]] = []  # (line, key) of each item
        self.lines: tuple[int, dict[str, int]] | None = None  # the table being checked

    def add(self, where: str, key: str | None, message: str) -> None:
        line = None
        if self.lines is not None:
            header, keys = self.lines
            line = keys.get(key, header) if key else header
        self.items.append(
            f"{where}{f', key {key!r}' if key else ''}: {message}"
            + (f" (line {line})" if line is not None else "")
        )
        self.places.append((line, key))


def _string_list(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(v.strip() for v in value)
    return None


_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_DOW_PART_RE = re.compile(r"^(\*|\d+)(?:-(\d+))?(?:/(\d+))?$")


def _weekdays(field: str) -> str:
    """A crontab day-of-week field in APScheduler's terms.

    Crontab counts 0 (and 7) as Sunday, 1 as Monday; APScheduler 3 counts 0 as Monday. Numeric
    parts are turned into day names, which both read alike; named parts pass through.
    """
    parts: list[str] = []
    for part in field.split(","):
        match = _DOW_PART_RE.match(part)
        if match is None:
            parts.append(part)  # names such as mon-fri mean the same in both
            continue
        start, end, step = match.groups()
        if start == "*":
            low, high = 0, 6
        else:
            low = int(start)
            high = int(end) if end is not None else (6 if step is not None else low)
        if not 0 <= low <= high <= 7:
            raise ValueError(f"day of week {part!r} is out of range 0-7")
        days = range(low, high + 1, int(step) if step else 1)
        parts.extend(_DAY_NAMES[day % 7] for day in days)
    return ",".join(dict.fromkeys(parts))


def cron_trigger(expr: str, tz: tzinfo | str) -> CronTrigger:
    """The APScheduler trigger of a standard five-field crontab expression in zone ``tz``.

    Unlike ``CronTrigger.from_crontab`` in APScheduler 3, day-of-week numbers follow crontab
    (``1`` is Monday, ``0`` and ``7`` Sunday).
    """
    fields = expr.split()
    if len(fields) != _CRON_FIELDS:
        raise ValueError("must have five fields: minute hour day month weekday, e.g. '0 2 * * *'")
    minute, hour, day, month, weekday = fields
    return CronTrigger(
        minute=minute,
        hour=hour,
        day=day,
        month=month,
        day_of_week=_weekdays(weekday),
        timezone=tz,
    )


def _check_cron(expr: str) -> str | None:
    """Why ``expr`` is not a valid five-field crontab expression (None if it is)."""
    if len(expr.split()) != _CRON_FIELDS:
        return "must have five fields: minute hour day month weekday, e.g. '0 2 * * *'"
    try:
        cron_trigger(expr, "UTC")
    except ValueError as exc:
        return f"not a valid cron expression ({exc})"
    return None


_INT_RANGES: dict[str, tuple[int, int]] = {
    "points": (1, 10_000),
    "anchor_points": (0, 10_000),
    "shots": (0, 20),
    "window": (1, 365),
}


def _monitor(table: Mapping[str, Any], where: str, problems: _Problems) -> MonitorSpec | None:
    before = len(problems.items)
    known = set(MonitorSpec.__dataclass_fields__)
    for key in sorted(set(table) - known):
        problems.add(where, key, f"unknown key (known: {', '.join(sorted(known))})")
    values: dict[str, Any] = {}

    name = table.get("name")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        problems.add(where, "name", "required; letters, digits, '_', '.', '-' (at most 100)")
    values["name"] = name

    models = _string_list(table.get("models"))
    if not models:
        problems.add(where, "models", 'a non-empty list of model strings, e.g. ["baseline/random"]')
    elif len(set(models)) != len(models):
        problems.add(where, "models", "a model is listed twice")
    values["models"] = models

    cron = table.get("cron")
    if not isinstance(cron, str):
        problems.add(where, "cron", 'required, e.g. cron = "0 2 * * *" (02:00 every night)')
    elif (why := _check_cron(cron)) is not None:
        problems.add(where, "cron", why)
    values["cron"] = cron

    for key in (
        "kb", "item_set", "timezone", "rephrase", "webhook", "webhook_format", "format", "prompt",
        "judge",
    ):  # fmt: skip
        if key in table:
            if not isinstance(table[key], str) or not table[key].strip():
                problems.add(where, key, "must be a non-empty string")
            else:
                values[key] = table[key].strip()
    if "timezone" in values:
        try:
            ZoneInfo(values["timezone"])
        except (ZoneInfoNotFoundError, ValueError):
            problems.add(where, "timezone", f"unknown time zone {values['timezone']!r}")
    if values.get("format", "statements") not in FORMATS:
        problems.add(where, "format", f"must be one of {', '.join(FORMATS)}")
    elif values.get("format") == "recall":
        for key in ("item_set", "rephrase"):
            if key in values:
                problems.add(where, key, 'does not apply to format = "recall"')
    if "judge" in values and values.get("format") != "recall":
        problems.add(where, "judge", 'judges open recall answers: use it with format = "recall"')
    _check_prompt(table, values, where, problems)
    if values.get("webhook_format", "slack") not in WEBHOOK_FORMATS:
        problems.add(where, "webhook_format", f"must be one of {', '.join(WEBHOOK_FORMATS)}")
    if "webhook" in values and not re.match(r"^https?://\S+$", values["webhook"]):
        problems.add(where, "webhook", "must be an http:// or https:// URL")
    elif "webhook" in values:
        _register_webhook(values["webhook"])

    if "relations" in table:
        relations = _string_list(table["relations"])
        if not relations:
            problems.add(where, "relations", "a non-empty list of relation names")
        values["relations"] = relations

    for key, (low, high) in _INT_RANGES.items():
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                problems.add(where, key, f"must be a whole number from {low} to {high}")
            values[key] = value
    for key in ("idk", "enabled"):
        if key in table:
            if not isinstance(table[key], bool):
                problems.add(where, key, "must be true or false")
            values[key] = table[key]
    if "alpha" in table:
        alpha = table["alpha"]
        if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
            problems.add(where, "alpha", "must be a number between 0 and 1, e.g. 0.01")
        values["alpha"] = alpha

    points = values.get("points", MonitorSpec.points)
    anchors = values.get("anchor_points", MonitorSpec.anchor_points)
    if isinstance(points, int) and isinstance(anchors, int) and anchors > points:
        problems.add(where, "anchor_points", f"{anchors} is more than points ({points})")

    if len(problems.items) > before:
        return None
    if "alpha" in values:
        values["alpha"] = float(values["alpha"])
    return MonitorSpec(**values)


def _check_prompt(
    table: Mapping[str, Any], values: dict[str, Any], where: str, problems: _Problems
) -> None:
    """``prompt``: one of :data:`PROMPTS`; "sdak" asks statements zero-shot with no "I do not
    know", so it refuses ``format = "recall"``, ``shots`` above 0 and ``idk = true``, and makes
    ``idk`` false when it is not given."""
    prompt = values.get("prompt", "standard")
    if prompt not in PROMPTS:
        problems.add(where, "prompt", f"must be one of {', '.join(PROMPTS)}")
        return
    if prompt != "sdak":
        return
    if values.get("format", "statements") != "statements":
        problems.add(
            where, "prompt", '"sdak" asks true/false statements: use it with format = "statements"'
        )
    shots = table.get("shots", 0)
    if isinstance(shots, int) and not isinstance(shots, bool) and shots != 0:
        problems.add(
            where, "shots", 'must be 0 with prompt = "sdak" (the SDAK question is zero-shot)'
        )
    if table.get("idk") is True:
        problems.add(where, "idk", 'must be false with prompt = "sdak" (no "I do not know")')
    values.setdefault("idk", False)


def _register_webhook(url: str) -> None:
    """A webhook URL carries its token in its path, query or password: all of it is secret."""
    parts = urlsplit(url)
    for part in (parts.path, parts.query, parts.password, parts.username):
        if part and part.strip("/"):
            register_secret(part)


def shown_webhook(url: str | None) -> str | None:
    """A webhook as stored and shown: its scheme and host only (the rest may be a token)."""
    if not url:
        return url
    parts = urlsplit(url)
    secret = parts.path.strip("/") or parts.query or parts.username
    host = parts.hostname or ""
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is not a number: show none
        port = ""
    return f"{parts.scheme}://{host}{port}" + (f"/{REDACTED}" if secret else "")


def load_monitors(path: Path | None = None) -> list[MonitorSpec]:
    """The monitors declared in ``path`` (default: the shipped file), validated.

    Raises :class:`~quizbot.errors.InputError` naming the file, monitor and key of every problem.
    """
    path = path or default_schedules_file()
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(
            "no such schedules file",
            path=str(path),
            hint="set QUIZBOT_SCHEDULES_FILE or pass --schedules FILE",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the schedules file ({exc})", path=str(path)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc})", path=str(path)) from None
    except RecursionError:
        raise InputError("not valid TOML (nested far too deeply)", path=str(path)) from None
    problems = _Problems()
    lines = _key_lines(text)
    unknown = sorted(set(data) - {"monitor"})
    for key in unknown:
        problems.add("top level", key, "unknown table or key (monitors go in [[monitor]] tables)")
    tables = data.get("monitor", [])
    if not isinstance(tables, list):
        problems.add("top level", "monitor", "write each monitor as a [[monitor]] table")
        tables = []
    specs: list[MonitorSpec] = []
    seen: set[str] = set()
    for index, table in enumerate(tables, start=1):
        label = table.get("name") if isinstance(table.get("name"), str) else None
        where = f"monitor {label!r}" if label else f"monitor #{index}"
        problems.lines = lines[index - 1] if len(lines) == len(tables) else None
        spec = _monitor(table, where, problems)
        if spec is None:
            continue
        if spec.name in seen:
            problems.add(where, "name", "another monitor has the same name")
            continue
        seen.add(spec.name)
        specs.append(spec)
    if problems.items:
        error = InputError(
            "; ".join(problems.items),
            path=str(path),
            hint="fix the schedules file; see schedules/monitors.toml for every key",
        )
        if len(problems.places) == 1:  # one problem: its place also as attributes
            error.line, error.field = problems.places[0]
        raise error
    return specs


def find_monitor(specs: Sequence[MonitorSpec], name: str) -> MonitorSpec:
    """The monitor called ``name``; :class:`InputError` listing the names otherwise."""
    for spec in specs:
        if spec.name == name:
            return spec
    names = ", ".join(s.name for s in specs) or "none declared"
    raise InputError(f"no monitor named {name!r}", hint=f"monitors: {names}")
