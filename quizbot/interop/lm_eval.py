"""An item set as an lm-evaluation-harness task directory (``quizbot items export --format
lm-eval``).

The directory holds two tasks over the same documents (``data.jsonl``):

``quizbot_<NAME>``
    quizbot's chat prompt, the one ``quizbot eval`` sends every model but ``local/`` ones: the
    question alone as the user's message (run chat models with ``--apply_chat_template``;
    completion models get the same text).
``quizbot_<NAME>_completion``
    quizbot's completion layout for base models: the question, a new line and ``Answer:``,
    generation stopped at the end of the line, as ``quizbot eval`` asks ``local/`` models.

Both generate at most :data:`quizbot.domain.MAX_TOKENS` tokens greedily and score each reply
with quizbot's own parser and scorer (``utils.py``, a copy of
:mod:`quizbot.interop.lm_eval_task`): metric ``acc`` is quizbot's ``average_accuracy`` (right
answers over all items), ``answered`` its answer rate and ``unparsed`` the share of replies with
no readable answer. The prompts are built by :func:`quizbot.evaluation.prompts.build_prompt`,
zero-shot, so they are quizbot's text to the character.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from quizbot.domain import MAX_TOKENS
from quizbot.errors import InputError
from quizbot.evaluation.prompts import build_prompt
from quizbot.interop import lm_eval_task
from quizbot.items import ChoiceItem, StatementItem

__all__ = ["export_task", "task_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def task_name(set_name: str) -> str:
    """``quizbot_<NAME>``, with every run of characters a task name cannot hold (spaces, dots,
    brackets) turned into ``_``."""
    return "quizbot_" + (_UNSAFE.sub("_", set_name).strip("_") or "items")


def _target(item: StatementItem | ChoiceItem) -> str:
    if isinstance(item, ChoiceItem):
        return ", ".join(item.answer_keys)
    return "True" if item.label else "False"


def _yaml(task: str, prompt_field: str, until: Sequence[str]) -> str:
    stops = json.dumps(list(until))
    return f"""# Written by `quizbot items export --format lm-eval`: quizbot's prompt and scorer.
task: {task}
custom_dataset: !function utils.load
test_split: test
output_type: generate_until
doc_to_text: {prompt_field}
doc_to_target: target
target_delimiter: ""
num_fewshot: 0
generation_kwargs:
  until: {stops}
  max_gen_toks: {MAX_TOKENS}
  do_sample: false
  temperature: 0.0
process_results: !function utils.process_results
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: answered
    aggregation: mean
    higher_is_better: true
  - metric: unparsed
    aggregation: mean
    higher_is_better: false
metadata:
  version: 1.0
"""


def _readme(task: str, set_name: str, n: int, idk: bool) -> str:
    offered = ' with "I do not know" offered' if idk else ""
    return f"""# {task}

quizbot item set `{set_name}` ({n} items{offered}) as an lm-evaluation-harness task, written by
`quizbot items export {set_name} --format lm-eval`. The data are in `data.jsonl` (local; no
download), the scorer in `utils.py`, which imports quizbot's parser: install quizbot where you
run `lm_eval`.

    lm_eval --include_path THIS_DIRECTORY --tasks {task} \\
        --model local-chat-completions --apply_chat_template \\
        --model_args model=MODEL,base_url=http://HOST/v1/chat/completions

- `{task}`: quizbot's chat prompt (the question as the user's message); any model type.
- `{task}_completion`: quizbot's completion prompt for base models (`...\\nAnswer:`).

Metric `acc` is quizbot's `average_accuracy` (right answers over all items, a reply with no
readable answer or "I do not know" counting as not right), `answered` the answer rate,
`unparsed` the share of replies with no readable answer.
"""


def export_task(
    items: Sequence[StatementItem | ChoiceItem], set_name: str, out: Path, *, idk: bool = False
) -> str:
    """Write the task directory ``out`` for ``items``; returns the task name.

    ``out`` must not exist or be empty (:class:`InputError` otherwise); the directory is written
    in full beside it and then moved into place, so a failure leaves nothing half written.
    """
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(
            "exists and is not an empty directory", path=str(out), hint="choose a new --out"
        )
    if not items:
        raise InputError("the item set has no items", field="name")
    task = task_name(set_name)
    docs = []
    for item in items:
        if not isinstance(item, StatementItem | ChoiceItem):  # pragma: no cover - sets hold none
            raise InputError(f"item {item.id} is not a statement or choice item")
        docs.append(
            {
                "id": item.id,
                "kind": item.kind,
                "prompt_chat": build_prompt(item, idk=idk, style="chat").text,
                "prompt_completion": build_prompt(item, idk=idk, style="completion").text,
                "target": _target(item),
                "idk": idk,
                "item": json.dumps(item.to_json(), sort_keys=True),
            }
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        data = "".join(json.dumps(doc, sort_keys=True) + "\n" for doc in docs)
        (staging / lm_eval_task.DATA_FILE).write_text(data, encoding="utf-8")
        shutil.copyfile(lm_eval_task.__file__, staging / "utils.py")
        (staging / f"{task}.yaml").write_text(_yaml(task, "prompt_chat", []), encoding="utf-8")
        (staging / f"{task}_completion.yaml").write_text(
            _yaml(f"{task}_completion", "prompt_completion", ["\n"]), encoding="utf-8"
        )
        (staging / "README.md").write_text(
            _readme(task, set_name, len(docs), idk), encoding="utf-8"
        )
        staging.chmod(0o755)
        if out.exists():
            out.rmdir()
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return task
