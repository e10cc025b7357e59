"""The trained number-words translator that the later chapters compare on.

On the date task every model lands at the 100% ceiling, where a change that costs
accuracy cannot show. The number-words task (English → German, ``attnbook.miniature``)
leaves the miniature base model well below 100% exact match on numbers never seen in
training, and its per-token perplexity never saturates: int8 weights, a distilled
student or another attention pattern can be measured against it.

- ``NUMBER_RECIPE``: the arguments of :func:`attnbook.miniature.number_data` and
  :func:`attnbook.miniature.train_number_model` that made the shipped checkpoint;
- :func:`train_shipped_number_model` trains it again; :func:`save_number_model` writes
  it (float16 safetensors, the BPE vocabulary and the recipe as metadata);
  :func:`write_number_checkpoint` does both and stores the test scores it measured;
- :func:`load_number_model` returns the shipped model with the corpus, the test set and
  the tokenizer it was trained with.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import torch

from attnbook.checks import describe
from attnbook.data.numbers import number_corpus, number_test_set
from attnbook.miniature import NumberData, train_number_model
from attnbook.model import Transformer, load_checkpoint, save_checkpoint
from attnbook.tokenize import BPETokenizer
from attnbook.train import History

NUMBER_CHECKPOINT = "numbers_tiny.safetensors"

# The shipped checkpoint: the miniature base (N = 2, d_model = 64, h = 4, one shared BPE
# vocabulary of 160 pieces) trained for 600 steps of 64 pairs on 300 English → German pairs.
NUMBER_RECIPE: dict[str, Any] = {
    "data": {"tokenizer": "bpe", "vocab_size": 160, "n_train": 300, "seed": 0, "n_test": 1000},
    "train": {"steps": 600, "batch_size": 64, "peak_lr": 5e-3, "warmup": 60, "seed": 0},
}


class NumberModel(NamedTuple):
    """The shipped number-words translator and what it takes to evaluate it."""

    model: Transformer  # in eval mode
    data: NumberData  # its tokenizer, its 300 training pairs and the 1000 test pairs
    recipe: dict[str, Any]  # the arguments that trained it (NUMBER_RECIPE)
    metadata: dict[str, str]  # what save_number_model stored beside the weights


def _data_with(tokenizer: BPETokenizer, data_args: dict[str, Any]) -> NumberData:
    """number_data()'s corpus and test set, encoded with a given ``tokenizer``."""
    train = number_corpus(data_args["n_train"], data_args["seed"], "de")
    test = number_test_set(data_args["n_test"], target="de")
    return NumberData.encode(tokenizer, train, test)


def train_shipped_number_model(
    device: str | torch.device = "cpu", progress: bool = True
) -> tuple[Transformer, NumberData, History]:
    """Train the shipped checkpoint's model again from ``NUMBER_RECIPE`` (seeded)."""
    from attnbook.miniature import number_data

    data = number_data(**NUMBER_RECIPE["data"])
    model, history = train_number_model(
        data, device=device, progress=progress, **NUMBER_RECIPE["train"]
    )
    return model.eval(), data, history


def save_number_model(
    model: Transformer, data: NumberData, path: str | Path, **metadata: str
) -> None:
    """Write ``model`` as float16 safetensors with ``data``'s BPE vocabulary and
    ``NUMBER_RECIPE`` as metadata (``metadata``: more strings to store)."""
    if not isinstance(data, NumberData) or not isinstance(data.tokenizer, BPETokenizer):
        raise TypeError(f"data must be a BPE NumberData of number_data(), got {describe(data)}")
    save_checkpoint(
        model,
        path,
        dtype=torch.float16,
        tokenizer=data.tokenizer.to_json(),
        recipe=json.dumps(NUMBER_RECIPE),
        **metadata,
    )


def write_number_checkpoint(path: str | Path, progress: bool = True) -> dict[str, float]:
    """Train :func:`train_shipped_number_model`, score it on the test set
    (:func:`attnbook.miniature.translation_scores`, greedy) and save it to ``path`` with
    those scores as metadata ``test_scores``; returns them. This wrote the shipped file."""
    from attnbook.miniature import translation_scores

    model, data, _ = train_shipped_number_model(progress=progress)
    scores = translation_scores(model, data)
    measured = {
        k: round(getattr(scores, k), 6) for k in ("exact", "bleu", "chrf", "ppl_token", "ppl_char")
    }
    save_number_model(model, data, path, test_scores=json.dumps(measured))
    return measured


def load_number_model(device: str | torch.device = "cpu") -> NumberModel:
    """The number-words translator shipped with the package (trained by
    :func:`train_shipped_number_model`), in eval mode, with its data and tokenizer."""
    path = resources.files("attnbook.checkpoints").joinpath(NUMBER_CHECKPOINT)
    with resources.as_file(path) as file:
        model, metadata = load_checkpoint(file, device=device)
    tokenizer = BPETokenizer.from_json(metadata.pop("tokenizer"))
    recipe = json.loads(metadata.pop("recipe"))
    if len(tokenizer) != model.config.tgt_vocab:
        raise ValueError(
            f"{NUMBER_CHECKPOINT}: its tokenizer has {len(tokenizer)} pieces but the model "
            f"{model.config.tgt_vocab}"
        )
    return NumberModel(model.eval(), _data_with(tokenizer, recipe["data"]), recipe, metadata)
