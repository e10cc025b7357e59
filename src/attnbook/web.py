"""A trained :class:`~attnbook.model.Transformer` written for the browser: one JSON manifest
plus one binary of weights.

The manifest holds everything but the numbers: the config, the vocabulary, the input limits
and decoding settings the page uses, and one entry per tensor (name, shape, dtype, byte
offset and length in the binary). The binary holds the tensors one after the other,
little-endian, each starting at a multiple of 8 bytes; a tensor shared by several names
(§3.4's one embedding matrix) is stored once and listed under ``shared``. The sinusoidal
position table is not stored (the browser computes it, as the model does).

``viz/js/transformer.js`` runs the same forward pass from these two files; :func:`load`
reads them back into a PyTorch model (the round trip the tests check). It computes the
settings of :data:`BROWSER_SETTINGS` (post-LN and pre-LN, sinusoidal and learned positions,
shared or separate embeddings, any d_k and d_v); :func:`pack` refuses a model with any other
(the ablations ``residual=False`` and ``layer_norm=False``, a swapped attention function)
rather than let the page compute other numbers than PyTorch.

Example::

    from attnbook import web
    from attnbook.data import DATE_VOCAB
    from attnbook.recipes import load_date_model

    web.export(load_date_model(), DATE_VOCAB, "site/models/dates")  # manifest.json, weights.bin
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from attnbook.attention import MultiHeadAttention, scaled_dot_product_attention
from attnbook.checks import check_float, check_int, describe
from attnbook.data.vocab import SPECIALS, Vocabulary
from attnbook.model import Transformer, TransformerConfig

FORMAT = "attnbook-web"
VERSION = 1
MANIFEST = "manifest.json"
WEIGHTS = "weights.bin"
#: The folder of the book site's ``_static/`` that holds exported models, one folder each.
SITE_MODELS = "attnbook-models"
#: dtype name -> (torch dtype, little-endian numpy dtype)
DTYPES = {
    "float16": (torch.float16, np.dtype("<f2")),
    "float32": (torch.float32, np.dtype("<f4")),
}
_ALIGN = 8
_FLOAT16_MAX = 65504.0
#: What ``viz/js/transformer.js`` computes, per :class:`~attnbook.model.TransformerConfig`
#: field: ``None`` for any value, else the values it implements. A value outside them, or a
#: field missing here, is refused by :func:`pack`, and by the page (which keeps this table too).
BROWSER_SETTINGS: dict[str, tuple | None] = {
    "src_vocab": None,
    "tgt_vocab": None,
    "N": None,
    "d_model": None,
    "d_ff": None,
    "h": None,
    "dropout": None,  # the identity at inference
    "max_len": None,
    "share_embeddings": None,
    "norm_first": None,
    "residual": (True,),
    "layer_norm": (True,),
    "positional": ("sinusoidal", "learned"),
    "pad_id": None,
    "d_k": None,
    "d_v": None,
}


class WebModelError(ValueError):
    """An exported model that :func:`load` cannot read, and why."""


@dataclass(frozen=True)
class WebModel:
    """What :func:`load` returns: the model (eval mode, float32), its vocabulary, the manifest."""

    model: Transformer
    vocab: Vocabulary
    manifest: dict


def site_path(name: str) -> str:
    """Where the book site serves the model ``name``, relative to its ``_static/`` folder."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a plain identifier such as 'dates', got {name!r}")
    return f"{SITE_MODELS}/{name}/"


def _dtype_name(dtype: object) -> str:
    for name, (torch_dtype, _) in DTYPES.items():
        if dtype in (torch_dtype, name):
            return name
    raise ValueError(
        f"dtype must be torch.float16 or torch.float32 (or their names), got {describe(dtype)}"
    )


def _refusal(setting: str, value: object, known: str) -> str:
    return (
        f"{setting}={value!r}: the browser forward pass (viz/js/transformer.js) does not "
        f"implement it; {known}"
    )


def unsupported_setting(name: str, value: object) -> str:
    """Why the page cannot run a model with ``name=value`` (transformer.js words it the same)."""
    allowed = BROWSER_SETTINGS.get(name)
    if allowed:
        return _refusal(name, value, f"it computes {name}={' or '.join(map(repr, allowed))} only")
    return _refusal(name, value, f"it knows no setting {name!r}")


def check_browser_model(model: Transformer) -> None:
    """A ValueError unless ``viz/js/transformer.js`` computes exactly what ``model`` does:
    every config setting within :data:`BROWSER_SETTINGS`, every head the paper's
    softmax(Q Kᵀ / √d_k) V (Eq. (1), §3.2.1), the sinusoids (if any) interleaved as in §3.5,
    one LayerNorm ε throughout. Looks at no weight."""
    if not isinstance(model, Transformer):
        raise TypeError(f"model must be a Transformer, got {describe(model)}")
    c = model.config
    for field in dataclasses.fields(c):
        value = getattr(c, field.name)
        allowed = BROWSER_SETTINGS.get(field.name, ())
        if field.name not in BROWSER_SETTINGS or (allowed is not None and value not in allowed):
            raise ValueError(unsupported_setting(field.name, value))
    for name, module in model.named_modules():
        if isinstance(module, MultiHeadAttention):
            f = module.attention
            if f is not scaled_dot_product_attention:
                known = "it computes scaled_dot_product_attention only"
                raise ValueError(_refusal(f"{name}.attention", getattr(f, "__name__", f), known))
        layout = getattr(module, "layout", "interleaved")  # a SinusoidalPositionalEncoding's
        if layout != "interleaved":
            raise ValueError(_refusal(f"{name}.layout", layout, "it computes 'interleaved' only"))
    eps = {m.eps for m in model.modules() if isinstance(m, torch.nn.LayerNorm)}
    if len(eps) != 1:
        raise ValueError(
            f"the model's LayerNorms have eps {sorted(eps)}: the browser forward pass "
            "(viz/js/transformer.js) implements one eps for all of them"
        )


def _unique_tensors(model: Transformer) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """The state dict with each shared tensor once, and {other name: name it is stored under}."""
    stored: dict[str, torch.Tensor] = {}
    shared: dict[str, str] = {}
    first_by_storage: dict[tuple[int, tuple[int, ...]], str] = {}
    for name, tensor in model.state_dict(keep_vars=False).items():
        key = (tensor.data_ptr(), tuple(tensor.shape))
        if key in first_by_storage:
            shared[name] = first_by_storage[key]
        else:
            first_by_storage[key] = name
            stored[name] = tensor
    return stored, shared


def _check_vocab(model: Transformer, vocab: object) -> Vocabulary:
    if not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be a Vocabulary, got {describe(vocab)}")
    c = model.config
    if len(vocab) > min(c.src_vocab, c.tgt_vocab):
        raise ValueError(
            f"vocab has {len(vocab)} symbols, more than the model's src_vocab={c.src_vocab} / "
            f"tgt_vocab={c.tgt_vocab}: it is not the vocabulary the model was trained with"
        )
    if vocab.pad_id != c.pad_id:
        raise ValueError(f"vocab.pad_id={vocab.pad_id} differs from the model's pad_id={c.pad_id}")
    return vocab


def pack(
    model: Transformer,
    vocab: Vocabulary,
    dtype: torch.dtype | str = torch.float16,
    *,
    max_input: int | None = None,
    example: str = "",
    label: str = "source",
    max_len: int | None = None,
    beam_size: int = 4,
    alpha: float = 0.6,
    rule: dict | None = None,
    metadata: dict[str, str] | None = None,
) -> tuple[dict, bytes]:
    """The manifest and the weights binary of ``model``, in memory (what :func:`export` writes).

    ``max_input``: the longest source the page accepts, in characters (default: the model's
    ``max_len``); ``example``: a source the page shows as a hint; ``label``: the text box's
    label; ``rule``: a check of the source the page runs before the model (as
    :func:`date_input_rule` describes one), or None; ``max_len``, ``beam_size``, ``alpha``:
    how the page decodes (at most ``max_len`` output tokens, default the model's; beam search
    ranks by log P(Y|X) / lp(Y), as :func:`~attnbook.decode.beam_search`).
    ``dtype=float16`` halves the binary; a weight beyond float16's range is a ValueError, and
    so is a model the page would compute otherwise than PyTorch (:func:`check_browser_model`).
    """
    check_browser_model(model)
    vocab = _check_vocab(model, vocab)
    dtype_name = _dtype_name(dtype)
    torch_dtype, np_dtype = DTYPES[dtype_name]
    c = model.config
    max_input = c.max_len if max_input is None else check_int("max_input", max_input)
    max_len = c.max_len if max_len is None else check_int("max_len", max_len)
    for name, value in (("max_input", max_input), ("max_len", max_len)):
        if value > c.max_len:
            raise ValueError(f"{name}={value} is longer than the model's max_len={c.max_len}")
    check_int("beam_size", beam_size)
    check_float("alpha", alpha, 0.0)
    for name, value in (("example", example), ("label", label)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {describe(value)}")
    if rule is not None and not isinstance(rule, dict):
        raise TypeError(f"rule must be a dict or None, got {describe(rule)}")
    metadata = dict(metadata or {})
    bad = {k: v for k, v in metadata.items() if not (isinstance(k, str) and isinstance(v, str))}
    if bad:
        raise TypeError(f"metadata must map strings to strings, got {bad}")

    stored, shared = _unique_tensors(model)
    entries, chunks, offset = [], [], 0
    for tensor_name, tensor in stored.items():
        values = tensor.detach().to("cpu", torch.float32)
        if not torch.isfinite(values).all():
            raise ValueError(f"tensor {tensor_name!r} holds NaN or infinite weights")
        if dtype_name == "float16" and values.abs().max().item() > _FLOAT16_MAX:
            raise ValueError(
                f"tensor {tensor_name!r} has weights up to {values.abs().max().item():.4g}, beyond "
                f"float16's {_FLOAT16_MAX:g}: export it with dtype=torch.float32"
            )
        data = values.to(torch_dtype).numpy().astype(np_dtype, copy=False).tobytes()
        padding = -offset % _ALIGN
        chunks.append(b"\0" * padding)
        offset += padding
        entries.append(
            {
                "name": tensor_name,
                "shape": list(tensor.shape),
                "dtype": dtype_name,
                "offset": offset,
                "nbytes": len(data),
            }
        )
        chunks.append(data)
        offset += len(data)
    weights = b"".join(chunks)
    (eps,) = {m.eps for m in model.modules() if isinstance(m, torch.nn.LayerNorm)}
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "config": {**dataclasses.asdict(c), "layer_norm_eps": eps},
        "vocab": {
            "itos": vocab.itos,
            "specials": len(SPECIALS),
            "pad_id": vocab.pad_id,
            "bos_id": vocab.bos_id,
            "eos_id": vocab.eos_id,
        },
        "input": {"max_chars": max_input, "example": example, "label": label}
        | ({"rule": rule} if rule else {}),
        "decoding": {"max_len": max_len, "beam_size": beam_size, "alpha": float(alpha)},
        "weights": {
            "file": WEIGHTS,
            "dtype": dtype_name,
            "bytes": len(weights),
            "sha256": hashlib.sha256(weights).hexdigest(),
        },
        "tensors": entries,
        "shared": shared,
        "metadata": metadata,
    }
    return manifest, weights


def export(
    model: Transformer,
    vocab: Vocabulary,
    path: str | Path,
    dtype: torch.dtype | str = torch.float16,
    **options,
) -> Path:
    """Write ``model`` for the browser: a JSON manifest and one binary of weights.

    ``path`` is a folder (created if needed; it gets ``manifest.json`` and ``weights.bin``)
    or a ``.json`` file name (the binary goes next to it, with the suffix ``.bin``).
    ``options`` are :func:`pack`'s. Returns the manifest's path.
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or a pathlib.Path, got {describe(path)}")
    path = Path(path)
    if path.suffix == ".json":
        manifest_path, weights_name = path, path.with_suffix(".bin").name
    else:
        if path.exists() and not path.is_dir():
            raise ValueError(f"{str(path)!r} is a file: give a folder, or a .json file name")
        manifest_path, weights_name = path / MANIFEST, WEIGHTS
    manifest, weights = pack(model, vocab, dtype, **options)
    manifest["weights"]["file"] = weights_name
    manifest_path.parent.mkdir(parents=True, exist_ok=True)
    (manifest_path.parent / weights_name).write_bytes(weights)
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
    return manifest_path


# ---------------------------------------------------------------- the book's date model

#: The shipped date model's name on the site (its folder is ``_static/attnbook-models/dates/``).
DATE_MODEL = "dates"


def date_input_rule() -> dict | None:
    """The package's check of a date the reader types, as data the page runs (``date_rule.js``).

    Where the package validates dates (``attnbook.data.dates``: one layout per format, read
    by ``parse_date`` with one pattern each and tried key by key by ``date_prefix_status``;
    then the year range, the two-digit-year pivot, month and day, the weekday), the rule
    carries its layouts, their patterns (Python's named groups written as JavaScript's) and
    its constants, so that the page refuses what the package refuses, reads names in any
    letter case as it does, and tells an input that may still become a date from one that
    cannot, whatever range the shipped model was trained on. The page words its messages
    from its own string tables (``js/translator_strings.js``; the English ones are the
    package's words). ``None`` when the package checks only characters and length (which the
    page does from the vocabulary and ``max_chars``).
    """
    from attnbook.data import dates

    if not hasattr(dates, "DATE_LAYOUTS"):
        return None
    return {
        "kind": "date",
        "formats": [
            {
                "name": name,
                "pattern": re.sub(r"\(\?P<", "(?<", dates._REGEXES[name].pattern),
                "layout": list(layout),
            }
            for name, layout in dates.DATE_LAYOUTS.items()
        ],
        "fields": dict(dates.DATE_FIELDS),
        "first_year": dates.FIRST_YEAR,
        "last_year": dates.LAST_YEAR,
        "pivot": dates.PIVOT,
        "two_digit_format": dates.TWO_DIGIT_FORMAT,
        "two_digit_fields": list(dates.TWO_DIGIT_FIELDS),
        "months": list(dates.MONTHS),
        "weekdays": list(dates.WEEKDAYS),
        "max_chars": dates.MAX_DATE_LEN,
    }


def date_model_options() -> dict:
    """How the book's pages run the shipped date model: :func:`pack`'s options for it.

    The input limit and the check are the package's (``MAX_DATE_LEN``,
    :func:`date_input_rule`); the hint is the first of its date formats; outputs are as long
    as :func:`~attnbook.decode.translate` lets them be by default.
    """
    import inspect

    from attnbook.data.dates import DATE_FORMATS, MAX_DATE_LEN
    from attnbook.decode import translate

    return {
        "max_input": MAX_DATE_LEN,
        "example": next(iter(DATE_FORMATS)),  # "29 November 2026": each format's name is one
        "label": "Type a date",
        "max_len": inspect.signature(translate).parameters["max_len"].default,
        "rule": date_input_rule(),
        "metadata": {"task": "dates"},
    }


def pack_date_model(dtype: torch.dtype | str = torch.float16) -> tuple[dict, bytes]:
    """:func:`pack` of the shipped date model (``attnbook.recipes.load_date_model``)."""
    from attnbook.data.dates import DATE_VOCAB
    from attnbook.recipes import load_date_model

    return pack(load_date_model(), DATE_VOCAB, dtype, **date_model_options())


def export_date_model(folder: str | Path, dtype: torch.dtype | str = torch.float16) -> Path:
    """Write the shipped date model into ``folder`` (what the book site serves); its manifest."""
    from attnbook.data.dates import DATE_VOCAB
    from attnbook.recipes import load_date_model

    return export(load_date_model(), DATE_VOCAB, folder, dtype, **date_model_options())


# ---------------------------------------------------------------- reading back


def _manifest_at(path: Path) -> Path:
    if path.is_dir():
        path = path / MANIFEST
    if not path.is_file():
        raise WebModelError(f"no exported model at {str(path)!r}: the file does not exist")
    return path


def _read_manifest(path: Path) -> dict:
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WebModelError(f"{str(path)!r} is not a JSON manifest: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise WebModelError(f"{str(path)!r} is not an {FORMAT} manifest (no format: {FORMAT!r})")
    if manifest.get("version") != VERSION:
        raise WebModelError(
            f"{str(path)!r} has format version {manifest.get('version')!r}; this package reads "
            f"version {VERSION}"
        )
    return manifest


def unpack(manifest: dict, weights: bytes) -> WebModel:
    """The model of a manifest and its weights binary (as :func:`pack` made them)."""
    if not isinstance(manifest, dict):
        raise TypeError(f"manifest must be a dict, got {describe(manifest)}")
    if not isinstance(weights, (bytes, bytearray, memoryview)):
        raise TypeError(f"weights must be bytes, got {describe(weights)}")
    missing = [k for k in ("config", "vocab", "weights", "tensors") if k not in manifest]
    if missing:
        raise WebModelError(f"the manifest has no {missing}: not a complete {FORMAT} manifest")
    info = manifest["weights"]
    if len(weights) != info["bytes"]:
        raise WebModelError(
            f"the weights hold {len(weights)} bytes, the manifest says {info['bytes']}: "
            "truncated, or from another export"
        )
    if hashlib.sha256(weights).hexdigest() != info["sha256"]:
        raise WebModelError("the weights' sha256 differs from the manifest's: another export")
    fields = {k: v for k, v in manifest["config"].items() if k != "layer_norm_eps"}
    model = Transformer(TransformerConfig(**fields))
    expected = model.state_dict()
    state = {}
    for entry in manifest["tensors"]:
        _, np_dtype = DTYPES[entry["dtype"]]
        count = math.prod(entry["shape"])
        if entry["offset"] + count * np_dtype.itemsize > len(weights):
            raise WebModelError(f"tensor {entry['name']!r} lies beyond the end of the weights")
        array = np.frombuffer(weights, np_dtype, count, entry["offset"])
        state[entry["name"]] = torch.from_numpy(array.astype(np.float32)).reshape(entry["shape"])
    for name, stored_as in manifest.get("shared", {}).items():
        state[name] = state[stored_as]
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    if missing or unexpected:
        raise WebModelError(
            f"the tensors do not fit the config: missing {missing[:3]}, unexpected {unexpected[:3]}"
        )
    model.load_state_dict(state)
    itos = manifest["vocab"]["itos"]
    vocab = Vocabulary("".join(itos[manifest["vocab"]["specials"] :]))
    return WebModel(model.eval(), vocab, manifest)


def load(path: str | Path) -> WebModel:
    """Read back what :func:`export` wrote (``path``: the folder or the manifest)."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path must be a str or a pathlib.Path, got {describe(path)}")
    manifest_path = _manifest_at(Path(path))
    manifest = _read_manifest(manifest_path)
    weights_path = manifest_path.parent / manifest["weights"]["file"]
    if not weights_path.is_file():
        raise WebModelError(f"the manifest's weights file {str(weights_path)!r} does not exist")
    return unpack(manifest, weights_path.read_bytes())
