"""Scheduled monitors: definitions as data (``monitors.toml``), checked by :mod:`schedules.config`.

The nightly work itself (claiming a night, running it, drift statistics, alerts) lives in
:mod:`quizbot.monitoring.nights`; the APScheduler wiring in :mod:`quizbot.monitoring.scheduler`.
"""
