"""quizbot: medical knowledge quizzing for students and knowledge monitoring for LLMs.

Importing the package makes the process offline-safe before any third-party library that could
phone home is imported: litellm would otherwise fetch its model cost map over the network at import
time and Gradio would send usage analytics. quizbot never needs either.
"""

from __future__ import annotations

import os

# Forced, not defaulted: neither behaviour is ever wanted in quizbot and both happen at import time.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
# Defaulted: a user who knowingly wants the Hugging Face hub online may still say so.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

__version__ = "0.1.0"

__all__ = ["__version__"]
