"""attnbook.measure: timing and peak memory, checked against calls of known cost."""

from __future__ import annotations

import functools
import time

import pytest
import torch

from attnbook.attention import scaled_dot_product_attention
from attnbook.efficient import score_bytes, sliding_window_attention
from attnbook.measure import cpu_cache_sizes, peak_memory, time_call, time_forward_backward

MiB = 2**20


def test_peak_memory_sees_the_two_n_by_n_matrices():
    n = 512
    q, k, v = (torch.randn(1, 1, n, 32) for _ in range(3))
    full = peak_memory(scaled_dot_product_attention, q, k, v)
    assert full >= 2 * score_bytes(n, n)  # the scores and the weights, alive at once
    assert full < 3 * score_bytes(n, n)
    local = peak_memory(functools.partial(sliding_window_attention, window=8), q, k, v)
    assert local < score_bytes(n, n)


def test_peak_memory_counts_temporaries_freed_before_the_call_returns():
    def two_then_one() -> torch.Tensor:
        a = torch.ones(1024, 256)  # 1 MiB
        b = a + 1  # 1 MiB more: 2 MiB alive
        del a
        return b.sum()  # 1 MiB alive, then freed

    assert peak_memory(two_then_one) == pytest.approx(2 * MiB, abs=4096)
    assert peak_memory(lambda: torch.ones(1024, 1024)) == pytest.approx(4 * MiB, abs=4096)
    x = torch.ones(1024, 1024)
    assert peak_memory(lambda x: x.view(-1), x) == 0  # a view allocates nothing


def test_time_call_returns_the_fastest_run():
    x = torch.randn(64, 64)
    assert 0 < time_call(torch.mm, x, x, repeats=2) < 10
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.02 if len(calls) != 2 else 0.1)

    assert 0.02 <= time_call(slow, repeats=3, warmup=0) < 0.09  # the 0.1 s run is not the min
    assert len(calls) == 3
    with pytest.raises(ValueError, match="repeats must be a positive int, got 0"):
        time_call(torch.mm, x, x, repeats=0)
    with pytest.raises(TypeError, match="fn must be callable"):
        time_call("mm", x)


def test_time_call_runs_without_gradients_unless_asked():
    seen = []
    time_call(lambda: seen.append(torch.is_grad_enabled()), repeats=1, warmup=0)
    time_call(lambda: seen.append(torch.is_grad_enabled()), repeats=1, warmup=0, grad=True)
    assert seen == [False, True]


def test_time_forward_backward():
    seconds = time_forward_backward(lambda x: x.tanh(), torch.randn(4, 8), repeats=2)
    assert 0 < seconds < 5

    def slow(x):
        time.sleep(0.02)
        return x.tanh()

    assert time_forward_backward(slow, torch.randn(2), repeats=2) >= 0.02
    x = torch.randn(3)
    time_forward_backward(lambda x: x.exp(), x, repeats=1)
    assert x.grad is None and not x.requires_grad  # the caller's tensor is left alone
    with pytest.raises(ValueError, match="repeats"):
        time_forward_backward(lambda x: x, torch.randn(2), repeats=0)
    with pytest.raises(TypeError, match="x must be a floating-point"):
        time_forward_backward(lambda x: x, torch.arange(3))


def _fake_cache(root, entries) -> None:
    for i, (kind, level, size) in enumerate(entries):
        d = root / f"index{i}"
        d.mkdir()
        (d / "type").write_text(kind + "\n")
        (d / "level").write_text(f"{level}\n")
        (d / "size").write_text(size + "\n")


def test_cpu_cache_sizes_reads_data_caches_by_level(tmp_path):
    _fake_cache(
        tmp_path,
        [
            ("Data", 1, "48K"),
            ("Instruction", 1, "32K"),
            ("Unified", 2, "2048K"),
            ("Unified", 3, "32M"),
        ],
    )
    assert cpu_cache_sizes(tmp_path) == {"L1": 48 * 1024, "L2": 2 * MiB, "L3": 32 * MiB}
    assert cpu_cache_sizes(tmp_path / "missing") == {}


def test_cpu_cache_sizes_skips_what_it_cannot_read(tmp_path):
    _fake_cache(tmp_path, [("Unified", 2, "unknown"), ("Unified", 3, "16M")])
    (tmp_path / "index9").mkdir()  # no files at all
    assert cpu_cache_sizes(tmp_path) == {"L3": 16 * MiB}


def test_cpu_cache_sizes_of_this_machine_grow_with_the_level():
    sizes = list(cpu_cache_sizes().values())
    assert all(isinstance(s, int) and s > 0 for s in sizes)
    assert sizes == sorted(sizes)
