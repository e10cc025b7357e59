"""attnbook.utils: seeding and the denormal-flushing context."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from attnbook.utils import default_device, flush_denormals, set_seed


def legacy() -> float:
    return np.random.rand()  # noqa: NPY002 (set_seed also seeds NumPy's global generator)


def test_set_seed_makes_every_generator_repeat():
    set_seed(3)
    first = (random.random(), legacy(), torch.rand(1).item())
    set_seed(3)
    assert (random.random(), legacy(), torch.rand(1).item()) == first
    with pytest.raises(ValueError):
        set_seed(-1)


def test_flush_denormals_only_inside_the_block():
    if not torch.set_flush_denormal(False):
        pytest.skip("this CPU cannot flush denormals")
    denormal = torch.tensor([1e-39], dtype=torch.float32)
    with flush_denormals():
        inside = (denormal * 1.0).item()
    outside = (denormal * 1.0).item()
    assert inside == 0.0 and outside > 0.0


def test_default_device_is_usable():
    assert torch.zeros(1, device=default_device()).numel() == 1


def test_num_threads_sets_and_restores():
    from attnbook.utils import num_threads

    before = torch.get_num_threads()
    with num_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with num_threads(None):
        assert torch.get_num_threads() == before


def test_version_comes_from_the_package_metadata():
    from importlib.metadata import version
    from pathlib import Path

    import attnbook

    assert attnbook.__version__ == version("attnbook")
    source = (Path(attnbook.__file__).parent / "__init__.py").read_text(encoding="utf-8")
    assert attnbook.__version__ not in source  # typed once, in pyproject.toml


def test_the_public_surface():
    import attnbook

    for name in ("Transformer", "TransformerConfig", "fit", "History", "greedy_decode",
                 "beam_search", "translate", "scaled_dot_product_attention", "masked_softmax",
                 "MultiHeadAttention", "causal_mask", "padding_mask", "set_seed",
                 "default_device", "load_checkpoint", "save_checkpoint"):  # fmt: skip
        assert name in attnbook.__all__ and hasattr(attnbook, name)
