"""Time incremental decoding with and without the key/value cache, against the output length.

Usage: `.venv/bin/python benchmarks/kv_cache.py [--lengths 64 128 256] [--runs 3] [--threads 1]
[--N 2] [--d-model 128] [--save]`.
A fresh (untrained) model generates T fixed tokens from a source of 32 tokens, once with
``Transformer.decode_step`` and its cache, once recomputing the whole prefix with
``Transformer.decode`` at every step; only the forward cost is measured. Prints (and with
--save writes benchmarks/results/kv_cache.md) the median over the runs of the total time and
of the time of the last 16 steps, for each T, with the load average and thread count.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import torch

from attnbook.model import Transformer, TransformerConfig

OUT = Path(__file__).resolve().parent / "results" / "kv_cache.md"
S, VOCAB = 32, 64


@torch.no_grad()
def step_seconds(model: Transformer, src: torch.Tensor, tokens: torch.Tensor, use_cache: bool):
    """Seconds of each decoding step, and the logits of the last one."""
    memory, _ = model.encode(src, need_weights=False)
    cache = model.start_cache(memory, src) if use_cache else None
    seconds = []
    for t in range(1, tokens.size(1) + 1):
        start = time.perf_counter()
        if use_cache:
            logits, cache, _, _ = model.decode_step(tokens[:, t - 1 : t], cache)
        else:
            logits = model.decode(tokens[:, :t], memory, src, need_weights=False)[0][:, -1]
        seconds.append(time.perf_counter() - start)
    return seconds, logits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[64, 128, 256])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--N", type=int, default=2)
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    load = os.getloadavg()

    torch.manual_seed(0)
    config = TransformerConfig.tiny(
        VOCAB, N=args.N, d_model=args.d_model, d_ff=4 * args.d_model, max_len=max(args.lengths)
    )
    model = Transformer(config).eval()
    src = torch.randint(3, VOCAB, (1, S))
    rows = []
    for T in args.lengths:
        tokens = torch.randint(3, VOCAB, (1, T))
        totals = {True: [], False: []}
        lasts = {True: [], False: []}
        for _ in range(args.runs):
            for use_cache in (True, False):  # interleaved: both see the same machine
                seconds, logits = step_seconds(model, src, tokens, use_cache)
                totals[use_cache].append(sum(seconds))
                lasts[use_cache].append(statistics.median(seconds[-16:]))
                if use_cache:
                    cached_logits = logits
                else:
                    torch.testing.assert_close(cached_logits, logits)
        cached, full = statistics.median(totals[True]), statistics.median(totals[False])
        last_cached, last_full = statistics.median(lasts[True]), statistics.median(lasts[False])
        rows.append(
            f"| {T} | {cached:.3f} | {full:.3f} | {full / cached:.1f}x "
            f"| {last_cached * 1e3:.2f} | {last_full * 1e3:.2f} |"
        )
        print(rows[-1], flush=True)

    report = "\n".join(
        [
            "# Key/value cache",
            "",
            f"Measured by `benchmarks/kv_cache.py` on {platform.machine()}, {os.cpu_count()} CPU "
            f"cores, torch {torch.__version__} ({args.threads} thread(s)); 1-minute load average "
            f"before the runs: {load[0]:.1f}. A fresh model (N={args.N}, "
            f"d_model={args.d_model}, d_ff={4 * args.d_model}) generates T tokens from a source "
            f"of {S}; median of {args.runs} runs.",
            "",
            "| T | with cache (s) | recomputing (s) | speed-up | last steps, cache (ms) "
            "| last steps, recomputing (ms) |",
            "|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
        ]
    )
    if args.save:
        OUT.write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
