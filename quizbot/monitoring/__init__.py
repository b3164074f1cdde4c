"""Monitoring: nightly runs per monitor x model, drift statistics, alerts, the scheduler."""
