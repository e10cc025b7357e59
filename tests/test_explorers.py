"""The explorers' ES modules: one self-contained bundle each, their maths equal to the package.

Every JS function that recomputes something the package computes is run in node on inputs
the package produced and compared with the package's own function (tolerances stated per
test). ``tests/js/call.mjs`` calls a module's named exports with JSON arguments.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
import traitlets
from explorer_cases import CASES, attention_inputs

from attnbook import viz
from attnbook.attention import MultiHeadAttention, scaled_dot_product_attention
from attnbook.compress import dequantize_per_channel, quantize_per_channel
from attnbook.efficient import block_layout
from attnbook.heads import head_contributions
from attnbook.positional import frequencies, rotation_matrix, sinusoidal_encoding
from attnbook.rnn import gradient_norm_grid
from attnbook.scaling import entropy
from attnbook.train import label_smoothing_loss, noam_lr, smoothed_targets
from attnbook.viz import Explorer, GradientDecayExplorer
from attnbook.viz.explorers._base import JS, bundle
from attnbook.viz.explorers.efficient import LAYOUTS
from attnbook.viz.explorers.heads import subset_label

CALL = Path(__file__).resolve().parent / "js" / "call.mjs"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs node")


def js(module: str | Path, *calls: tuple[str, list]) -> list:
    """Results of ``module``'s named exports called with JSON arguments, in node."""
    path = module if isinstance(module, Path) else JS / f"{module}.js"
    request = json.dumps({"module": str(path), "calls": [[name, args] for name, args in calls]})
    out = subprocess.run(
        ["node", str(CALL)], input=request, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def f64(x) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


# ---------------------------------------------------------------- bundles


@needs_node
@pytest.mark.parametrize("name", list(CASES))
def test_each_bundle_is_one_module_with_the_sources_exports(name, tmp_path):
    widget = CASES[name]()
    assert not re.search(r"^\s*import\s", widget._esm, re.M), "the bundle still imports"
    source = (JS / f"{widget._module}.js").read_text(encoding="utf-8")
    assert "./base.js" in source  # the source shares the helpers ...
    probe = tmp_path / "bundle.mjs"  # ... and the bundle runs on its own
    probe.write_text(widget._esm, encoding="utf-8")
    script = (
        f"const m = await import({json.dumps(probe.as_uri())});"
        f"const s = await import({json.dumps((JS / f'{widget._module}.js').as_uri())});"
        "console.log(JSON.stringify([Object.keys(m).sort(), Object.keys(s).sort(),"
        " typeof m.default.render]));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    bundled, original, render = json.loads(out.stdout)
    assert bundled == original and render == "function"


def test_bundles_carry_only_the_helpers_they_use():
    sparsity, heatmap = bundle("sparsity_explorer"), bundle("attention_explorer")
    assert "function pixelImage" in sparsity and "function pixelImage" not in heatmap
    assert "function frequencies" in bundle("pe_rotation")  # from positional.js
    assert "function mount" in heatmap and "function watchTheme" in heatmap  # mount needs it
    # base.js imports its words from strings.js: inlined once, before base.js's code
    assert heatmap.count("const STRINGS = {") == 1 and heatmap.count("function translate(") == 1
    assert heatmap.index("// ---- from strings.js") < heatmap.index("// ---- from base.js")
    helpers = sum(len((JS / f"{m}.js").read_text(encoding="utf-8")) for m in ("base", "strings"))
    assert len(heatmap) < 0.5 * helpers + 5000


def test_each_bundle_carries_its_own_strings_only():
    """The string tables in a bundle hold the explorer's own namespace (and "common"), in
    both languages, and no other explorer's."""
    table = _strings()
    namespaces = {key.split(".")[0] for key in table["en"]}
    own = {
        "attention_explorer": {"attention"},
        "pe_curves": {"peCurves", "positional"},
        "sparsity_explorer": {"sparsity"},
    }
    for module, expected in own.items():
        code = bundle(module)
        found = {ns for ns in namespaces if re.search(rf'^ +"{ns}\.', code, re.M)}
        assert found == expected | {"common"}, module
        for key in table["en"]:
            if key.split(".")[0] in expected:
                assert code.count(f'"{key}":') == 2, key  # once in English, once in Chinese


def test_helper_modules_may_import_helpers_but_not_in_a_cycle(tmp_path, monkeypatch):
    (tmp_path / "words.js").write_text('export const HELLO = "hello";\nexport const UNUSED = 1;\n')
    (tmp_path / "base.js").write_text(
        'import { HELLO } from "./words.js";\n\nexport function greet() {\n  return HELLO;\n}\n'
    )
    (tmp_path / "x.js").write_text(
        'import { greet } from "./base.js";\nexport default { render: greet };\n'
    )
    (tmp_path / "a.js").write_text('import { b } from "./b.js";\nexport const a = () => b;\n')
    (tmp_path / "b.js").write_text('import { a } from "./a.js";\nexport const b = () => a;\n')
    (tmp_path / "y.js").write_text('import { a } from "./a.js";\nexport default { render: a };\n')
    monkeypatch.setattr("attnbook.viz.explorers._base.JS", tmp_path)
    bundle.cache_clear()
    try:
        code = bundle("x")
        assert "const HELLO" in code and "UNUSED" not in code
        assert code.index("const HELLO") < code.index("function greet")
        with pytest.raises(ValueError, match="import each other"):
            bundle("y")
    finally:
        bundle.cache_clear()


def test_bundle_rejects_unknown_modules_and_names(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="no explorer module"):
        bundle("no_such_explorer")
    (tmp_path / "base.js").write_text("export function a() {\n  return 1;\n}\n")
    (tmp_path / "x.js").write_text('import { b } from "./base.js";\nexport default {};\n')
    monkeypatch.setattr("attnbook.viz.explorers._base.JS", tmp_path)
    bundle.cache_clear()
    try:
        with pytest.raises(ValueError, match="no top-level 'b'"):
            bundle("x")
    finally:
        bundle.cache_clear()


def test_every_explorer_is_exported_and_declares_only_its_module():
    import attnbook.viz as viz

    classes = {c for c in vars(viz).values() if isinstance(c, type) and issubclass(c, Explorer)}
    classes.discard(Explorer)
    # the translator (a text box, its own stylesheet) is tested in test_translator_browser.py
    classes.discard(viz.TranslatorExplorer)
    assert len(classes) == len(CASES) == 14
    widgets = [make() for make in CASES.values()]  # (traitlets subclasses each instance's class)
    assert {c for c in classes for w in widgets if isinstance(w, c)} == classes
    for cls in classes:
        assert (JS / f"{cls._module}.js").is_file()
        assert "_esm" not in vars(cls) and "_css" not in vars(cls)  # both come from the base
    widget = CASES["attention"]()
    assert widget._css == CASES["timing"]()._css and ".attnbook-explorer" in widget._css


def test_a_chapter_may_set_the_task_and_the_language():
    """Every explorer takes ``task`` (shown instead of its own task line) and ``language``
    ("" follows the page; "en" or "zh")."""
    tokens, q, k, v = attention_inputs()
    widget = viz.AttentionExplorer(tokens, q, k, v, task="Find the word “mat”.", language="zh")
    assert (widget.task, widget.language) == ("Find the word “mat”.", "zh")
    state = widget.get_state()
    assert state["task"] == "Find the word “mat”." and state["language"] == "zh"
    for make in CASES.values():
        assert (make().task, make().language) == ("", "")
    both = viz.AttentionExplorer(tokens, q, k, v, task={"en": "Find “mat”.", "zh": "找到“mat”。"})
    assert both.get_state()["task"] == {"en": "Find “mat”.", "zh": "找到“mat”。"}
    with pytest.raises(traitlets.TraitError):
        viz.AttentionExplorer(tokens, q, k, v, language="fr")
    with pytest.raises(traitlets.TraitError):
        viz.AttentionExplorer(tokens, q, k, v, task={"fr": "Trouvez “mat”."})


# ---------------------------------------------------------------- words (strings.js)

# Symbols and abbreviations a Chinese string may keep as they are (besides single letters and
# names with an underscore or a digit, such as d_k, W_hh or d0): the paper's and the code's
# notation.
SYMBOLS = {"PE", "pos", "sin", "cos", "softmax", "log", "logit", "lrate", "warmup", "step"}
SYMBOLS |= {"CLS", "RNN", "LSTM", "tanh", "ms", "µs"}
# the explorers' own modules (the translator's, with its own table, are another's)
NOT_OURS = {"translator_explorer", "translator_strings", "date_rule", "transformer"}
MODULES = sorted(p.stem for p in JS.glob("*.js") if p.stem not in NOT_OURS | {"strings"})
CJK = r"[\u4e00-\u9fff]"


def _strings() -> dict[str, dict[str, str]]:
    """strings.js's tables, as node reads them."""
    script = (
        f"const m = await import({json.dumps((JS / 'strings.js').as_uri())});"
        "console.log(JSON.stringify(m.STRINGS));"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def _words(text: str) -> set[str]:
    """The English words of ``text``: its placeholders, symbols (single letters, names with
    an underscore or a digit: d_k, W_hh, d0) and SYMBOLS left out."""
    text = re.sub(r"\{\w+\}", " ", text)
    return {
        w
        for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)
        if len(w) > 1 and not re.search(r"[_\d]", w) and w not in SYMBOLS
    }


@needs_node
def test_every_english_string_has_its_chinese_one():
    """One table per language, the same keys: each Chinese string is there, not empty, names
    the same values, holds no English word and uses Chinese punctuation."""
    table = _strings()
    assert set(table) == {"en", "zh"}
    en, zh = table["en"], table["zh"]
    assert sorted(en) == sorted(zh), set(en) ^ set(zh)
    for key, english in en.items():
        chinese = zh[key]
        assert english.strip() and chinese.strip(), key
        placeholders = [set(re.findall(r"\{(\w+)\}", t)) for t in (english, chinese)]
        assert placeholders[0] == placeholders[1], key
        assert not _words(chinese), f"{key}: English words {_words(chinese)} in {chinese!r}"
        ascii_punctuation = re.search(rf"{CJK}[,;:?!]|[,;:?!] *{CJK}", chinese)
        assert not ascii_punctuation, f"{key}: {chinese!r}"
        if _words(english):
            assert re.search(CJK, chinese), f"{key}: {chinese!r} is not Chinese"


@needs_node
def test_the_page_language_picks_the_table():
    """lang="zh", "zh-CN", "zh_CN", "zh-Hans" → Chinese, anything else → English; the widget's
    language trait wins; a missing Chinese string falls back to English, placeholders filled."""
    script = f"""
const m = await import({json.dumps((JS / "strings.js").as_uri())});
const el = (lang) => ({{ closest: () => (lang === null ? null : {{ getAttribute: () => lang }}) }});
const model = (language) => ({{ get: () => language }});
const out = [];
for (const lang of ["zh", "zh-CN", "zh-Hans", "ZH-tw", "zh_CN", "en", "en-GB", "", "zhx", null])
  out.push(m.translator(el(lang))("common.headN", {{ n: 3 }}));
out.push(m.translator(el("en"), model("zh"))("common.meanOfHeads"));
out.push(m.translator(el("zh"), model("en"))("common.meanOfHeads"));
out.push(m.translator(el("zh"), model(""))("common.layerOf", {{ n: 2, N: 6 }}));
out.push(m.translate("fr", "common.head"));
console.log(JSON.stringify(out));
"""
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [
        *["头 3"] * 5,
        *["head 3"] * 5,
        "各头平均",
        "mean of heads",
        "2（共 6）",
        "head",
    ]


def _literals(source: str) -> list[tuple[int, str, str]]:
    """The string literals of JS ``source``: (offset, the code just before it, its text; a
    template's ${…} parts as \x00), comments left out; nested in ${…} too."""
    found, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "\"'":
            j = i + 1
            while source[j] != c:
                j += 2 if source[j] == "\\" else 1
            found.append((i, source[max(0, i - 16) : i], source[i + 1 : j]))
            i = j + 1
        elif c == "`":
            j, text = i + 1, []
            while source[j] != "`":
                if source[j] == "\\":
                    text.append(source[j : j + 2])
                    j += 2
                elif source.startswith("${", j):
                    depth, k = 1, j + 2
                    while depth:
                        depth += {"{": 1, "}": -1}.get(source[k], 0)
                        k += 1
                    found.extend((j + o, b, t) for o, b, t in _literals(source[j + 2 : k - 1]))
                    text.append("\x00")
                    j = k
                else:
                    text.append(source[j])
                    j += 1
            found.append((i, source[max(0, i - 16) : i], "".join(text)))
            i = j + 1
        else:
            i += 1
    return found


def _technical(text: str, before: str) -> bool:
    """Whether a literal with words in it is for the machine, not the reader: a list of the
    explorers' CSS classes or a selector of them, a media query, an SVG transform, a unit
    after a number, a developer's error."""
    tokens = [t for t in text.replace("\x00", " ").split() if t]
    return (
        all(t.startswith(("ae-", ".ae-")) for t in tokens)
        or text.startswith("(prefers-")
        or re.match(r"(rotate|translate)\(", text) is not None
        or all(t in {"ms", "µs"} for t in tokens)
        or before.rstrip().endswith("Error(")
    )


def test_no_explorer_module_holds_words_for_the_reader():
    """Every word a reader sees comes from strings.js: no explorer module (nor base.js or
    positional.js) has a string literal with a space and a letter in it, but for CSS class
    lists, SVG transforms, units and developers' error messages."""
    assert "attention_explorer" in MODULES and "base" in MODULES and len(MODULES) == 16
    hard_coded = []
    for module in MODULES:
        source = (JS / f"{module}.js").read_text(encoding="utf-8")
        for offset, before, text in _literals(source):
            if re.search(r"\s", text) and re.search(r"[A-Za-z]", text.replace("\x00", "")):
                if not _technical(text, before):
                    line = source.count("\n", 0, offset) + 1
                    hard_coded.append(f"{module}.js:{line}: {text!r}")
    assert hard_coded == []


def test_explorers_colour_by_meaning():
    """One colour language: an explorer names a colour by what it means (COLOUR.query,
    COLOUR.highlight, ...; SERIES for named series), never by a class of its own choosing, so
    a colour means the same in every chapter; base.js defines each meaning once."""
    base = (JS / "base.js").read_text(encoding="utf-8")
    meanings = dict(re.findall(r'^  (\w+): "(ae-(?:c\d|off))", //', base, re.M))
    assert meanings == {
        "main": "ae-c0",
        "highlight": "ae-c1",
        "query": "ae-c3",
        "reference": "ae-c2",
        "other": "ae-off",
    }
    for module in MODULES:
        if module == "base":
            continue
        source = (JS / f"{module}.js").read_text(encoding="utf-8")
        assert not re.search(r"ae-(c\d|off)\b", source), f"{module}.js picks a colour itself"


def test_the_literal_scanner_finds_what_it_must():
    source = 'a("one word"); b(`x ${c ? "two words" : `y ${"deep one"}`} z`); // "not this"'
    assert [t for _, _, t in _literals(source)] == [
        "one word",
        "two words",
        "deep one",
        "y \x00",
        "x \x00 z",
    ]
    assert _technical("ae-fill \x00", "") and _technical("\x00 ms", "")
    assert not _technical("head \x00", "") and _technical("unknown \x00", "new Error(")


@needs_node
def test_heads_are_named_from_one():
    """What the heads explorer calls a set of kept heads (in both languages), and what the
    chapter glues."""
    script = f"""
const heads = await import({json.dumps((JS / "heads_explorer.js").as_uri())});
const words = await import({json.dumps((JS / "strings.js").as_uri())});
const out = [];
for (const lang of ["en", "zh"]) {{
  const t = (key, values) => words.translate(lang, key, values);
  for (const kept of [[0], [1, 3], [0, 1, 2, 3]]) out.push(heads.keptName(kept, 4, t));
}}
console.log(JSON.stringify(out));
"""
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [
        "head 1",
        "heads 2 + 4",
        "all 4 heads",
        "头 1",
        "头 2 + 4",
        "全部 4 个头",
    ]
    assert subset_label(0b0001, 4) == "head 1"
    assert subset_label(0b1010, 4) == "heads 2+4"
    assert subset_label(0b1111, 4) == "all 4 heads"


# ---------------------------------------------------------------- shared maths (base.js)


@needs_node
def test_softmax_entropy_and_rounding_match_torch():
    g = torch.Generator().manual_seed(0)
    x = (10 * torch.randn(12, generator=g, dtype=torch.float64)).tolist()
    halves = [k + 0.5 for k in range(-6, 6)] + [0.49999999999, 2.5000000001, -0.5, 0.0]
    p, H, *rounded = js(
        "base",
        ("softmax", [x]),
        ("entropy", [torch.softmax(f64(x), -1).tolist()]),
        *[("roundHalfEven", [v]) for v in halves],
    )
    torch.testing.assert_close(f64(p), torch.softmax(f64(x), -1), rtol=0, atol=1e-15)
    assert H == pytest.approx(entropy(torch.softmax(f64(x), -1)).item(), abs=1e-12)
    assert rounded == torch.round(f64(halves)).tolist()  # ties to even: 2.5 → 2, −1.5 → −2


# ---------------------------------------------------------------- one explorer each


@needs_node
@pytest.mark.parametrize("tau", [0.1, 1.0, 10.0])
def test_attention_explorer_weights_and_output_match_the_package(tau):
    widget = CASES["attention"]()
    _, q, k, v = (x.double() if isinstance(x, torch.Tensor) else x for x in attention_inputs())
    out, weights = scaled_dot_product_attention(q / tau, k, v)  # softmax(q·kᵀ / (√d_k τ)) v
    results = js(
        "attention_explorer",
        *[("attend", [widget.scores[i], widget.values, tau]) for i in range(6)],
    )
    # the page holds scores and values rounded to 5 decimals: errors up to 5e-6 / τ
    atol = 5e-5 / tau + 2e-5
    torch.testing.assert_close(f64([r["weights"] for r in results]), weights, rtol=0, atol=atol)
    torch.testing.assert_close(f64([r["output"] for r in results]), out, rtol=0, atol=atol)


@needs_node
@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize(("d_model", "base"), [(4, 10000.0), (64, 10000.0), (30, 100.0)])
def test_positional_maths_matches_the_package(layout, d_model, base):
    L = 50
    table, omega, pe_10_3 = js(
        "positional",
        ("peTable", [L, d_model, base, layout]),
        ("frequencies", [d_model, base]),
        ("pe", [10, 3, d_model, base, layout]),
    )
    reference = sinusoidal_encoding(L, d_model, layout, base=base, dtype=torch.float64)
    torch.testing.assert_close(f64(table), reference, rtol=0, atol=1e-12)
    torch.testing.assert_close(f64(omega), frequencies(d_model, base), rtol=1e-14, atol=0)
    assert pe_10_3 == pytest.approx(reference[10, 3].item(), abs=1e-12)


@needs_node
@pytest.mark.parametrize(("k", "pos"), [(3, 2), (-7, 40), (0, 5), (250, 9)])
def test_rotation_is_the_packages_m_k(k, pos):
    d_model = 16
    PE = sinusoidal_encoding(pos + max(k, 0) + 1, d_model, dtype=torch.float64)
    (turned,) = js("positional", ("rotate", [PE[pos].tolist(), k, 10000.0]))
    M_k = rotation_matrix(k, d_model, dtype=torch.float64)
    torch.testing.assert_close(f64(turned), M_k @ PE[pos], rtol=0, atol=1e-12)
    later = sinusoidal_encoding(abs(pos + k) + 1, d_model, dtype=torch.float64)[abs(pos + k)]
    if pos + k < 0:  # PE(−x): the sines change sign, the cosines do not
        later[0::2] *= -1
    torch.testing.assert_close(f64(turned), later, rtol=0, atol=1e-9)


@needs_node
def test_schedule_explorer_is_eq_3():
    cases = [
        (s, d, w)
        for s in (1, 10, 3999, 4000, 4001, 100_000)
        for d in (64, 512)
        for w in (100, 4000)
    ]
    values = js("schedule_explorer", *[("lrate", list(c)) for c in cases])
    assert values == pytest.approx([noam_lr(*c) for c in cases], rel=1e-12)


@needs_node
@pytest.mark.parametrize(("epsilon", "V"), [(0.0, 2), (0.1, 50), (0.5, 100), (0.25, 7)])
def test_smoothing_explorer_matches_label_smoothing_loss(epsilon, V):
    margins = [0.0, 0.5, 3.0, 12.0]
    target, *losses = js(
        "smoothing_explorer",
        ("smoothed", [epsilon, V]),
        *[("lossAtMargin", [m, epsilon, V]) for m in margins],
    )
    q = smoothed_targets(torch.tensor([0]), V, epsilon, dtype=torch.float64)[0]
    assert target["right"] == pytest.approx(q[0].item(), abs=1e-15)
    assert target["other"] == pytest.approx(q[1].item(), abs=1e-15)
    for m, loss in zip(margins, losses):
        logits = torch.zeros(1, V, dtype=torch.float64)
        logits[0, 0] = m  # the right class leads every other logit by m
        expected = label_smoothing_loss(logits, torch.tensor([0]), epsilon).item()
        assert loss == pytest.approx(expected, rel=1e-12, abs=1e-14)


def _quantize_in_node(rows: list[list[float]], bits: int) -> list[dict]:
    return js("compress_explorer", *[("quantizeRow", [row, bits]) for row in rows])


@needs_node
@pytest.mark.parametrize("bits", [2, 4, 8])
def test_quantization_explorer_matches_quantize_per_channel(bits):
    widget = CASES["quantization"]()
    rows = [row for layer in widget.rows for row in layer]  # what the page holds
    for width in {len(r) for r in rows}:
        same = [r for r in rows if len(r) == width]
        W = torch.tensor(same, dtype=torch.float32)
        q, scale = quantize_per_channel(W, bits=bits)
        results = _quantize_in_node(same, bits)
        assert [r["q"] for r in results] == q.tolist()  # every code, exactly
        assert [r["s"] for r in results] == scale.tolist()
        assert [r["wHat"] for r in results] == dequantize_per_channel(q, scale).tolist()


@needs_node
def test_quantization_explorer_rounds_exact_halves_to_even_like_torch():
    # scale 1 exactly (max |w| = qmax), so w / s hits the halves exactly
    rows8 = [[127.0, 2.5, -2.5, 0.5, -0.5, 1.5, -1.5, 3.5, 126.5, -125.5]]
    rows4 = [[7.0, 0.5, 1.5, 2.5, 3.5, -3.5, 4.5, 5.5, 6.5, -6.5]]
    for rows, bits in ((rows8, 8), (rows4, 4)):
        q, scale = quantize_per_channel(torch.tensor(rows), bits=bits)
        assert scale.tolist() == [1.0]
        (result,) = _quantize_in_node(rows, bits)
        assert result["q"] == q[0].tolist()
    assert q[0, 1:4].tolist() == [0, 2, 2]  # 0.5 → 0, 1.5 → 2, 2.5 → 2: not half up


@needs_node
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_sparsity_explorer_layouts_are_block_layout(name, causal):
    params = CASES["sparsity"]().layout_params[name]
    for n_blocks in (1, 5, 8):
        (layout,) = js("sparsity_explorer", ("blockLayout", [n_blocks, params, causal]))
        assert layout == block_layout(n_blocks, causal=causal, **params).tolist()


@needs_node
def test_heads_explorer_sums_are_the_layers_output():
    torch.manual_seed(0)
    mha = MultiHeadAttention(32, h=4).double().eval()
    x = torch.randn(1, 9, 32, dtype=torch.float64)
    with torch.no_grad():
        out, _ = mha(x, x, x)
        contributions, _ = head_contributions(mha, x, x, x)  # (1, h, T, d_model)
    c = contributions[0].tolist()
    calls = [("keptSum", [c, i, [0, 1, 2, 3]]) for i in range(9)]
    calls += [("keptSum", [c, 4, [1, 3]]), ("keptHeads", [0b1010, 4]), ("colourLimit", [c, 4])]
    *sums, pair, kept, limit = js("heads_explorer", *calls)
    # (the kept heads are switched one by one in the page: the mask 0b1010 keeps heads 2 and 4)
    bias = mha.W_O.bias.detach()
    torch.testing.assert_close(f64(sums) + bias, out[0], rtol=0, atol=1e-12)  # Σ_i head_i W_O_i + b
    torch.testing.assert_close(f64(pair), contributions[0, [1, 3], 4].sum(0), rtol=0, atol=1e-12)
    assert kept == [1, 3]
    everything = torch.cat([contributions[0, :, 4].flatten(), contributions[0, :, 4].sum(0)])
    assert limit == pytest.approx(everything.abs().max().item(), rel=1e-12)


@needs_node
def test_cross_attention_and_patch_explorers_average_heads_like_torch():
    cross, patches = CASES["cross_attention"](), CASES["patches"]()
    W = cross.weights[1][0]  # example 1, layer 0: (h, T_out, T_src)
    mean, head2 = js("cross_attention_explorer", ("headWeights", [W, -1]), ("headWeights", [W, 2]))
    torch.testing.assert_close(f64(mean), f64(W).mean(0), rtol=0, atol=1e-12)
    assert head2 == W[2]
    row, share = js(
        "modern_explorer",
        ("clsRow", [patches.cls, 3, 1, -1]),
        ("shareOn", [patches.cls[3][1][0][1:], patches.marked[3]]),
    )
    torch.testing.assert_close(f64(row), f64(patches.cls[3][1]).mean(0), rtol=0, atol=1e-12)
    weights = f64(patches.cls[3][1][0][1:])
    assert share == pytest.approx((weights * f64(patches.marked[3])).sum().item(), abs=1e-12)


@needs_node
def test_gradient_explorer_reads_the_grid_by_distance():
    rhos = [0.5, 1.0, 2.0]
    grid = gradient_norm_grid(rhos, T=30, d_h=16, B=2, burn_in=10)  # column k: distance k
    widget = GradientDecayExplorer(rhos, grid)
    results = js("rnn_gradient_explorer", *[("decay", [row]) for row in widget.log_norms])
    expected = grid[:, -1] - grid[:, 0]  # log10 of the change from distance 0 to 29
    torch.testing.assert_close(f64([r["change"] for r in results]), expected, rtol=0, atol=2e-3)
    assert results[0]["trend"] == "vanishes"  # ρ = 0.5
