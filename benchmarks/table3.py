"""The paper's Table 3 in miniature: every variation of `attnbook.miniature.TABLE3` (rows
(A)–(E)), and beside it the base with other tokenisations and with batches grouped by
length, each trained with several seeds on English → German number words.

Usage: `.venv/bin/python benchmarks/table3.py [--seeds 0 1 2] [--jobs 2] [--threads 1]`
(about 40 CPU-minutes: some 20 minutes on two quiet cores). Writes the runs to
`src/attnbook/results/table3.json` (shipped with the package, so that the chapter reads them
in Colab too) after each run, so an interrupted sweep resumes where it stopped; then the
table, `benchmarks/results/table3.md`. `--md-only` rewrites the table from the JSON.

Runs go to `--jobs` worker processes of `--threads` PyTorch threads each: tiny models gain
little from a second thread, and two threads spin-wait on each other when the machine is
busy, so two one-thread processes use two cores best.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
JSON = ROOT / "src" / "attnbook" / "results" / "table3.json"
MD = ROOT / "benchmarks" / "results" / "table3.md"

_DATA: dict = {}  # per worker: the data of each tokenisation, made once


def _init_worker(threads: int) -> None:
    torch.set_num_threads(threads)


def _run(task: tuple[str, str, int, dict]) -> dict:
    from attnbook.miniature import run_variation, variation, variation_data

    row, name, seed, overrides = task
    v = variation(row, name)
    key = tuple(sorted((k, x) for k, x in v.changes.items() if k in ("tokenizer", "vocab_size")))
    if key not in _DATA:
        _DATA[key] = variation_data(v)
    return run_variation(v, seed, _DATA[key], **overrides)


def _load(path: Path) -> dict:
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    return {"meta": {}, "runs": []}


def _save(results: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def sweep(
    path: Path, seeds: list[int], jobs: int, threads: int, rows: list[str], overrides: dict
) -> None:
    from attnbook.miniature import TABLE3, VARIANTS_BESIDE

    results = _load(path)
    done = {(r["row"], r["name"], r["seed"]) for r in results["runs"]}
    tasks = [
        (v.row, v.name, s, overrides)
        for s in seeds
        for v in [*TABLE3, *VARIANTS_BESIDE]
        if (v.row, v.name, s) not in done and (not rows or v.row in rows)
    ]
    tasks.sort(key=lambda t: t[1] != "characters")  # the longest runs first
    print(f"{len(tasks)} runs to do ({len(done)} already in {path})")
    start = time.perf_counter()
    context = multiprocessing.get_context("spawn")  # fresh workers: no forked thread pools
    with context.Pool(jobs, initializer=_init_worker, initargs=(threads,)) as pool:
        for r in pool.imap_unordered(_run, tasks):
            results["runs"].append(r)
            _save(results, path)
            print(
                f"({r['row']}) {r['name']} seed {r['seed']}: exact {r['exact']:.3f}, PPL "
                f"{r['ppl_token']:.3f}, BLEU {r['bleu']:.1f}; {r['train_s']:.0f} s "
                f"({r['steps_per_s']:.1f} steps/s, load {r['load']:.1f})",
                flush=True,
            )
    meta = results["meta"]
    runs = meta.setdefault("sweeps", [])
    if tasks:
        runs.append(
            {
                "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "runs": len(tasks),
                "wall_s": round(time.perf_counter() - start, 1),
                "jobs": jobs,
                "threads": threads,
                "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores",
                "torch": torch.__version__,
                **({"overrides": overrides} if overrides else {}),
            }
        )
    _save(results, path)


def _cell(mean: float, std: float, digits: int, star: bool = False) -> str:
    spread = "" if std != std else f" ± {std:.{digits}f}"  # no spread from one seed (NaN)
    return f"{mean:.{digits}f}{spread}{'*' if star else ''}"


def missing_runs(results: dict, seeds: list[int]) -> list[str]:
    """The (variation, seed) runs of the sweep that ``results`` does not hold yet."""
    from attnbook.miniature import TABLE3, VARIANTS_BESIDE

    done = {(r["row"], r["name"], r["seed"]) for r in results["runs"]}
    out = []
    for v in [*TABLE3, *VARIANTS_BESIDE]:
        absent = [s for s in seeds if (v.row, v.name, s) not in done]
        if absent:
            label = {"base": "", "tokens": "tokens: ", "batches": "batches: "}.get(
                v.row, f"({v.row}) "
            )
            out.append(f"{label}{v.name}: seed {', '.join(map(str, absent))}")
    return out


def markdown(results: dict, seeds: list[int] | None = None) -> str:
    from attnbook.miniature import PAPER_BASE, difference_in_se, summarise

    runs = results["runs"]
    summaries = summarise(runs)
    by_key = {}
    for r in runs:
        by_key.setdefault((r["row"], r["name"]), []).append(r)
    base = by_key[("base", "base")]
    sweeps = results["meta"].get("sweeps", [])
    loads = [r["load"] for r in runs]
    lines = [
        "# Table 3 in miniature",
        "",
        "Written by `benchmarks/table3.py` from the runs in `src/attnbook/results/table3.json`. "
        "Task: English → German number words, 300 training pairs, 1000 test numbers never seen "
        "in training. Base: N = 2, d_model = 64, d_ff = 256, h = 4, d_k = d_v = 16, P_drop = "
        "0.1, ε_ls = 0.1, sinusoidal positions, one BPE vocabulary of 160 pieces shared by "
        "source and target, 600 steps of 64 pairs (Adam, warm-up 60 steps to 5e-3, linear "
        "decay). Mean ± standard deviation over seeds (initial weights, dropout, batch order; "
        "the corpus and the test set are fixed).",
        "",
        "PPL: perplexity per target token under teacher forcing (per BPE piece, as the paper's "
        "is per word piece). Exact match and BLEU from greedy decoding, up to input length + "
        "50 tokens. BLEU: sacrebleu's corpus BLEU on characters (`tokenize='char'`); a German "
        "number is one word, so word BLEU (`13a`) finds no 2-, 3-, 4-grams and is 0 unless a "
        "model writes several words (runs with word BLEU above 0: "
        f"{sum(r['bleu_words'] > 0 for r in runs)} of {len(runs)}, largest "
        f"{max(r['bleu_words'] for r in runs):.1f}). "
        "`*`: the mean differs from the base by more than two standard errors (Welch; with "
        "at most 3 seeds a side, a weak test). The paper's column is its nearest row in the same "
        "direction; its model is N = 6, d_model = 512, h = 8, and its numbers are per-wordpiece "
        "perplexity and BLEU on newstest2013 (beam search, no checkpoint averaging).",
        "",
        "Training time: wall seconds of the 600 steps and steps per second, measured with "
        f"{runs[0]['threads']} PyTorch thread(s) per run"
        + (
            f", {sweeps[-1]['jobs']} runs at a time on {sweeps[-1]['machine']} "
            f"(torch {sweeps[-1]['torch']})"
            if sweeps
            else ""
        )
        + f"; 1-minute load average {min(loads):.1f}–{max(loads):.1f} when runs started"
        + (
            f"; the sweep took {sum(s['wall_s'] for s in sweeps) / 60:.0f} minutes"
            + (f" in {len(sweeps)} parts" if len(sweeps) > 1 else "")
            if sweeps
            else ""
        )
        + ". CPU-s: the process's CPU time, steadier than wall time on a shared machine.",
        "",
        "| row | variation | params | seeds | PPL | exact match (%) | BLEU | steps/s | CPU-s | "
        "paper's row | paper PPL | paper BLEU |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    extra = []
    for s in summaries:
        rs = by_key[(s.row, s.name)]
        stars = {
            m: s.row != "base"
            and min(len(rs), len(base)) > 1
            and abs(difference_in_se([r[m] for r in rs], [r[m] for r in base])) > 2
            for m in ("ppl_token", "exact", "bleu")
        }
        cells = [
            _cell(s.mean["ppl_token"], s.std["ppl_token"], 3, stars["ppl_token"]),
            _cell(100 * s.mean["exact"], 100 * s.std["exact"], 1, stars["exact"]),
            _cell(s.mean["bleu"], s.std["bleu"], 1, stars["bleu"]),
        ]
        if s.row in ("tokens", "batches"):
            extra.append((s, rs, cells))
            continue
        label = "base" if s.row == "base" else f"({s.row})"
        paper = s.paper
        paper_cells = (
            [paper.variation, f"{paper.ppl:.2f}", f"{paper.bleu:.1f}"] if paper else ["—"] * 3
        )
        lines.append(
            f"| {label} | {s.name} | {s.params:,} | {s.seeds} | {' | '.join(cells)} | "
            f"{s.mean['steps_per_s']:.1f} | {s.mean['cpu_s']:.0f} | {' | '.join(paper_cells)} |"
        )
    absent = missing_runs(results, seeds if seeds is not None else [0, 1, 2])
    lines += [
        "",
        f"The paper's {PAPER_BASE.variation}: PPL {PAPER_BASE.ppl}, BLEU {PAPER_BASE.bleu}.",
        "",
        *(
            [
                "**Incomplete sweep.** Runs not in the file (variations without any run are "
                "absent from the tables): " + "; ".join(absent) + ".",
                "",
            ]
            if absent
            else []
        ),
        "## Beside the table: tokens and batches",
        "",
        "The base with a character vocabulary and with other BPE sizes (each vocabulary learned "
        "from the 300 training pairs), and with batches grouped by length. PPL per character "
        "divides the same log-likelihood by the number of target characters (+1 for `<eos>`), "
        "so it compares vocabularies.",
        "",
        "| variation | vocabulary | PPL per token | PPL per character | exact match (%) | BLEU "
        "| chrF | training, wall s | steps/s | CPU-s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base_summary = next(s for s in summaries if s.row == "base")
    rows = [(base_summary, base, None), *extra]
    for s, rs, _ in rows:
        name = "BPE, 160 pieces (the base)" if s.row == "base" else s.name
        lines.append(
            f"| {name} | {rs[0]['vocab']} | {_cell(s.mean['ppl_token'], s.std['ppl_token'], 3)} | "
            f"{_cell(s.mean['ppl_char'], s.std['ppl_char'], 4)} | "
            f"{_cell(100 * s.mean['exact'], 100 * s.std['exact'], 1)} | "
            f"{_cell(s.mean['bleu'], s.std['bleu'], 1)} | {_cell(s.mean['chrf'], s.std['chrf'], 1)}"
            f" | {s.mean['train_s']:.0f} | {s.mean['steps_per_s']:.1f} | {s.mean['cpu_s']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--jobs", type=int, default=2, help="runs at a time (processes)")
    parser.add_argument("--threads", type=int, default=1, help="PyTorch threads per run")
    parser.add_argument("--rows", nargs="*", default=[], help="only these rows (base, A, …)")
    parser.add_argument("--md-only", action="store_true", help="only rewrite the table")
    parser.add_argument("--json", type=Path, default=JSON, help="where the runs go")
    parser.add_argument("--md", type=Path, default=MD, help="where the table goes")
    parser.add_argument("--steps", type=int, help="fewer steps, for a quick check of the script")
    args = parser.parse_args()
    if not args.md_only:
        overrides = {"steps": args.steps, "warmup": args.steps // 10} if args.steps else {}
        sweep(args.json, args.seeds, args.jobs, args.threads, args.rows, overrides)
    args.md.write_text(markdown(_load(args.json), args.seeds), encoding="utf-8")
    print(args.md.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
