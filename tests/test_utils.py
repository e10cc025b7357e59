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
