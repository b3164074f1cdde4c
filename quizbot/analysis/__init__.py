"""Analysis: metrics with intervals, run reports and comparisons, humans vs models."""
