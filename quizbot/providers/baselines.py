"""Built-in baselines, as ordinary providers: what a model must beat.

* ``baseline/random``: True or False (or a random option letter) by a seeded hash of the prompt,
  so the same prompt always gets the same answer;
* ``baseline/always-true``: answers True to every statement (and the first option of a choice);
* ``baseline/majority``: always the most frequent answer key of the evaluated items.
"""

from __future__ import annotations

import hashlib

from quizbot.providers.base import Completion, Request

__all__ = ["BASELINES", "AlwaysTrue", "Majority", "RandomBaseline"]


class _Baseline:
    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def name(self) -> str:
        """The baseline's model string."""
        return self._name

    @property
    def max_concurrency(self) -> int:
        """Baselines answer instantly; no need to limit them."""
        return 256

    def answer(self, request: Request) -> str:
        raise NotImplementedError

    async def aclose(self) -> None:
        """Nothing to release."""

    async def complete(self, request: Request) -> Completion:
        """The baseline's answer, reported under its own name."""
        return Completion(text=self.answer(request), model=self._name, latency_ms=0.0)


class RandomBaseline(_Baseline):
    """Uniformly random answers, reproducible by seed and prompt."""

    def __init__(self, seed: int | str = 0) -> None:
        super().__init__("baseline/random")
        self.seed = str(seed)

    def answer(self, request: Request) -> str:
        """True/False (or a letter) from a hash of (seed, prompt)."""
        digest = hashlib.sha256(f"{self.seed}\x1f{request.text}".encode()).digest()
        if request.options:
            return request.options[digest[0] % len(request.options)]
        return "True" if digest[0] % 2 == 0 else "False"


class AlwaysTrue(_Baseline):
    """Agrees with everything: the sycophancy floor."""

    def __init__(self) -> None:
        super().__init__("baseline/always-true")

    def answer(self, request: Request) -> str:
        """Always True (or the first option)."""
        return request.options[0] if request.options else "True"


class Majority(_Baseline):
    """Always the evaluated set's most frequent answer key."""

    def __init__(self, majority_answer: str) -> None:
        super().__init__("baseline/majority")
        self.majority_answer = majority_answer

    def answer(self, request: Request) -> str:
        """The majority answer, whatever the question."""
        return self.majority_answer


BASELINES = ("baseline/random", "baseline/always-true", "baseline/majority")
