"""quizbot's own OpenAI-compatible test model server (standard library only, loopback only).

Tests start it as a subprocess (``tests/helpers/stub.py``) so the suite runs from a bare clone:

    python tests/helpers/model_server.py --port 0 [--answer true|false|idk|random|TEXT]
        [--oracle ITEMS.jsonl --policy correct|wrong|bar1|first|unsure|sdak [--noise P]]
        [--judge-correct WORD,WORD...]
        [--latency-ms N]
        [--error-rate P --seed S] [--status CODE [--echo-key]] [--log FILE]

The first line printed is ``listening on 127.0.0.1:PORT``. Endpoints: ``POST /v1/chat/completions``,
``POST /v1/completions``, ``POST /v1/embeddings``, ``GET /v1/models``, ``GET /health``.

The oracle reads quizbot item files: it answers the item whose text (or question) ends last in
the prompt, so few-shot demonstrations before it are ignored. Statements are answered by label,
choice items by their answer keys (read as the letters their right options have in the prompt,
so a question asked with its options in another order is still answered right), open-recall
items (``"answers"``) by their gold list: ``correct`` all of it, ``bar1`` the first half
(rounded up) and one entity nothing knows (:data:`WRONG_ENTITY`), ``first`` its first entity
only.
Policy ``unsure`` (statements): "True" to a true statement; to a false one "I do not know" when
the prompt offers it, else the right "False" (a two-pass assignment's forced second pass).
Policy ``sdak`` (statements): the right verdict first, then a reason ("Correct. Because ...",
"Incorrect. Because ..."); with ``--noise P`` a reply is, with probability P/2 each, the wrong
verdict first, or the right verdict not at the start ("The claim is correct, because ..."),
drawn from the server's seeded random generator (so repeats of a run differ).

A recall judge's prompt (quizbot/providers/judge.py: "Entry: ..." and "Is the entry a correct
answer") is answered before anything else: "Correct." when the entry contains one of the
comma-separated words of ``--judge-correct`` (case folded), "Incorrect." otherwise, and
"Maybe." for an entry containing "unclear" (a reply the judge's reader cannot use).
A rephrasing judge's prompt ("Rewrite: ..." and "Does the rewrite state the same claim") is
answered "Yes." when the rewrite contains one of those words, "No." otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

WRONG_ENTITY = "unrelated finding"
_FIXED = {"true": "True", "false": "False", "idk": "I do not know"}
IDK_OFFERED = "True, False or I do not know"  # a statement prompt that allows abstaining


class Oracle:
    """Right (or wrong) answers to quizbot items found in a prompt."""

    def __init__(
        self, path: Path, policy: str, noise: float = 0.0, draw: random.Random | None = None
    ) -> None:
        self.policy = policy
        self.noise = noise
        self.random = draw or random.Random(0)
        self.lock = threading.Lock()
        self.items: list[dict[str, Any]] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                self.items.append(json.loads(line))

    def find(self, prompt: str) -> dict[str, Any] | None:
        """The item whose text ends last in ``prompt`` (the one asked, after any examples)."""
        best: tuple[int, int, dict[str, Any]] | None = None
        for item in self.items:
            needle = item.get("text") or item.get("question") or ""
            if not needle:
                continue
            at = prompt.rfind(needle)
            if at < 0:
                continue
            end = at + len(needle)
            if best is None or (end, len(needle)) > (best[0], best[1]):
                best = (end, len(needle), item)
        if best is None:  # a choice question asked with its options in another order
            for item in self.items:
                needle = item.get("question") or ""
                at = prompt.rfind(needle) if needle and "options" in item else -1
                if at >= 0 and (best is None or (at + len(needle), len(needle)) > best[:2]):
                    best = (at + len(needle), len(needle), item)
        return best[2] if best else None

    @staticmethod
    def keys_as_offered(item: dict[str, Any], prompt: str) -> list[str]:
        """The letters the item's right options have in ``prompt`` (permutation runs), read from
        the option lines after its question; the item's own keys when they cannot be read."""
        keys = [str(k) for k in item.get("answer_keys", [])]
        options = [str(o) for o in item["options"]]
        after = prompt[prompt.rfind(str(item.get("question", ""))) :]
        offered: dict[str, list[str]] = {}  # an option's text -> its letters (texts may repeat)
        for line in after.splitlines():
            found = re.match(r"([A-J])\. (.*)$", line.strip())
            if found:
                offered.setdefault(found.group(2), []).append(found.group(1))
        right = [options[ord(k) - ord("A")] for k in keys]
        letters: list[str] = []
        for text in right:
            free = [x for x in offered.get(text, []) if x not in letters]
            if not free:
                return keys
            letters.append(free[0])
        return sorted(letters)

    def sdak(self, label: bool, text: str) -> str:
        """An SDAK reply: verdict first and a reason, with ``noise`` as in the module docstring."""
        with self.lock:
            u = self.random.random()
        verdict = "Correct" if label else "Incorrect"
        if u < self.noise / 2:
            verdict = "Incorrect" if label else "Correct"
        elif u < self.noise:
            return f"The claim is {verdict.lower()}, because the sources agree on: {text}"
        return f"{verdict}. Because the literature on this is consistent: {text}"

    def answer(self, prompt: str) -> str:
        """What the policy says to ``prompt``."""
        item = self.find(prompt)
        if item is None:
            return "I do not know"
        if "answers" in item:
            gold = [str(a) for a in item["answers"]]
            if self.policy == "correct":
                return ", ".join(gold)
            if self.policy == "bar1":
                # As the shared stub: the first half (rounded up) and one wrong entity.
                return ", ".join([*gold[: (len(gold) + 1) // 2], WRONG_ENTITY])
            if self.policy == "first":
                return gold[0]
            return "none"
        if "options" in item:
            keys = self.keys_as_offered(item, prompt)
            if self.policy != "wrong":
                return ", ".join(keys)
            letters = [chr(ord("A") + i) for i in range(len(item["options"]) - 1)]
            return next((x for x in letters if x not in keys), letters[0])
        label = bool(item.get("label"))
        if self.policy == "sdak":
            return self.sdak(label, str(item.get("text", "")))
        if self.policy == "unsure":  # sure of true statements; of false ones only when pushed
            if label:
                return "True"
            return "I do not know" if IDK_OFFERED in prompt else "False"
        if self.policy == "wrong":
            label = not label
        return "True" if label else "False"


class Server(ThreadingHTTPServer):
    """Holds the options and a request counter shared by the handler threads."""

    daemon_threads = True

    def __init__(self, port: int, options: argparse.Namespace) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.options = options
        self.lock = threading.Lock()
        self.count = 0
        self.random = random.Random(options.seed)
        self.oracle = (
            Oracle(Path(options.oracle), options.policy, options.noise, self.random)
            if options.oracle
            else None
        )

    def next_number(self) -> int:
        with self.lock:
            self.count += 1
            return self.count


JUDGE_MARKER = "Is the entry a correct answer"
_ENTRY_RE = re.compile(r"^Entry: (.*)$", re.MULTILINE)


REPHRASE_JUDGE_MARKER = "Does the rewrite state the same claim"
_REWRITE_RE = re.compile(r"^Rewrite: (.*)$", re.MULTILINE)


def _judge_reply(prompt: str, correct: str | None) -> str | None:
    """The judge's verdict on a recall or rephrasing judge prompt (module docstring), else None."""
    rewrite = _REWRITE_RE.search(prompt)
    if REPHRASE_JUDGE_MARKER in prompt and rewrite is not None:
        words = [w.strip().casefold() for w in (correct or "").split(",") if w.strip()]
        return "Yes." if any(w in rewrite.group(1).casefold() for w in words) else "No."
    found = _ENTRY_RE.search(prompt)
    if JUDGE_MARKER not in prompt or found is None:
        return None
    entry = found.group(1).casefold()
    if "unclear" in entry:
        return "Maybe."
    words = [w.strip().casefold() for w in (correct or "").split(",") if w.strip()]
    return "Correct." if any(w in entry for w in words) else "Incorrect."


def _words(text: str) -> int:
    return len(text.split())


def _embedding(text: str, dims: int = 64) -> list[float]:
    vector = [0.0] * dims
    for word in text.lower().split():
        digest = hashlib.sha256(word.encode()).digest()
        vector[digest[0] % dims] += 1.0 if digest[1] % 2 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class Handler(BaseHTTPRequestHandler):
    """One request."""

    server: Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str) -> None:
        self._send(status, {"error": {"message": message, "type": kind, "code": str(status)}})

    def do_GET(self) -> None:
        """Health and the model list."""
        if self.path.rstrip("/") in {"/health", "/v1/health"}:
            self._send(200, {"status": "ok"})
        elif self.path.rstrip("/") == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})
        else:
            self._error(404, f"no route {self.path}", "not_found")

    def do_POST(self) -> None:
        """Completions and embeddings."""
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            self._error(400, f"bad JSON body: {exc}", "invalid_request_error")
            return
        path = self.path.rstrip("/")
        if path == "/v1/embeddings":
            texts = body.get("input", [])
            texts = [texts] if isinstance(texts, str) else list(texts)
            data = [
                {"object": "embedding", "index": i, "embedding": _embedding(str(t))}
                for i, t in enumerate(texts)
            ]
            usage = {"prompt_tokens": sum(_words(str(t)) for t in texts), "total_tokens": 0}
            usage["total_tokens"] = usage["prompt_tokens"]
            self._send(200, {"object": "list", "data": data, "model": body.get("model"),
                             "usage": usage})  # fmt: skip
            return
        if path not in {"/v1/chat/completions", "/v1/completions"}:
            self._error(404, f"no route {self.path}", "not_found")
            return
        self._complete(path, body)

    def _complete(self, path: str, body: dict[str, Any]) -> None:
        options = self.server.options
        chat = path.endswith("chat/completions")
        if chat:
            prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
            last = str((body.get("messages") or [{}])[-1].get("content", ""))
        else:
            raw = body.get("prompt", "")
            prompt = last = raw if isinstance(raw, str) else "\n".join(map(str, raw))
        if options.log:
            entry = {"path": path, "model": body.get("model"), "prompt": prompt,
                     "max_tokens": body.get("max_tokens"), "stop": body.get("stop"),
                     "temperature": body.get("temperature")}  # fmt: skip
            with self.server.lock, Path(options.log).open("a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")
        number = self.server.next_number()
        if options.latency_ms:
            time.sleep(options.latency_ms / 1000)
        if options.status:
            message = f"request refused with HTTP {options.status}"
            if options.echo_key:
                # As careless providers do: the header, the bare key, and the key in a URL.
                header = self.headers.get("Authorization", "")
                key = header.removeprefix("Bearer ").strip()
                message += (
                    f"; key sent: {header}; the key {key} is not valid"
                    f" (see https://example.invalid/keys?api_key={key})"
                )
            kind = {401: "authentication_error", 404: "not_found_error"}.get(
                options.status, "invalid_request_error"
            )
            self._error(options.status, message, kind)
            return
        if options.error_rate and self._draw(number) < options.error_rate:
            if number % 2:
                self._error(429, "rate limited (injected)", "rate_limit_error")
            else:
                self._error(500, "server error (injected)", "server_error")
            return
        judged = _judge_reply(last, options.judge_correct)
        if judged is not None:
            text = judged
        else:
            text = self._answer(last if self.server.oracle is None else prompt)
        model = body.get("model") or "test-model"
        usage = {"prompt_tokens": _words(prompt), "completion_tokens": _words(text)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if chat:
            reply = {"role": "assistant", "content": text}
            choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "message": reply}
            kind = "chat.completion"
        else:
            choice = {"index": 0, "finish_reason": "stop", "text": text, "logprobs": None}
            kind = "text_completion"
        self._send(200, {"id": f"cmpl-{number}", "object": kind, "created": int(time.time()),
                         "model": model, "choices": [choice], "usage": usage})  # fmt: skip

    def _draw(self, number: int) -> float:
        digest = hashlib.sha256(f"{self.server.options.seed}:{number}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    def _answer(self, prompt: str) -> str:
        if self.server.oracle is not None:
            return self.server.oracle.answer(prompt)
        answer: str = self.server.options.answer
        if answer == "random":
            with self.server.lock:
                return self.server.random.choice(["True", "False"])
        return _FIXED.get(answer, answer)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--answer", default="true")
    parser.add_argument("--oracle")
    parser.add_argument(
        "--policy",
        choices=["correct", "wrong", "bar1", "first", "unsure", "sdak"],
        default="correct",
    )
    parser.add_argument("--noise", type=float, default=0.0)
    parser.add_argument("--judge-correct", default=None)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--error-rate", type=float, default=0.0)
    parser.add_argument("--seed", default="0")
    parser.add_argument("--status", type=int, default=0)
    parser.add_argument("--echo-key", action="store_true")
    parser.add_argument("--log")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Serve until SIGTERM or SIGINT."""
    options = parse_args(argv)
    server = Server(options.port, options)

    def stop(_signum: int, _frame: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    host, port = server.server_address[:2]
    assert isinstance(host, str)  # an AF_INET address: the host is text, never bytes
    print(f"listening on {host}:{port}", flush=True)
    server.serve_forever()
    server.server_close()


if __name__ == "__main__":
    main(sys.argv[1:])
