"""attnbook.web (the export for the browser) and viz/js/transformer.js (the forward pass in it).

The export is read back into PyTorch and compared tensor by tensor. The JS model runs in node
(``tests/js/translator.mjs``) on the shipped date model (held-out dates and random strings
over its vocabulary, 200 inputs) and on small random models of other configurations (pre-LN,
learned positions, shared embeddings, other sizes and vocabularies). Its logits must equal
PyTorch's on the same weights to 1e-4 and its greedy and beam-search outputs must be the
package's, token for token. Every setting transformer.js computes is checked so, alone and in
combination (post-LN and pre-LN, sinusoidal and learned positions, shared and separate
embeddings, d_k and d_v other than d_model / h); every other one is refused, by ``pack`` and by
transformer.js, in the same words.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import itertools
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from attnbook import web
from attnbook.attention import scaled_dot_product_attention
from attnbook.data import DATE_VOCAB, MAX_DATE_LEN, held_out_dates
from attnbook.data.vocab import Vocabulary
from attnbook.decode import beam_search, greedy_decode, translate
from attnbook.model import Transformer, TransformerConfig
from attnbook.viz.explorers._base import JS

RUNNER = Path(__file__).resolve().parent / "js" / "translator.mjs"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
TOLERANCE = 1e-4  # logits and log-probabilities, JS against PyTorch on the same weights


def random_model(seed: int, vocab: Vocabulary, **config) -> Transformer:
    """An untrained model whose LayerNorms and biases are random too (not 1 and 0)."""
    torch.manual_seed(seed)
    fields = dict(src_vocab=len(vocab), tgt_vocab=len(vocab), dropout=0.0)
    model = Transformer(TransformerConfig(**{**fields, **config}))
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 1:
                p.add_(0.3 * torch.randn_like(p))
    return model.eval()


LETTERS = Vocabulary("abcdefgh xyz")
RANDOM_MODELS = {  # name -> (seed, vocabulary, config), covering the options of the config
    "pre-LN, learned positions, shared embeddings": (
        1,
        DATE_VOCAB,
        dict(
            N=2,
            d_model=32,
            d_ff=64,
            h=4,
            max_len=40,
            norm_first=True,
            positional="learned",
            share_embeddings=True,
        ),
    ),
    "post-LN, learned positions, one layer, d_k 8": (
        2,
        LETTERS,
        dict(N=1, d_model=24, d_ff=40, h=3, max_len=24, positional="learned"),
    ),
    "pre-LN, sinusoidal, shared, three layers": (
        3,
        LETTERS,
        dict(N=3, d_model=16, d_ff=48, h=2, max_len=20, norm_first=True, share_embeddings=True),
    ),
}


def random_strings(vocab: Vocabulary, n: int, longest: int, seed: int) -> list[str]:
    """``n`` strings of 1 … ``longest`` characters of ``vocab`` (none all blank: no input)."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        text = "".join(rng.choices(vocab.chars, k=rng.randint(1, longest)))
        if text.strip():
            out.append(text)
    return out


def run_js(manifest: Path, cases: list[dict], max_len: int, beam_size=4, alpha=0.6) -> list[dict]:
    request = {
        "module": str(JS / "transformer.js"),
        "manifest": str(manifest),
        "cases": cases,
        "max_len": max_len,
        "beam_size": beam_size,
        "alpha": alpha,
    }
    out = node_runner(request)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def node_runner(request: dict) -> subprocess.CompletedProcess:
    """``tests/js/translator.mjs`` on ``request``, as it ended (a refusal is a non-zero exit)."""
    return subprocess.run(
        ["node", str(RUNNER)], input=json.dumps(request), capture_output=True, text=True
    )


def forced_logits(model: Transformer, src: list[int], prefix: list[int]) -> torch.Tensor:
    """PyTorch's logits ``(T, V)`` after each token of ``prefix`` (teacher forcing)."""
    with torch.no_grad():
        logits, _ = model(torch.tensor([src]), torch.tensor([prefix]))
    return logits[0].double()


def check_parity(model: Transformer, vocab: Vocabulary, manifest: Path, texts, max_len) -> float:
    """JS against PyTorch on every text; returns the largest logit difference seen."""
    bos = vocab.bos_id
    cases = [{"text": t, "attention": i < 5} for i, t in enumerate(texts)]
    results = run_js(manifest, cases, max_len)
    worst = 0.0
    for text, case, js in zip(texts, cases, results):
        assert js["ids"] == vocab.encode(text), text
        src = torch.tensor([js["ids"]])
        # greedy: the same tokens, and the same logits at every step
        expected = greedy_decode(model, src, max_len, bos, vocab.eos_id)[0].tolist()
        assert js["greedy"]["ids"] == expected, f"greedy differs on {text!r}"
        ref = forced_logits(model, js["ids"], [bos, *expected[:-1]])
        diff = (torch.tensor(js["greedy"]["logits"], dtype=torch.double) - ref).abs().max().item()
        worst = max(worst, diff)
        chosen = torch.log_softmax(ref, -1).gather(1, torch.tensor(expected)[:, None]).sum()
        assert js["greedy"]["logProb"] == pytest.approx(chosen.item(), abs=TOLERANCE)
        # beam search: the same hypothesis, log-probability and stopping point
        best, logp = beam_search(model, src, max_len, 4, 0.6, bos, vocab.eos_id)
        assert js["beam"]["ids"] == best, f"beam search differs on {text!r}"
        assert js["beam"]["logProb"] == pytest.approx(logp, abs=TOLERANCE)
        ref = forced_logits(model, js["ids"], [bos, *best[:-1]])
        diff = (torch.tensor(js["beam"]["logits"], dtype=torch.double) - ref).abs().max().item()
        worst = max(worst, diff)
        if case["attention"]:
            check_attention(model, js, [bos, *expected[:-1]])
    assert worst <= TOLERANCE, f"largest logit difference {worst:.2e}"
    return worst


def check_attention(model: Transformer, js: dict, prefix: list[int]) -> None:
    """Every attention map of the JS greedy steps equals PyTorch's under teacher forcing."""
    with torch.no_grad():
        _, attn = model(torch.tensor([js["ids"]]), torch.tensor([prefix]))
    c = model.config
    S, T = len(js["ids"]), len(prefix)
    encoder = torch.tensor(js["encoder"], dtype=torch.float32).reshape(c.N, c.h, S, S)
    torch.testing.assert_close(encoder, torch.cat(attn.encoder), atol=1e-5, rtol=0)
    for t in range(T):
        cross = torch.tensor(js["greedy"]["cross"][t], dtype=torch.float32).reshape(c.N, c.h, S)
        torch.testing.assert_close(cross, torch.cat(attn.cross)[:, :, t], atol=1e-5, rtol=0)
        self_ = torch.tensor(js["greedy"]["self"][t], dtype=torch.float32).reshape(c.N, c.h, t + 1)
        torch.testing.assert_close(
            self_, torch.cat(attn.decoder)[:, :, t, : t + 1], atol=1e-5, rtol=0
        )


# ---------------------------------------------------------------- the export


def test_round_trip_float32_is_exact(tmp_path):
    model = random_model(4, LETTERS, N=2, d_model=16, d_ff=32, h=2, max_len=16)
    path = web.export(model, LETTERS, tmp_path / "m", dtype=torch.float32)
    assert path == tmp_path / "m" / "manifest.json"
    back = web.load(tmp_path / "m")
    assert back.vocab == LETTERS and back.model.config == model.config
    for (name, a), (_, b) in zip(model.state_dict().items(), back.model.state_dict().items()):
        assert torch.equal(a, b), name


def test_round_trip_float16_rounds_each_weight_once(tmp_path):
    model = random_model(5, LETTERS, N=1, d_model=8, d_ff=16, h=2, max_len=16)
    web.export(model, LETTERS, tmp_path / "m.json")  # float16 by default
    assert (tmp_path / "m.bin").is_file()
    back = web.load(tmp_path / "m.json").model
    for (name, a), (_, b) in zip(model.state_dict().items(), back.state_dict().items()):
        assert torch.equal(a.half().float(), b), name
    assert any(not torch.equal(a, b) for a, b in zip(model.parameters(), back.parameters()))


def test_manifest_lists_every_tensor_once_with_its_place(tmp_path):
    vocab = DATE_VOCAB
    _, _, config = RANDOM_MODELS["pre-LN, learned positions, shared embeddings"]
    model = random_model(6, vocab, **config)
    manifest, weights = web.pack(model, vocab, torch.float16, max_input=20, example="1 May 2000")
    assert manifest["format"] == web.FORMAT and manifest["version"] == web.VERSION
    assert manifest["config"]["norm_first"] and manifest["config"]["layer_norm_eps"] == 1e-5
    assert manifest["vocab"]["itos"] == vocab.itos and manifest["vocab"]["eos_id"] == 2
    assert manifest["input"] == {"max_chars": 20, "example": "1 May 2000", "label": "source"}
    # one matrix for both embeddings and the output projection (§3.4), stored once
    assert manifest["shared"] == {
        "tgt_embed.tokens.weight": "src_embed.tokens.weight",
        "generator.weight": "src_embed.tokens.weight",
    }
    names = [t["name"] for t in manifest["tensors"]]
    assert len(names) == len(set(names)) == len(model.state_dict()) - 2
    assert "src_embed.positions.embedding.weight" in names  # learned positions travel
    end = 0
    for t in manifest["tensors"]:
        assert t["offset"] % 8 == 0 and t["offset"] >= end and t["dtype"] == "float16"
        assert t["nbytes"] == 2 * torch.Size(t["shape"]).numel()
        end = t["offset"] + t["nbytes"]
    assert manifest["weights"]["bytes"] == len(weights) == end
    sinusoidal = random_model(6, vocab, N=1, d_model=8, d_ff=8, h=2, max_len=8)
    names = [t["name"] for t in web.pack(sinusoidal, vocab)[0]["tensors"]]
    assert not [n for n in names if "positions" in n]  # computed in the browser


def test_shipped_model_exports_as_it_is(tmp_path):
    """The float16 export the site serves is the shipped model (its checkpoint is float16)."""
    from safetensors import safe_open

    from attnbook.recipes import DATE_CHECKPOINT, load_date_model

    model = load_date_model()
    web.export(model, DATE_VOCAB, tmp_path, max_input=MAX_DATE_LEN)
    back = web.load(tmp_path).model
    checkpoints = Path(__file__).resolve().parent.parent / "src" / "attnbook" / "checkpoints"
    with safe_open(str(checkpoints / DATE_CHECKPOINT), "pt") as f:
        stored = {f.get_slice(k).get_dtype() for k in f.keys()}
    if stored == {"F16"}:
        for (name, a), (_, b) in zip(model.state_dict().items(), back.state_dict().items()):
            assert torch.equal(a, b), name
    else:  # a float32 checkpoint: float16 rounding must not change the translations
        texts = [s for s, _, _ in held_out_dates(300, seed=5)]
        assert translate(back, texts, DATE_VOCAB) == translate(model, texts, DATE_VOCAB)


def test_payload_fits_the_budget(tmp_path):
    """Model and code together: at most 600 KB over the wire (gzip)."""
    from attnbook.recipes import load_date_model
    from attnbook.viz import TranslatorExplorer

    web.export(load_date_model(), DATE_VOCAB, tmp_path, max_input=MAX_DATE_LEN)
    files = [(tmp_path / "manifest.json").read_bytes(), (tmp_path / "weights.bin").read_bytes()]
    files.append(TranslatorExplorer._esm.encode())
    gzipped = sum(len(gzip.compress(b, 9)) for b in files)
    assert gzipped <= 600_000, f"{gzipped / 1000:.0f} KB gzip"


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda m, p: web.export("model", DATE_VOCAB, p), TypeError, "model must be a Transformer"),
        (lambda m, p: web.export(m, "abc", p), TypeError, "vocab must be a Vocabulary"),
        (
            lambda m, p: web.export(m, Vocabulary("abcdefghijklmnopqrstuvwxyz"), p),
            ValueError,
            "vocab has 29 symbols",
        ),
        (lambda m, p: web.export(m, LETTERS, p, dtype=torch.int8), ValueError, "dtype must be"),
        (lambda m, p: web.export(m, LETTERS, 3), TypeError, "path must be a str"),
        (lambda m, p: web.pack(m, LETTERS, max_input=99), ValueError, "max_input=99 is longer"),
        (lambda m, p: web.pack(m, LETTERS, max_len=0), ValueError, "max_len must be"),
        (lambda m, p: web.pack(m, LETTERS, beam_size=0), ValueError, "beam_size must be"),
        (lambda m, p: web.pack(m, LETTERS, example=3), TypeError, "example must be a string"),
        (lambda m, p: web.pack(m, LETTERS, rule="dates"), TypeError, "rule must be a dict"),
        (lambda m, p: web.load(p / "nothing"), web.WebModelError, "does not exist"),
        (lambda m, p: web.load(5), TypeError, "path must be a str"),
        (lambda m, p: web.site_path("../x"), ValueError, "plain identifier"),
    ],
)
def test_bad_arguments_are_clear_errors(call, error, pattern, tmp_path):
    model = random_model(7, LETTERS, N=1, d_model=8, d_ff=8, h=2, max_len=16)
    with pytest.raises(error, match=pattern):
        call(model, tmp_path)


def test_weights_out_of_float16_range_or_not_finite_are_errors(tmp_path):
    model = random_model(8, LETTERS, N=1, d_model=8, d_ff=8, h=2, max_len=16)
    with torch.no_grad():
        model.generator.bias[0] = 1e5
    with pytest.raises(ValueError, match="'generator.bias' has weights up to 1e\\+05"):
        web.export(model, LETTERS, tmp_path)
    web.export(model, LETTERS, tmp_path, dtype="float32")  # fine in float32
    with torch.no_grad():
        model.generator.bias[0] = float("nan")
    with pytest.raises(ValueError, match="NaN or infinite"):
        web.pack(model, LETTERS, torch.float32)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        web.export(model, LETTERS, tmp_path / "file")


def test_damaged_exports_are_clear_errors(tmp_path):
    model = random_model(9, LETTERS, N=1, d_model=8, d_ff=8, h=2, max_len=16)
    path = web.export(model, LETTERS, tmp_path)
    weights = (tmp_path / "weights.bin").read_bytes()
    manifest = json.loads(path.read_text())
    (tmp_path / "weights.bin").write_bytes(weights[:-2])
    with pytest.raises(web.WebModelError, match="truncated"):
        web.load(tmp_path)
    (tmp_path / "weights.bin").write_bytes(weights[:-1] + bytes([weights[-1] ^ 1]))
    with pytest.raises(web.WebModelError, match="sha256"):
        web.load(tmp_path)
    (tmp_path / "weights.bin").unlink()
    with pytest.raises(web.WebModelError, match="weights file"):
        web.load(path)
    path.write_text(json.dumps({**manifest, "version": 99}))
    with pytest.raises(web.WebModelError, match="format version 99"):
        web.load(path)
    path.write_text("not json")
    with pytest.raises(web.WebModelError, match="not a JSON manifest"):
        web.load(path)
    path.write_text(json.dumps({"format": "other"}))
    with pytest.raises(web.WebModelError, match="not an attnbook-web manifest"):
        web.load(path)


# ---------------------------------------------------------------- the JS forward pass


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    from attnbook.recipes import load_date_model

    model = load_date_model()
    folder = tmp_path_factory.mktemp("dates")
    path = web.export(
        model, DATE_VOCAB, folder, max_input=MAX_DATE_LEN, example="29 November 2026", max_len=12
    )
    return web.load(path).model, path  # what the browser runs: the exported weights


@needs_node
def test_js_matches_pytorch_on_the_shipped_model(shipped):
    model, manifest = shipped
    texts = [s for s, _, _ in held_out_dates(150, seed=11)]
    texts += random_strings(DATE_VOCAB, 50, MAX_DATE_LEN, seed=12)
    assert len(texts) >= 200
    worst = check_parity(model, DATE_VOCAB, manifest, texts, max_len=12)
    print(f"shipped model: largest logit difference {worst:.2e} over {len(texts)} inputs")


@needs_node
def test_js_teacher_forcing_matches_pytorch(shipped):
    """Logits along the reference ISO dates (the path training scores), not only decoded ones."""
    model, manifest = shipped
    examples = held_out_dates(20, seed=13)
    cases = [{"text": s, "target": DATE_VOCAB.encode(y, bos=True)} for s, y, _ in examples]
    for case, js in zip(cases, run_js(manifest, cases, max_len=12)):
        ref = forced_logits(model, js["ids"], case["target"])
        torch.testing.assert_close(
            torch.tensor(js["forced"], dtype=torch.double), ref, atol=TOLERANCE, rtol=0
        )


@needs_node
@pytest.mark.parametrize("name", list(RANDOM_MODELS))
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_js_matches_pytorch_on_random_models(name, dtype, tmp_path):
    seed, vocab, config = RANDOM_MODELS[name]
    model = random_model(seed, vocab, **config)
    path = web.export(model, vocab, tmp_path, dtype=dtype)
    exported = web.load(path).model
    texts = random_strings(vocab, 30, config["max_len"], seed=seed)
    worst = check_parity(exported, vocab, path, texts, max_len=min(16, config["max_len"]))
    print(f"{name}, {dtype}: largest logit difference {worst:.2e}")


@needs_node
def test_js_decoding_reaches_max_len_and_masks_padding(tmp_path):
    """An untrained model may never say <eos> and may emit <pad>: both as in PyTorch."""
    vocab = LETTERS
    model = random_model(21, vocab, N=1, d_model=8, d_ff=16, h=2, max_len=12)
    with torch.no_grad():
        model.generator.bias[vocab.pad_id] += 4.0  # make <pad> a likely token
        model.generator.bias[vocab.eos_id] -= 50.0  # and <eos> an impossible one
    path = web.export(model, vocab, tmp_path, dtype="float32")
    texts = random_strings(vocab, 10, 12, seed=3)
    results = run_js(path, [{"text": t} for t in texts], max_len=12)
    assert all(len(r["greedy"]["ids"]) == 12 and not r["greedy"]["finished"] for r in results)
    assert any(vocab.pad_id in r["greedy"]["ids"][:-1] for r in results)
    check_parity(model, vocab, path, texts, max_len=12)


@needs_node
def test_js_input_check_mirrors_the_package(shipped):
    _, manifest = shipped
    texts = ["", "   ", "x" * (MAX_DATE_LEN + 1), "29 Novembré 2026", "é ß", "a\tb", "29 May 2026"]
    results = run_js(manifest, [{"text": t} for t in texts], max_len=12)
    problems = [r.get("problem") for r in results]
    assert problems == ["empty", "empty", "long", "unknown", "unknown", "unknown", None]
    assert results[0]["message"] == "Type a date such as '29 November 2026'."
    assert f"at most {MAX_DATE_LEN}" in results[2]["message"]
    assert f"{MAX_DATE_LEN + 1} characters" in results[2]["message"]
    assert results[3]["message"] == "'é' is not in the model's vocabulary."
    assert results[4]["message"] == "'é' and 'ß' are not in the model's vocabulary."
    assert results[5]["message"] == "'U+0009' is not in the model's vocabulary."
    for text, r in zip(texts, results):  # the package refuses exactly these
        if r.get("problem"):
            with pytest.raises(ValueError):
                translate(load_shipped(), [text], DATE_VOCAB)


def load_shipped() -> Transformer:
    from attnbook.recipes import load_date_model

    return load_date_model()


@needs_node
def test_js_refuses_weights_that_do_not_fit(tmp_path):
    model = random_model(9, LETTERS, N=1, d_model=8, d_ff=8, h=2, max_len=16)
    path = web.export(model, LETTERS, tmp_path)
    (tmp_path / "weights.bin").write_bytes((tmp_path / "weights.bin").read_bytes()[:-8])
    out = node_runner(
        {"module": str(JS / "transformer.js"), "manifest": str(path), "cases": [], "max_len": 4}
    )
    assert out.returncode != 0 and "the manifest says" in out.stderr


# ---------------------------------------------------------------- the settings the page computes

TINY = dict(N=1, d_model=8, d_ff=16, h=2, max_len=12)
SETTINGS_COMPUTED = {  # name -> config: every setting transformer.js implements, in a tiny model
    **{
        f"{'pre' if pre else 'post'}-LN, {positional}, {'shared' if shared else 'separate'}": dict(
            TINY, norm_first=pre, positional=positional, share_embeddings=shared
        )
        for pre, positional, shared in itertools.product(
            (False, True), ("sinusoidal", "learned"), (False, True)
        )
    },
    "d_k 3, d_v 5": dict(TINY, d_k=3, d_v=5),
    "d_k 6, d_v 2, pre-LN, shared": dict(
        TINY, d_k=6, d_v=2, norm_first=True, share_embeddings=True
    ),
    "d_model 10, h 3 (not divisible), d_k 4, d_v 3, learned": dict(
        TINY, d_model=10, h=3, d_k=4, d_v=3, positional="learned"
    ),
    "two layers, d_k 2, d_v 7, pre-LN": dict(TINY, N=2, d_k=2, d_v=7, norm_first=True),
}


@needs_node
@pytest.mark.parametrize("name", list(SETTINGS_COMPUTED))
def test_js_matches_pytorch_on_every_setting_it_computes(name, tmp_path):
    config = SETTINGS_COMPUTED[name]
    model = random_model(31, LETTERS, **config)
    path = web.export(model, LETTERS, tmp_path, dtype="float32")
    texts = random_strings(LETTERS, 4, 8, seed=32)
    worst = check_parity(web.load(path).model, LETTERS, path, texts, max_len=8)
    print(f"{name}: largest logit difference {worst:.2e}")


@needs_node
def test_js_reads_a_manifest_older_than_the_settings_it_checks(tmp_path):
    """A manifest without residual, layer_norm, d_k and d_v (written before they existed) is
    the paper's model: their defaults, computed as PyTorch does."""
    model = random_model(33, LETTERS, **TINY)
    path = web.export(model, LETTERS, tmp_path, dtype="float32")
    manifest = json.loads(path.read_text())
    for name in ("residual", "layer_norm", "d_k", "d_v"):
        del manifest["config"][name]
    path.write_text(json.dumps(manifest))
    check_parity(model, LETTERS, path, random_strings(LETTERS, 4, 8, seed=34), max_len=8)


@dataclasses.dataclass(frozen=True)
class ConfigWithActivation(TransformerConfig):
    """A config with a setting transformer.js has never heard of (as a newer package might)."""

    activation: str = "gelu"


def swap_attention(model: Transformer) -> Transformer:
    """The efficient-attention chapter's surgery: another function in every encoder head."""
    for layer in model.encoder:
        layer.self_attn.attention = functools.partial(scaled_dot_product_attention)
    return model


def concatenated_sinusoids(model: Transformer) -> Transformer:
    from attnbook.positional import SinusoidalPositionalEncoding

    model.src_embed.positions = SinusoidalPositionalEncoding(8, 12, layout="concatenated")
    return model


def two_epsilons(model: Transformer) -> Transformer:
    model.decoder.layers[0].sublayer1.norm.eps = 1e-6
    return model


@pytest.mark.parametrize(
    ("setting", "value"), [("residual", False), ("layer_norm", False), ("activation", "gelu")]
)
@pytest.mark.parametrize("norm_first", [False, True])
def test_pack_refuses_a_setting_the_page_does_not_compute(setting, value, norm_first, tmp_path):
    fields = dict(TINY, src_vocab=len(LETTERS), tgt_vocab=len(LETTERS), norm_first=norm_first)
    make = ConfigWithActivation if setting == "activation" else TransformerConfig
    model = Transformer(make(**fields, **{setting: value}))
    expected = web.unsupported_setting(setting, value)
    assert f"{setting}={value!r}" in expected and "does not implement" in expected
    with pytest.raises(ValueError, match=setting) as error:
        web.pack(model, LETTERS)
    assert str(error.value) == expected
    with pytest.raises(ValueError, match=re.escape(expected)):
        web.export(model, LETTERS, tmp_path / "m")
    assert not (tmp_path / "m").exists()  # nothing written


@pytest.mark.parametrize(
    ("surgery", "pattern"),
    [
        (swap_attention, r"encoder\.layers\.0\.self_attn\.attention=.*does not implement"),
        (concatenated_sinusoids, r"src_embed\.positions\.layout='concatenated'"),
        (two_epsilons, r"LayerNorms have eps \[1e-06, 1e-05\]"),
    ],
)
def test_pack_refuses_a_model_changed_after_construction(surgery, pattern):
    model = surgery(random_model(35, LETTERS, **TINY))
    with pytest.raises(ValueError, match=pattern):
        web.pack(model, LETTERS)


@needs_node
@pytest.mark.parametrize(
    ("setting", "value"),
    [("residual", False), ("layer_norm", False), ("positional", "rope"), ("activation", "gelu")],
)
def test_js_refuses_a_manifest_with_a_setting_it_does_not_compute(setting, value, tmp_path):
    """A hand-written (or newer) manifest cannot make the page compute other numbers: it
    refuses, in the words of ``pack``."""
    path = web.export(random_model(36, LETTERS, **TINY), LETTERS, tmp_path)
    manifest = json.loads(path.read_text())
    manifest["config"][setting] = value
    path.write_text(json.dumps(manifest))
    request = {"module": str(JS / "transformer.js"), "manifest": str(path), "cases": []}
    out = node_runner({**request, "max_len": 4})
    assert out.returncode != 0
    assert f"Error: {web.unsupported_setting(setting, value)}\n" in out.stderr, out.stderr


@needs_node
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"d_k": 0}, "the manifest's d_k=0 is not a whole number"),
        ({"d_k": None, "h": 3}, "the manifest's d_k=None is not a whole number"),
        ({"d_v": 2}, "tensor encoder.layers.0.self_attn.W_V.weight holds 64 numbers; the config"),
    ],
    ids=["d_k 0", "d_model / h not whole", "d_v not the tensors'"],
)
def test_js_refuses_head_sizes_that_do_not_fit(change, message, tmp_path):
    path = web.export(random_model(37, LETTERS, **TINY), LETTERS, tmp_path)
    manifest = json.loads(path.read_text())
    manifest["config"].update(change)
    path.write_text(json.dumps(manifest))
    out = node_runner(
        {"module": str(JS / "transformer.js"), "manifest": str(path), "cases": [], "max_len": 4}
    )
    assert out.returncode != 0 and message in out.stderr, out.stderr


# ---------------------------------------------------------------- the date model's input rule

DATE_RULE = web.date_input_rule()
needs_date_rule = pytest.mark.skipif(
    DATE_RULE is None, reason="the package checks dates only by character and length"
)


def mutated_dates(n: int, seed: int) -> list[str]:
    """Dates in every format, most with a field changed: years, months, days and weekdays out
    of range or mistyped, digits added or dropped, names cut or in another letter case,
    spaces around, noise."""
    from attnbook.data import DATE_FORMATS
    from attnbook.data.dates import MONTHS, WEEKDAYS

    rng = random.Random(seed)
    names = MONTHS + WEEKDAYS + [m[:3] for m in MONTHS] + ["Sept", "Foo", "may", "Mon"]
    names += ["NOV", "november", "sUNDAY", "tHu"]
    out = []
    for source, _, _ in held_out_dates(n, seed=seed):
        pieces = re.findall(r"\d+|[A-Za-z]+|[^\dA-Za-z]+", source)
        for i, piece in enumerate(pieces):
            if rng.random() > 0.35:
                continue
            if piece.isdigit():
                k = rng.choice([1, 2, 2, 3, 4, 4, 5])
                pieces[i] = "".join(rng.choices("0123456789", k=k))
            elif piece.isalpha():
                pieces[i] = rng.choice(names + [piece.lower(), piece.upper()])
        text = "".join(pieces)
        if rng.random() < 0.1:
            text = rng.choice([" ", "  ", "\t"]) + text + rng.choice(["", " "])
        if rng.random() < 0.05:
            text += rng.choice(list(DATE_FORMATS))
        out.append(text)
    # whole calendars' edges: 29 February, 31 April, the range's first and last years
    for year in (999, 1000, 1900, 2000, 2024, 2999, 3000):
        out += [f"29 February {year}", f"31 April {year}", f"{year}年2月29日", f"29.02.{year}"]
        out += [f"{year}-02-29", f"29 feb {year}", f"thursday, 29 FEBRUARY {year}"]
    return out + ["", "   ", "2/29/00", "02/29/00", "02/29/01", "Sunday, 1 Jan 2023", "2026-1-29"]


def answers_of_the_package(texts: list[str]) -> list[dict]:
    from attnbook.data.dates import parse_date

    out = []
    for text in texts:
        try:
            p = parse_date(text)
        except ValueError as error:
            out.append({"message": str(error)})
        else:
            out.append({"text": p.text, "format": p.fmt, "iso": p.date.isoformat(), "note": p.note})
    return out


def run_date_rule(texts: list[str], statuses: list[str] = ()) -> dict:
    """date_rule.js in node: its answers (messages in the English table's words) and statuses."""
    request = {"module": str(JS / "date_rule.js"), "rule": DATE_RULE, "texts": texts}
    request["statuses"] = list(statuses)
    out = subprocess.run(
        ["node", str(RUNNER.parent / "date_rule.mjs")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


# The page shows the formats as examples to press: for an input in none of them, its message
# points to those examples instead of listing the formats; the first clause is the package's.
FORMAT_CLAUSE = "not a date format the model reads; "


@needs_node
@needs_date_rule
def test_js_date_rule_answers_as_the_package():
    """The page refuses what ``parse_date`` refuses, in its words, and reads the rest alike:
    the same date, format, note, and the same text given to the model (names in the letter
    case the formats write)."""
    texts = mutated_dates(400, seed=17)
    page = []
    for r in run_date_rule(texts)["answers"]:
        if "problem" not in r:
            page.append(r)
        elif r["key"] == "translator.date.format":
            assert r["message"].startswith(FORMAT_CLAUSE), r
            page.append({"message": "(format)"})
        else:
            page.append({"message": r["message"]})
    expected = answers_of_the_package(texts)
    for e in expected:
        if e.get("message", "").startswith(FORMAT_CLAUSE):
            e["message"] = "(format)"
    differ = [(t, p, e) for t, p, e in zip(texts, page, expected) if p != e]
    assert differ == [], differ[:5]
    refused = sum("message" in e for e in expected)
    noted = sum(bool(e.get("note")) for e in expected)
    recased = sum("message" not in e and e["text"] != t.strip() for t, e in zip(texts, expected))
    assert refused >= 100 and len(texts) - refused >= 100 and noted >= 5, (refused, noted)
    assert recased >= 10, recased  # names read in another letter case


@needs_node
@needs_date_rule
def test_js_tells_an_unfinished_date_as_the_package():
    """``dateStatus`` answers as ``date_prefix_status`` on every start of dates being typed
    key by key (in every format, names in any letter case), of mistyped ones, and on noise."""
    from attnbook.data import date_prefix_status

    rng = random.Random(23)
    texts = [s for s, _, _ in held_out_dates(60, seed=19)] + mutated_dates(40, seed=29)
    texts += [t.lower() for t in texts[:20]] + [t.upper() for t in texts[20:40]]
    texts += ["".join(rng.choices(DATE_VOCAB.chars, k=rng.randint(1, 8))) for _ in range(100)]
    starts = sorted({t[:i] for t in texts for i in range(len(t) + 1)})
    page = run_date_rule([], starts)["statuses"]
    expected = [date_prefix_status(t) for t in starts]
    differ = [(t, p, e) for t, p, e in zip(starts, page, expected) if p != e]
    assert differ == [], differ[:5]
    counts = {v: expected.count(v) for v in ("date", "incomplete", "invalid")}
    assert min(counts.values()) >= 100, counts


def test_the_date_model_export_carries_the_package_rule():
    manifest, _ = web.pack_date_model()
    assert manifest["input"].get("rule") == DATE_RULE
    assert manifest["input"]["max_chars"] == MAX_DATE_LEN
    if DATE_RULE is not None:
        from attnbook.data.dates import DATE_LAYOUTS, FIRST_YEAR, LAST_YEAR

        assert (DATE_RULE["first_year"], DATE_RULE["last_year"]) == (FIRST_YEAR, LAST_YEAR)
        assert [f["name"] for f in DATE_RULE["formats"]] == list(DATE_LAYOUTS)
        assert [tuple(f["layout"]) for f in DATE_RULE["formats"]] == list(DATE_LAYOUTS.values())


@needs_node
def test_translator_module_is_one_valid_es_module(tmp_path):
    """The widget's ``_esm``: its helpers (base, transformer, date rule) inlined, no imports,
    no name declared twice (node parses it)."""
    from attnbook.viz import TranslatorExplorer

    module = tmp_path / "translator.mjs"
    module.write_text(TranslatorExplorer._esm, encoding="utf-8")
    assert not re.search(r"^import\b", TranslatorExplorer._esm, re.M)
    out = subprocess.run(["node", "--check", str(module)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


# ---------------------------------------------------------------- the translator's words

TRANSLATOR_MODULES = ("translator_explorer.js", "date_rule.js", "transformer.js")
_PLACEHOLDER = re.compile(r"\{(\w+)(?::\w+)?\}")
_CJK = "\u3400-\u9fff"


def _string_literals(source: str) -> list[str]:
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S)
    return re.findall(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`', code)


@needs_node
def test_every_english_string_of_the_translator_has_its_chinese_one():
    """The two tables of translator_strings.js (as node imports them, and as Python reads them
    for the site) have the same keys; each Chinese string is non-empty, names the same values
    and writes Chinese punctuation next to Chinese text."""
    from attnbook.data import WEEKDAYS
    from attnbook.viz.explorers.translator import translator_strings

    module = (JS / "translator_strings.js").as_uri()
    script = f"import {{ TRANSLATOR_STRINGS as T }} from {json.dumps(module)};"
    script += "process.stdout.write(JSON.stringify(T));"
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    tables = json.loads(out.stdout)
    assert tables == translator_strings()
    en, zh = tables["en"], tables["zh"]
    assert set(en) == set(zh) and len(en) > 60
    for key, text in en.items():
        assert zh[key].strip(), key
        names = set(_PLACEHOLDER.findall(text)) ^ set(_PLACEHOLDER.findall(zh[key]))
        # a day that does not exist: "April 2026" in English, "2026 年 4 月" in Chinese
        assert names == ({"month_name", "month"} if key == "translator.date.day" else set()), key
        ascii_next_to_chinese = rf"[{_CJK}][,;:()!?]|[,;:()!?][{_CJK}]"
        assert not re.search(ascii_next_to_chinese, zh[key]), (key, zh[key])
    assert en["translator.weekday.names"].split("|") == WEEKDAYS


def test_the_translator_says_nothing_outside_its_tables():
    """Every key the translator's modules and the site's load button use is in the English
    table, every string of the table is used, and the explorer and the date rule hold no
    words of their own (no string literal with two words in it)."""
    from attnbook.viz.explorers.translator import translator_strings

    en = translator_strings()["en"]
    sources = {name: (JS / name).read_text(encoding="utf-8") for name in TRANSLATOR_MODULES}
    sources["strings"] = (JS / "translator_strings.js").read_text(encoding="utf-8")
    sources["site"] = (Path(__file__).parent.parent / "site" / "attnbook_models.py").read_text()
    used, prefixes = set(), set()
    for source in sources.values():
        used |= set(re.findall(r"""["'`](translator\.[\w.]+)["'`]""", source))
        prefixes |= set(re.findall(r"`(translator\.[\w.]+)\$\{", source))  # `…two_${name}`
    used = {k for k in used if not k.endswith((".js", ".css"))}  # file names
    assert used - set(en) == set(), used - set(en)
    unused = [k for k in en if k not in used and not any(k.startswith(p) for p in prefixes)]
    assert unused == [], unused
    two_words = re.compile(r"(?<![\w-])[A-Za-z]{2,}(?![\w-]) +(?<![\w-])[A-Za-z]{2,}(?![\w-])")
    for name in ("translator_explorer.js", "date_rule.js"):
        words = [s for s in _string_literals(sources[name]) if two_words.search(s)]
        assert words == [], (name, words)
