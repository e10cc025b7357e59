"""attnbook.train additions (label smoothing, mixed precision, activation memory) and
attnbook.metrics (perplexity, calibration), against PyTorch where it has a reference."""

from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor
from torch.utils._python_dispatch import TorchDispatchMode

from attnbook.data import COPY_VOCAB, DATE_VOCAB, date_batches, date_split
from attnbook.metrics import (
    expected_calibration_error,
    perplexity,
    reliability_bins,
    token_predictions,
)
from attnbook.model import Transformer, TransformerConfig
from attnbook.recipes import copy_accuracy, train_copy_model, train_date_model
from attnbook.train import (
    History,
    activation_bytes,
    fit,
    label_smoothing_loss,
    noam_lr,
    saved_tensor_bytes,
    seq2seq_batch_loss,
    seq2seq_loss,
    smoothed_targets,
    warmup_linear_decay,
)
from attnbook.utils import set_seed
from attnbook.viz.explorers.training import ScheduleExplorer, SmoothingExplorer

# ---------------------------------------------------------------- label smoothing


@pytest.mark.parametrize("epsilon", [0.0, 0.1, 0.3, 0.9])
@pytest.mark.parametrize("ignore_index", [None, 0])
def test_label_smoothing_loss_matches_pytorch(epsilon, ignore_index):
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(4, 7, 11, generator=g, dtype=torch.float64, requires_grad=True)
    target = torch.randint(0, 11, (4, 7), generator=g)
    target[0, :3] = 0  # some padding to ignore
    ours = label_smoothing_loss(logits, target, epsilon, ignore_index)
    reference = torch.nn.CrossEntropyLoss(
        label_smoothing=epsilon, ignore_index=-100 if ignore_index is None else ignore_index
    )(logits.reshape(-1, 11), target.reshape(-1))
    torch.testing.assert_close(ours, reference, atol=1e-6, rtol=1e-6)
    (g_ours,) = torch.autograd.grad(ours, logits)
    (g_ref,) = torch.autograd.grad(reference, logits)
    torch.testing.assert_close(g_ours, g_ref, atol=1e-6, rtol=1e-6)


def test_smoothed_targets_are_distributions_with_the_papers_values():
    epsilon, V = 0.1, 5
    q = smoothed_targets(torch.tensor([[2, 0], [4, 1]]), V, epsilon, dtype=torch.float64)
    assert q.shape == (2, 2, V)
    torch.testing.assert_close(q.sum(-1), torch.ones(2, 2, dtype=torch.float64))
    assert q[0, 0, 2].item() == pytest.approx(1 - epsilon + epsilon / V)
    assert q[0, 0, 3].item() == pytest.approx(epsilon / V)
    assert (smoothed_targets(torch.tensor([3]), V, 0.0) == F.one_hot(torch.tensor([3]), V)).all()


def test_smoothed_loss_is_minimised_by_the_smoothed_distribution():
    # H(q', p) >= H(q') with equality at p = q': the loss no longer rewards p(y) -> 1
    epsilon, V = 0.2, 6
    target = torch.tensor([1, 4])
    q = smoothed_targets(target, V, epsilon, dtype=torch.float64)
    entropy = -(q * q.log()).sum(-1).mean()
    at_q = label_smoothing_loss(q.log(), target, epsilon)
    torch.testing.assert_close(at_q, entropy)
    confident = 20.0 * F.one_hot(target, V).double()
    assert label_smoothing_loss(confident, target, epsilon) > at_q + 1.0


def test_label_smoothing_loss_rejects_bad_input():
    logits, target = torch.randn(3, 5), torch.tensor([0, 1, 2])
    with pytest.raises(ValueError, match="epsilon"):
        label_smoothing_loss(logits, target, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        label_smoothing_loss(logits, target, -0.1)
    with pytest.raises(ValueError, match=r"\(3, 5\) and \(2,\)"):
        label_smoothing_loss(logits, target[:2], 0.1)
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        label_smoothing_loss(logits, torch.tensor([0, 1, 5]), 0.1)
    with pytest.raises(ValueError, match="ignore_index"):
        label_smoothing_loss(logits, torch.zeros(3, dtype=torch.long), 0.1, ignore_index=0)
    with pytest.raises(TypeError, match="target must be a long"):
        smoothed_targets(torch.tensor([0.0, 1.0]), 5, 0.1)


def test_seq2seq_loss_smoothing_equals_the_written_out_loss():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(len(DATE_VOCAB))).double()
    src, tgt = next(date_batches(date_split(0)[0], 8, seed=0))
    logits, _ = model(src, tgt[:, :-1])
    ours = label_smoothing_loss(logits, tgt[:, 1:], 0.1, ignore_index=model.config.pad_id)
    torch.testing.assert_close(ours, seq2seq_loss(model, src, tgt, 0.1), atol=1e-6, rtol=1e-6)


# ---------------------------------------------------------------- schedule


def test_noam_lr_peaks_at_warmup_with_the_closed_form_value():
    d_model, warmup = 512, 4000
    lrs = [noam_lr(s, d_model, warmup) for s in range(1, 20_001)]
    assert max(range(len(lrs)), key=lrs.__getitem__) + 1 == warmup
    assert max(lrs) == pytest.approx((d_model * warmup) ** -0.5)
    assert lrs[4 * warmup - 1] == pytest.approx(max(lrs) / 2)  # 1/√step: 4× the steps, half


# ---------------------------------------------------------------- the training loop


def _tiny_batch(n: int = 16):
    return next(date_batches(date_split(0)[0], n, seed=1))


def _quadratic(seed: int = 0) -> tuple[torch.nn.Linear, list[tuple[Tensor, Tensor]]]:
    """A linear model and batches for least squares, a loss whose steps are easy to check."""
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    model = torch.nn.Linear(3, 1)
    x = torch.randn(20, 8, 3, generator=g)
    return model, [(x[i], x[i].sum(-1, keepdim=True)) for i in range(20)]


def _mse(model: torch.nn.Module, batch: tuple[Tensor, Tensor]) -> Tensor:
    x, y = batch
    return F.mse_loss(model(x), y)


def test_fit_applies_the_schedule_at_every_step():
    # SGD without momentum: θ_t = θ_{t-1} − lr(t)·g_t, so the schedule shows in the weights
    model, batches = _quadratic()
    schedule = lambda step: 0.01 * step  # noqa: E731
    expected = [p.detach().clone() for p in model.parameters()]
    reference = torch.nn.Linear(3, 1)
    reference.load_state_dict(model.state_dict())
    for step, batch in enumerate(batches[:5], start=1):
        reference.zero_grad()
        _mse(reference, batch).backward()
        expected = [p - schedule(step) * p.grad for p in reference.parameters()]
        with torch.no_grad():
            for p, e in zip(reference.parameters(), expected):
                p.copy_(e)
    history = fit(model, batches, _mse, 5, schedule, optimizer="sgd", progress=False)
    assert history.lr == [0.01, 0.02, 0.03, 0.04, 0.05]  # steps count from 1
    for p, e in zip(model.parameters(), expected):
        torch.testing.assert_close(p.detach(), e)


def test_fit_uses_the_papers_adam_by_default():
    model, batches = _quadratic()
    history = fit(model, batches, _mse, 3, 1e-3, progress=False)
    assert history.lr == [1e-3] * 3  # a number is a constant rate
    # Adam's first step moves every weight by lr · sign(g) (up to ε), whatever the gradient
    model, batches = _quadratic()
    before = [p.detach().clone() for p in model.parameters()]
    fit(model, batches, _mse, 1, 1e-3, progress=False)
    for p, b in zip(model.parameters(), before):
        torch.testing.assert_close((p.detach() - b).abs(), torch.full_like(b, 1e-3))


def test_fit_weight_decay_is_decoupled_in_adamw():
    # a zero loss leaves only the decay. AdamW shrinks θ by (1 − lr·λ) per step; Adam adds
    # λθ to the gradient, and its first step, g / √(g²), moves every weight by lr
    zero = lambda model, batch: (model(batch[0]) * 0).sum()  # noqa: E731
    for optimizer in ("adamw", "adam"):
        model, batches = _quadratic()
        w0 = model.weight.detach().clone()
        steps = 4 if optimizer == "adamw" else 1
        fit(
            model, batches, zero, steps, 0.01, optimizer=optimizer, weight_decay=0.5, progress=False
        )
        if optimizer == "adamw":
            torch.testing.assert_close(model.weight.detach(), w0 * (1 - 0.01 * 0.5) ** 4)
        else:
            torch.testing.assert_close(model.weight.detach(), w0 - 0.01 * w0.sign())


def test_fit_stops_early_on_the_mean_of_the_last_window():
    model, batches = _quadratic()
    losses = [5.0, 4.0, 3.0, 0.5, 0.4, 0.3, 0.2, 0.1, 0.1, 0.1]

    def scripted(model, batch):  # a loss that follows the script, with a gradient
        seen.append(1)
        return _mse(model, batch) * 0 + losses[len(seen) - 1]

    seen: list[int] = []
    history = fit(model, batches, scripted, 10, 1e-3, stop_below=1.0, stop_window=3, progress=False)
    # windows: (5, 4, 3), (4, 3, .5), (3, .5, .4) = 1.3, (.5, .4, .3) = 0.4 < 1 at step 6
    assert history.steps == 6 and history.stopped_early
    assert history.loss == pytest.approx(losses[:6])
    model, batches = _quadratic()
    history = fit(model, batches, _mse, 5, 1e-3, stop_below=-1.0, progress=False)
    assert history.steps == 5 and not history.stopped_early


def test_fit_calls_back_every_step_and_ignores_what_it_returns():
    model, batches = _quadratic()
    calls = []

    def callback(step, loss):
        calls.append((step, loss))
        return True  # tqdm's update() returns True when it redraws: that must not stop

    history = fit(model, batches, _mse, 10, 1e-3, callback=callback, progress=False)
    assert [s for s, _ in calls] == list(range(1, 11)) and history.steps == 10
    assert all(isinstance(loss, Tensor) and not loss.requires_grad for _, loss in calls)
    assert [loss.item() for _, loss in calls] == history.loss


def test_fit_history_records_steps_seconds_and_metrics():
    model, batches = _quadratic()

    def with_metric(model, batch):
        loss = _mse(model, batch)
        return loss, {"double": 2 * loss.detach(), "const": 7.0}

    history = fit(model, iter(batches), with_metric, 6, 1e-2, progress=False)
    assert isinstance(history, History) and history.steps == 6 and not history.stopped_early
    assert len(history.loss) == len(history.lr) == len(history.seconds) == 6
    assert all(b >= a for a, b in zip(history.seconds, history.seconds[1:]))
    assert history.metrics["double"] == pytest.approx([2 * x for x in history.loss])
    assert history.metrics["const"] == [7.0] * 6
    assert not model.training  # left in eval mode


class _CountReadBacks(TorchDispatchMode):
    """Counts the reads of a tensor's value back into Python (.item(), float(), bool())."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.reads += func is torch.ops.aten._local_scalar_dense.default
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("optimizer", ["adamw", "adam", "sgd"])
def test_fit_reads_no_value_back_during_the_steps(optimizer):
    # a read-back waits for the device (a host sync on a GPU): the loop keeps the losses on
    # the device and reads them once, after the last step
    reads = []
    for steps in (2, 8):
        model, batches = _quadratic()
        with _CountReadBacks() as counter:
            history = fit(model, batches, _mse, steps, 1e-3, optimizer=optimizer, progress=False)
        reads.append(counter.reads)
        assert history.steps == steps and len(history.loss) == steps
    assert reads == [0, 0]
    # the counter does see a read: the same steps with a callback that reads each loss
    model, batches = _quadratic()
    with _CountReadBacks() as counter:
        fit(model, batches, _mse, 8, 1e-3, callback=lambda s, loss: loss.item(), progress=False)
    assert counter.reads == 8


def test_fit_on_the_transformer_lowers_the_loss():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(len(DATE_VOCAB)))
    batches = date_batches(date_split(0)[0], 32, seed=0)
    lr = lambda s: warmup_linear_decay(s, 5e-3, 10, 60)  # noqa: E731
    history = fit(model, batches, seq2seq_batch_loss(), 60, lr, progress=False)
    assert sum(history.loss[-5:]) < 0.5 * sum(history.loss[:5])


def test_copy_recipe_copies_every_new_sequence():
    model, history = train_copy_model(progress=False)
    assert history.steps == 280 and not model.training
    # greedy, on 1000 sequences it never saw; the last digit of a sum differs between CPUs
    # (vector width), which can flip one sequence of the 1000
    assert copy_accuracy(model) >= 0.995


def test_copy_recipe_trains_a_model_it_is_given():
    """The recipe's batches, schedule and loop on another model (what the training-time
    benchmark does with PyTorch's own layers): here the same tiny Transformer, made with
    the recipe's seed, gives the recipe's own losses."""
    set_seed(0)
    given = Transformer(TransformerConfig.tiny(COPY_VOCAB))
    model, history = train_copy_model(steps=40, progress=False, model=given)
    _, own = train_copy_model(steps=40, progress=False)
    assert model is given and history.loss == own.loss
    with pytest.raises(TypeError, match="model must be a torch.nn.Module, got"):
        train_copy_model(steps=40, progress=False, model="tiny")


def test_date_recipe_stop_after_takes_the_start_of_the_same_run():
    """stop_after keeps the learning rates of the whole run: its first steps, not a short run."""
    small = dict(batch_size=4, N=1, d_model=16, d_ff=32, h=2, progress=False)
    model, start = train_date_model(stop_after=3, **small)
    _, longer = train_date_model(stop_after=5, **small)
    assert start.steps == 3 and longer.steps == 5 and not model.training
    assert start.loss == longer.loss[:3]
    recipe = inspect.signature(train_date_model).parameters  # the shipped recipe's defaults
    steps, peak, warmup = (recipe[k].default for k in ("steps", "peak_lr", "warmup"))
    assert start.lr == [warmup_linear_decay(s, peak, warmup, steps) for s in (1, 2, 3)]
    with pytest.raises(ValueError, match=f"stop_after={steps + 1} is more than steps={steps}"):
        train_date_model(stop_after=steps + 1, **small)


def test_fit_reports_bad_arguments():
    model, batches = _quadratic()
    with pytest.raises(ValueError, match=r"batches ran out after 20 of steps=25 steps"):
        fit(model, batches, _mse, 25, 1e-3, progress=False)
    with pytest.raises(TypeError, match="loss_fn must return a scalar tensor"):
        fit(model, batches, lambda m, b: m(b[0]), 1, 1e-3, progress=False)
    with pytest.raises(ValueError, match="optimizer must be one of"):
        fit(model, batches, _mse, 1, 1e-3, optimizer="lamb", progress=False)
    with pytest.raises(TypeError, match="batches must be an iterable"):
        fit(model, torch.zeros(3), _mse, 1, 1e-3, progress=False)


def test_bf16_autocast_trains_close_to_float32_and_keeps_float32_weights():
    src, tgt = _tiny_batch()
    runs = {}
    for dtype in (None, torch.bfloat16):
        torch.manual_seed(0)
        model = Transformer(TransformerConfig.tiny(len(DATE_VOCAB)))
        runs[dtype] = fit(
            model, [(src, tgt)] * 5, seq2seq_batch_loss(), 5, 1e-3, progress=False, autocast=dtype
        ).loss
        assert all(p.dtype == torch.float32 for p in model.parameters())
    assert runs[None] != runs[torch.bfloat16]  # autocast really ran in lower precision
    for a, b in zip(runs[None], runs[torch.bfloat16]):
        assert abs(a - b) < 0.05 * a


def test_fp16_autocast_scales_the_loss_and_keeps_float32_weights():
    model, batches = _quadratic()
    history = fit(model, batches, _mse, 5, 1e-2, autocast=torch.float16, progress=False)
    assert history.steps == 5 and all(math.isfinite(x) for x in history.loss)
    assert all(p.dtype == torch.float32 for p in model.parameters())


def test_fit_rejects_unknown_autocast_dtype():
    model = Transformer(TransformerConfig.tiny(len(DATE_VOCAB)))
    with pytest.raises(ValueError, match="autocast"):
        fit(model, [], seq2seq_batch_loss(), 1, 1e-3, progress=False, autocast=torch.float64)
    with pytest.raises(ValueError, match="autocast"):
        activation_bytes(model, *_tiny_batch(2), autocast=torch.int8)


def test_activation_bytes_scale_with_batch_and_shrink_under_bf16():
    torch.manual_seed(0)
    model = Transformer(TransformerConfig.tiny(len(DATE_VOCAB))).eval()
    small, large = _tiny_batch(8), _tiny_batch(32)
    fp32_small, fp32_large = activation_bytes(model, *small), activation_bytes(model, *large)
    assert fp32_large > 3 * fp32_small  # activations grow with the batch; weights do not count
    bf16_large = activation_bytes(model, *large, autocast=torch.bfloat16)
    assert bf16_large < 0.8 * fp32_large
    assert not model.training  # the mode is restored
    per_dtype = saved_tensor_bytes(model, *large, autocast=torch.bfloat16)
    assert sum(per_dtype.values()) == bf16_large
    assert per_dtype[torch.bfloat16] > per_dtype[torch.float32]  # the matmuls ran in bf16
    assert torch.bfloat16 not in saved_tensor_bytes(model, *large)
    dropping = Transformer(TransformerConfig.tiny(len(DATE_VOCAB), dropout=0.1))
    state = torch.get_rng_state()
    saved_tensor_bytes(dropping, *small)
    assert torch.equal(torch.get_rng_state(), state)  # measuring draws no random numbers


# ---------------------------------------------------------------- explorers


def test_explorers_hold_small_valid_state():
    schedule = ScheduleExplorer(d_model=768, warmup=4000, steps=100_000)
    assert schedule.d_model == 768 and 768 in schedule.d_models
    smoothing = SmoothingExplorer(epsilon=0.1, V=len(DATE_VOCAB))
    assert (smoothing.epsilon, smoothing.V) == (0.1, len(DATE_VOCAB))


@pytest.mark.parametrize(
    "kwargs",
    [dict(d_model=500), dict(warmup=50), dict(warmup=4000.0), dict(steps=5000)],
)
def test_schedule_explorer_rejects_bad_settings(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ScheduleExplorer(**kwargs)


@pytest.mark.parametrize("kwargs", [dict(epsilon=-0.1), dict(epsilon=0.6), dict(V=1)])
def test_smoothing_explorer_rejects_bad_settings(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        SmoothingExplorer(**kwargs)


# ---------------------------------------------------------------- metrics


def test_token_predictions_and_perplexity_match_cross_entropy():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 6, 9, generator=g, dtype=torch.float64)
    target = torch.randint(0, 9, (3, 6), generator=g)
    target[:, -2:] = 0
    got = token_predictions(logits, target, ignore_index=0)
    n = int((target != 0).sum())
    assert got.confidence.shape == got.correct.shape == got.nll.shape == (n,)
    ce = F.cross_entropy(logits.reshape(-1, 9), target.reshape(-1), ignore_index=0)
    torch.testing.assert_close(got.nll.mean(), ce)
    assert perplexity(logits, target, ignore_index=0) == pytest.approx(math.exp(ce.item()))
    probs = logits.softmax(-1)[target != 0]
    torch.testing.assert_close(got.confidence, probs.max(-1).values)
    assert (got.correct == (probs.argmax(-1) == target[target != 0])).all()
    uniform = torch.zeros(2, 4, 9)
    assert perplexity(uniform, torch.ones(2, 4, dtype=torch.long)) == pytest.approx(9.0)


def test_ece_by_hand():
    # bins of width 0.5: {0.2, 0.4} -> conf 0.3, acc 0.5; {0.9, 1.0} -> conf 0.95, acc 0.5
    confidence = torch.tensor([0.2, 0.4, 0.9, 1.0])
    correct = torch.tensor([True, False, True, False])
    bins = reliability_bins(confidence, correct, n_bins=2)
    torch.testing.assert_close(bins.confidence, torch.tensor([0.3, 0.95], dtype=torch.float64))
    torch.testing.assert_close(bins.accuracy, torch.tensor([0.5, 0.5], dtype=torch.float64))
    assert bins.count.tolist() == [2, 2]
    ece = expected_calibration_error(confidence, correct, n_bins=2)
    assert ece == pytest.approx(0.5 * 0.2 + 0.5 * 0.45)


def test_ece_is_small_when_calibrated_and_large_when_overconfident():
    g = torch.Generator().manual_seed(0)
    confidence = torch.rand(20_000, generator=g)
    calibrated = torch.rand(20_000, generator=g) < confidence  # right with probability c
    assert expected_calibration_error(confidence, calibrated) < 0.02
    always_sure = torch.ones(1000)
    right = torch.arange(1000) < 700  # 70% right at confidence 1
    assert expected_calibration_error(always_sure, right) == pytest.approx(0.3)
    bins = reliability_bins(always_sure, right, n_bins=15)
    assert bins.count[-1] == 1000 and bins.count[:-1].sum() == 0
    assert torch.isnan(bins.accuracy[0])


def test_metrics_reject_bad_input():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        expected_calibration_error(torch.tensor([0.5, 1.5]), torch.tensor([True, False]))
    with pytest.raises(ValueError, match="one length"):
        expected_calibration_error(torch.tensor([0.5, 0.6]), torch.tensor([True]))
    with pytest.raises(ValueError, match="n_bins"):
        reliability_bins(torch.tensor([0.5]), torch.tensor([True]), n_bins=0)
    with pytest.raises(ValueError, match="at least one"):
        expected_calibration_error(torch.tensor([]), torch.tensor([], dtype=torch.bool))
    with pytest.raises(ValueError, match=r"\(2, 5\) and \(3,\)"):
        perplexity(torch.randn(2, 5), torch.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="ignore_index"):
        token_predictions(torch.randn(2, 5), torch.tensor([0, 0]), ignore_index=0)


@pytest.mark.parametrize("tqdm_disable", ["", "1"])
def test_progress_bar_follows_tqdm_disable(tqdm_disable):
    """fit's bar shows with progress=True unless TQDM_DISABLE is set (the build sets it)."""
    code = (
        "import torch; from attnbook.train import fit\n"
        "m, b = torch.nn.Linear(2, 1), [torch.zeros(4, 2)] * 3\n"
        "for name, progress in (('SHOWN', True), ('HIDDEN', False)):\n"
        "    fit(m, b, lambda m, x: m(x).pow(2).mean(), 3, 1e-3, progress=progress, desc=name)\n"
    )
    environment = {k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}
    if tqdm_disable:
        environment["TQDM_DISABLE"] = tqdm_disable
    run = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    )
    assert ("SHOWN" in run.stderr) == (not tqdm_disable), run.stderr
    assert "HIDDEN" not in run.stderr, run.stderr


@pytest.mark.parametrize("tqdm_disable", ["", "0", "1"])
def test_progress_bar_disable_is_explicit(tqdm_disable, monkeypatch):
    """tqdm's notebook bar (what tqdm.auto gives in Jupyter) ignores TQDM_DISABLE, so fit
    must pass ``disable`` itself."""
    import attnbook.train

    calls = []

    class Recorder:
        def __init__(self, **kwargs):
            calls.append(kwargs)

        def update(self, n=1):
            pass

        def set_postfix(self, *args, **kwargs):
            pass

        def close(self):
            pass

    monkeypatch.setattr(attnbook.train, "tqdm", Recorder)
    monkeypatch.setenv("TQDM_DISABLE", tqdm_disable)
    m, b = torch.nn.Linear(2, 1), [torch.zeros(4, 2)] * 2
    for progress in (True, False):
        fit(m, b, lambda m, x: m(x).pow(2).mean(), 2, 1e-3, progress=progress)
    assert [c["disable"] for c in calls] == [tqdm_disable == "1", True]
