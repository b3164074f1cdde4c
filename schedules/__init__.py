"""Scheduled monitors: definitions as data (``monitors.toml``) and the APScheduler wiring.

The nightly monitor is built on the evaluation runs; until it lands this package holds only the
default schedules file, which declares no monitors.
"""
