// Translator explorer: the book's trained encoder–decoder runs in the page. The reader types a
// source; the translation updates at every keystroke (no kernel, no debounce). While the text
// is still on its way to a date (a start of one the model reads: "29 Nov", "11/2"), the last
// translation and its map stay, and a quiet line says to keep typing; a message appears only
// when no key can make the text a date. The formats the model reads are shown as examples to
// press. The drawing shows the cross-attention of each output character over the source
// characters for a chosen layer and head (or their mean); a step slider replays the decoding
// one output character at a time and shows what that step reads. Greedy decoding and beam
// search are compared, with their log-probabilities. The panel keeps one height while the
// reader types (the drawing has room for the longest output, the lines for their text).
//
// Every word comes from the string tables of translator_strings.js, in the page's language.
//
// The weights come from the widget (its `weights` bytes, in Colab and JupyterLab) or, on the
// book's static site, from the exported file that `weights_url` names relative to the site's
// _static/ folder (which <meta name="attnbook-vendor"> locates), fetched once per page. On the
// site the page stays light until the reader asks: a button naming the download (or the first
// keystroke in the box) fetches the weights; a model whose `load` is "now" fetches them at once.
// mountPlaceholders() draws the same explorer into each <div class="attnbook-translator"
// data-model="NAME"> of a page that holds no saved widget (a Markdown page).
import { colourKey, htmlEl, label, mount, pool, sequential, setText, svgEl, vlabel } from "./base.js";
import { checkDate, dateStatus } from "./date_rule.js";
import { beamSearch, bytesOf, checkSource, encode, greedy, loadModel } from "./transformer.js";
import { translatorLanguage, translatorSentence, translatorText } from "./translator_strings.js";

// The folder of the site's _static/ that holds exported models (attnbook.web.SITE_MODELS).
export const SITE_MODELS = "attnbook-models";

// Models by the URL of their weights, fetched and read once per page; and by their bytes.
const FETCHED = new Map();
const PARSED = new WeakMap();

// ------------------------------------------------------------------ the weights

/** The site's _static/ folder, from <meta name="attnbook-vendor"> (…/_static/attnbook-vendor/); null off the site. */
export function staticBase(doc = document) {
  const meta = doc.querySelector('meta[name="attnbook-vendor"]');
  if (!meta || !meta.content) return null;
  return new URL("..", new URL(meta.content, doc.baseURI)).href;
}

/** Why the model could not be had: a key of the string tables and its values (the page words it). */
class TranslatorFailure extends Error {
  constructor(key, params = {}) {
    super(translatorText("en", key, params));
    this.key = key;
    this.params = params;
  }
}

/** An error as the reader's language words it (one of ours), or its own message (another's). */
function failureText(lang, error) {
  if (error instanceof TranslatorFailure) return translatorText(lang, error.key, error.params);
  return error && error.message ? error.message : String(error);
}

/** The bytes of a Bytes trait as a front end hands them over, or null when there are none. */
function traitBytes(value) {
  if (!value || typeof value !== "object") return null;
  try {
    const bytes = bytesOf(value);
    return bytes.byteLength ? bytes : null;
  } catch {
    return null;
  }
}

/** Refuse a weights file that is not the manifest's (its length, and its sha256 where the page may compute it). */
async function checkWeights(manifest, bytes) {
  if (bytes.byteLength !== manifest.weights.bytes) {
    throw new TranslatorFailure("translator.error.bytes", { n: bytes.byteLength, m: manifest.weights.bytes });
  }
  const subtle = globalThis.crypto && globalThis.crypto.subtle; // only on https and localhost
  if (!subtle) return;
  const digest = new Uint8Array(await subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== manifest.weights.sha256) throw new TranslatorFailure("translator.error.sha");
}

async function fetchModel(manifest, href) {
  const response = await fetch(href);
  if (!response.ok) throw new TranslatorFailure("translator.error.http", { url: href, status: response.status });
  const bytes = new Uint8Array(await response.arrayBuffer());
  await checkWeights(manifest, bytes);
  return loadModel(manifest, bytes);
}

/** A promise of the model: from the widget's own bytes, else fetched from the site (once per page). */
export function modelOf(manifest, weights, url, doc = document) {
  const bytes = traitBytes(weights);
  if (bytes) {
    if (!PARSED.has(bytes.buffer))
      PARSED.set(
        bytes.buffer,
        Promise.resolve().then(() => loadModel(manifest, bytes)),
      );
    return PARSED.get(bytes.buffer);
  }
  if (!url) return Promise.reject(new TranslatorFailure("translator.error.noweights"));
  const base = staticBase(doc);
  if (!base) return Promise.reject(new TranslatorFailure("translator.error.nosite"));
  const href = new URL(url, base).href;
  if (!FETCHED.has(href)) FETCHED.set(href, fetchModel(manifest, href));
  return FETCHED.get(href);
}

// ------------------------------------------------------------------ the panel

const shown = (c) => (c === " " ? "␣" : c);

/** How a row of the drawing names output token `id`: its character, or a symbol for a special token. */
function tokenName(vocab, id) {
  if (id === vocab.eos_id) return "⏎";
  if (id === vocab.pad_id) return "␀";
  if (id === vocab.bos_id) return "␂";
  return shown(vocab.itos[id]);
}

function uniqueId(prefix) {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * A number in plain decimals, never m·10ⁿ: `digits` decimals, or as many as its first
 * significant digit needs (0.000004), down to 10⁻⁶; below that, "less than 0.000001".
 */
function plain(t, x, digits) {
  const a = Math.abs(x);
  let text;
  if (a === 0 || a >= 10 ** -digits) text = a.toFixed(digits);
  else if (a >= 1e-6) text = a.toFixed(Math.ceil(-Math.log10(a) - 1e-9));
  else return t("translator.probability.below", { p: "0.000001" });
  return x < 0 ? `−${text}` : text;
}

/** Set the attributes that differ from those last set by this function (redraws write little). */
function put(node, attrs) {
  const last = node.aeLast || (node.aeLast = {});
  for (const name in attrs) {
    const value = attrs[name];
    if (last[name] === value) continue;
    last[name] = value;
    if (value === null) node.removeAttribute(name);
    else node.setAttribute(name, value);
  }
}

/**
 * The text box, the translation, the message line, the examples, the comparison and the
 * step slider. `label` names the box; `examples` are the sources the example buttons hold.
 */
function panel(t, label, names, examples) {
  const top = htmlEl("div", { className: "ae-translator" });
  const row = htmlEl("div", { className: "ae-source" }, top);
  const id = uniqueId("ae-source");
  htmlEl("label", { htmlFor: id }, row, label);
  const input = htmlEl("input", { type: "text", name: "source", id, autocomplete: "off", spellcheck: false }, row);
  for (const [name, value] of [
    ["autocapitalize", "off"],
    ["autocorrect", "off"],
    ["enterkeyhint", "done"],
  ])
    input.setAttribute(name, value);
  const answer = htmlEl("div", { className: "ae-answer" }, top);
  const arrow = htmlEl("span", { className: "ae-arrow" }, answer, "→");
  arrow.setAttribute("aria-hidden", "true");
  const output = htmlEl("output", { name: "translation", htmlFor: id }, answer);
  const message = htmlEl("p", { className: "ae-message", id: uniqueId("ae-message") }, top);
  message.setAttribute("aria-live", "polite");
  input.setAttribute("aria-describedby", message.id);
  const chips = htmlEl("div", { className: "ae-examples" }, top);
  chips.hidden = examples.length === 0;
  chips.setAttribute("role", "group");
  chips.setAttribute("aria-label", t("translator.examples.label"));
  htmlEl("span", { className: "ae-examples-label" }, chips, t("translator.examples")).setAttribute(
    "aria-hidden",
    "true",
  );
  const buttons = examples.map((text) => {
    const chip = htmlEl("button", { type: "button", className: "ae-chip" }, chips, text);
    chip.dataset.source = text;
    return chip;
  });
  const compare = htmlEl("div", { className: "ae-compare" }, top);
  const rows = {};
  for (const [kind, name] of Object.entries(names)) {
    const line = htmlEl("div", { className: "ae-row" }, compare);
    rows[kind] = {
      line,
      name: htmlEl("span", { className: "ae-name" }, line, name),
      text: htmlEl("span", { className: "ae-text" }, line),
      logp: htmlEl("span", { className: "ae-logp" }, line),
    };
  }
  const stepWrap = htmlEl("div", { className: "ae-control" });
  const stepId = uniqueId("ae-step");
  htmlEl("label", { htmlFor: stepId }, stepWrap, t("translator.step"));
  const step = htmlEl("input", { type: "range", id: stepId, min: "1", max: "1", step: "1", value: "1" }, stepWrap);
  const stepShown = htmlEl("output", { htmlFor: stepId }, stepWrap);
  stepShown.setAttribute("aria-hidden", "true");
  return { top, arrow, input, output, message, buttons, rows, stepWrap, step, stepShown };
}

// ------------------------------------------------------------------ the explorer

/** The (T_src,) cross-attention weights of one step for layer l and head k (k < 0: mean of heads). */
export function stepWeights(cross, S, h, l, k) {
  const out = new Float32Array(S);
  const heads = k < 0 ? [...Array(h).keys()] : [k];
  for (const head of heads) for (let j = 0; j < S; j++) out[j] += cross[(l * h + head) * S + j] / heads.length;
  return out;
}

// The drawing's geometry (CSS px): its height depends on the width alone, never on the text,
// so that the panel keeps its height while the reader types.
const LEFT = 44;
const BAR_TOP = 46;
const BAR_H = 26;
const COL_Y = BAR_TOP + BAR_H + 16;
const ROWS_TOP = COL_Y + 8;
const ROW_H = 20;

// Translations kept per explorer, by the text the model reads (its encoder output and decodings).
const KEPT = 32;

function render({ model, el }) {
  const manifest = model.get("manifest");
  const lang = translatorLanguage(el);
  const t = (key, params) => translatorText(lang, key, params);
  const sentence = (message) => translatorSentence(lang, message);
  const { N, h } = manifest.config;
  const { beam_size: beamSize, alpha, max_len: maxLen } = manifest.decoding;
  const rule = manifest.input.rule && manifest.input.rule.kind === "date" ? manifest.input.rule : null;
  const names = { greedy: t("translator.decoding.greedy"), beam: t("translator.decoding.beam", { k: beamSize }) };
  const examples = rule ? rule.formats.map((f) => f.name) : manifest.input.example ? [manifest.input.example] : [];
  const boxLabel = rule ? t("translator.input.date") : manifest.input.label || t("translator.input.source");
  const p = panel(t, boxLabel, names, examples);
  // weights served by the site wait for the reader's request (a light page first)
  const onRequest = !traitBytes(model.get("weights")) && model.get("load") !== "now";
  const s = {
    net: null,
    status: onRequest ? "waiting" : "loading", // "ready", "failed"
    failure: "",
    text: model.get("source") || "",
    problem: null, // why the text cannot be translated: {problem, key, params}
    typing: false, // the text is the start of a date: the last translation stays
    note: null, // what the date check noticed but lets through (a weekday that does not match)
    shown: null, // the translation shown: {source, chars, enc, results}
    stale: false, // it is the last one, not the text's
    kept: new Map(), // translations by the text the model reads, most recent last
    step: model.get("step") ?? -1, // 1 … T: the step replayed; −1: the last one
    later: 0,
  };
  let ui = null;
  let parts = null;
  let alive = true;

  const chosen = () => (ui ? ui.values.decoding : model.get("decoding"));
  const known = (ch) => s.net.stoi.has(ch) || s.net.stoi.has(ch.toLowerCase()) || s.net.stoi.has(ch.toUpperCase());

  function tell(changes) {
    for (const [name, value] of Object.entries(changes)) model.set(name, value);
    try {
      model.save_changes();
    } catch {
      // a static page has no kernel to tell
    }
  }

  /** The decoding `kind` of the translation shown, computed on first use. */
  function result(kind) {
    const view = s.shown;
    if (!view) return null;
    if (!view.results[kind]) {
      view.results[kind] =
        kind === "beam" ? beamSearch(s.net, view.enc, maxLen, beamSize, alpha) : greedy(s.net, view.enc, maxLen);
    }
    return view.results[kind];
  }

  /**
   * The ids of `text`, or where it stands: {typing} while it is the start of a date, or why
   * the page does not translate it ({problem, key, params}). Without the package's date rule:
   * characters and length from the vocabulary. With it (manifest input.rule), the rule reads
   * the text as the package does (white space around ignored, names in any letter case); a text
   * it does not read is either the start of a date, or refused: first for characters no letter
   * case of which the model knows, then in the rule's words.
   */
  function check(text) {
    if (!rule) return checkSource(s.net, text);
    if (!text.trim()) return checkSource(s.net, text);
    const date = checkDate(rule, text);
    if (!date.problem) return { ...checkSource(s.net, date.text), text: date.text, note: date.note };
    if (dateStatus(rule, text) === "incomplete") return { typing: true };
    const basic = checkSource(s.net, text.trim(), known);
    return basic.problem === "unknown" ? basic : date;
  }

  /** The translation of `source` (ids `ids`), from the kept ones when the model read it before. */
  function translation(source, ids) {
    let view = s.kept.get(source);
    if (view) s.kept.delete(source);
    else view = { source, chars: Array.from(source), enc: encode(s.net, ids), results: { greedy: null, beam: null } };
    s.kept.set(source, view);
    if (s.kept.size > KEPT) s.kept.delete(s.kept.keys().next().value);
    return view;
  }

  /** Read `text`: the chosen decoding now, the other one as soon as this event is over. */
  function read(text) {
    s.text = text;
    s.problem = null;
    s.note = null;
    s.typing = false;
    clearTimeout(s.later);
    if (!s.net) return;
    const checked = check(text);
    if (checked.typing) {
      s.typing = true;
      s.stale = Boolean(s.shown);
      return;
    }
    if (!checked.ids) {
      s.problem = checked;
      s.shown = null;
      return;
    }
    s.note = checked.note || null;
    s.shown = translation(checked.text ?? text, checked.ids);
    s.stale = false;
    result(chosen());
    if (s.shown.results.greedy && s.shown.results.beam) return;
    afterPaint(() => {
      if (!alive || !s.shown || s.stale) return;
      result(chosen() === "beam" ? "greedy" : "beam");
      showComparison();
    });
  }

  /** Run `f` once the frame showing the translation is painted (the reader sees it first). */
  function afterPaint(f) {
    const queue = () => (s.later = setTimeout(f, 0));
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(queue);
    else queue();
  }

  function showComparison() {
    const view = s.shown;
    for (const [kind, row] of Object.entries(p.rows)) {
      const r = view ? view.results[kind] : null;
      row.line.classList.toggle("ae-chosen", kind === chosen());
      setText(row.text, r ? r.text || t("translator.nothing") : view ? "…" : "");
      const logp = r
        ? t("translator.logp", { logp: plain(t, r.logProb, 4), p: (100 * Math.exp(r.logProb)).toFixed(1) })
        : "";
      setText(row.logp, logp);
    }
  }

  function message(r) {
    if (s.status === "waiting") return "";
    if (s.status === "loading") return t("translator.loading");
    if (s.status === "failed") return t("translator.failed", { reason: s.failure });
    if (s.problem) return sentence(t(s.problem.key, s.problem.params));
    if (s.typing) return t("translator.typing");
    if (s.note) return sentence(t(s.note.key, s.note.params));
    if (r && !r.finished) return t("translator.cut", { n: maxLen });
    return "";
  }

  function showAnswer(r) {
    setText(p.output, r ? r.text : "");
    p.output.classList.toggle("ae-stale", s.stale);
    p.arrow.style.visibility = r ? "" : "hidden";
    setText(p.message, message(r));
    p.message.classList.toggle("ae-problem", Boolean(s.problem && s.problem.problem !== "empty"));
    showComparison();
    const T = r ? r.steps.length : 0;
    const k = stepIndex(T);
    p.step.max = String(Math.max(T, 1));
    p.step.value = String(k + 1);
    p.step.disabled = T === 0;
    setText(p.stepShown, T ? t("translator.step.shown", { k: k + 1, n: T }) : t("translator.step.none"));
    const c = T ? tokenName(s.net.vocab, r.steps[k].token) : "";
    p.step.setAttribute(
      "aria-valuetext",
      T ? t("translator.step.valuetext", { k: k + 1, n: T, c }) : t("translator.step.valuetext.none"),
    );
  }

  /** The step shown (0-based) when the output has T steps. */
  function stepIndex(T) {
    return s.step < 1 || s.step > T ? T - 1 : s.step - 1;
  }

  /** The drawing's height: room for maxLen output rows and the colour key under them. */
  const keyY = () => ROWS_TOP + maxLen * ROW_H + 12;
  const height = () => keyY() + 18;

  function build(ui_) {
    ui = ui_;
    ui.root.classList.add("attnbook-translator");
    const { svg } = ui;
    parts = {
      title: label(svg, 4, 16, "", "start", "ae-title"),
      caption: label(svg, 4, 38, "", "start", "ae-muted"),
      bars: pool(svg, "rect", { class: "ae-fill ae-c0" }),
      cols: pool(svg, "text", { "text-anchor": "middle" }),
      rows: pool(svg, "text", { "text-anchor": "end" }),
      cells: pool(svg, "rect"),
      frame: svgEl("rect", { class: "ae-frame", "stroke-width": 2 }, svg),
      axis: vlabel(svg, 12, 0, t("translator.axis.output")),
      key: svgEl("g", { transform: `translate(${LEFT} ${keyY()})` }, svg),
    };
    colourKey(parts.key, 14, 0, 110, sequential, t("translator.key.low"), t("translator.key.high"));
    ui.size(height());
  }

  /** No map to show: the drawing keeps its size and says so (once the model is in). */
  function clearDrawing(ui) {
    const { title, caption, bars, cols, rows, cells, frame, axis, key } = parts;
    const none = s.shown || s.status !== "ready" ? "" : t("translator.drawing.none");
    setText(title, "");
    setText(caption, none);
    for (const pl of [bars, cols, rows, cells]) pl.trim(0);
    for (const node of [frame, axis, key]) put(node, { visibility: "hidden" });
    ui.size(height());
    ui.note.textContent = "";
    return none || t("translator.drawing.empty");
  }

  function update(ui) {
    const kind = ui.values.decoding;
    const r = result(kind);
    showAnswer(r);
    if (!r || !r.steps.length) return clearDrawing(ui);
    return drawSteps(ui, r, kind);
  }

  function drawSteps(ui, r, kind) {
    const { layer: l, head: k } = ui.values;
    const { width: W, narrow } = ui;
    const vocab = s.net.vocab;
    const chars = s.shown.chars;
    const S = chars.length;
    const T = r.steps.length;
    const now = stepIndex(T);
    const cell = Math.max(6, Math.min(28, Math.floor((W - LEFT - 8) / S)));
    const every = Math.ceil(12 / cell);
    const which = k >= 0 ? t("translator.head.option", { k: k + 1 }) : t("translator.head.mean");
    const outChars = r.steps.map((st) => tokenName(vocab, st.token));
    const titleParams = { l: l + 1, n: N, which, kind: p.rows[kind].name.textContent };
    setText(parts.title, t(narrow ? "translator.title.narrow" : "translator.title", titleParams));
    setText(parts.caption, t("translator.caption", { k: now + 1, n: T, c: outChars[now] }));
    const rowsW = r.steps.map((st) => stepWeights(st.cross, S, h, l, k));
    const reads = rowsW[now];
    for (let j = 0; j < S; j++) {
      const height = Math.max(0.5, reads[j] * BAR_H);
      put(parts.bars.get(j), { x: LEFT + j * cell + 1, y: BAR_TOP + BAR_H - height, width: cell - 2, height });
      const text = parts.cols.get(j);
      put(text, { x: LEFT + j * cell + cell / 2, y: COL_Y, visibility: j % every === 0 ? null : "hidden" });
      setText(text, shown(chars[j]));
    }
    parts.bars.trim(S);
    parts.cols.trim(S);
    for (let i = 0; i < T; i++) {
      const future = i > now;
      const text = parts.rows.get(i);
      put(text, { x: LEFT - 8, y: ROWS_TOP + i * ROW_H + ROW_H / 2 + 4, class: future ? "ae-faint" : null });
      setText(text, outChars[i]);
      const w = rowsW[i];
      for (let j = 0; j < S; j++) {
        put(parts.cells.get(i * S + j), {
          x: LEFT + j * cell,
          y: ROWS_TOP + i * ROW_H,
          width: cell - 1,
          height: ROW_H - 1,
          class: future ? "ae-panel" : null,
          fill: future ? null : sequential(w[j]),
        });
      }
    }
    parts.rows.trim(T);
    parts.cells.trim(T * S);
    put(parts.frame, {
      x: LEFT - 1,
      y: ROWS_TOP + now * ROW_H - 1,
      width: S * cell + 1,
      height: ROW_H + 1,
      visibility: null,
    });
    const middle = ROWS_TOP + (T * ROW_H) / 2;
    put(parts.axis, { y: middle, transform: `rotate(-90 12 ${middle})`, visibility: null });
    put(parts.key, { visibility: null });
    ui.size(height());
    return describe(r, kind, outChars, rowsW, now, which, l);
  }

  /** The note under the drawing and the drawing's text alternative. */
  function describe(r, kind, outChars, rowsW, now, which, l) {
    const vocab = s.net.vocab;
    const chars = s.shown.chars;
    const probs = softmaxOf(r.steps[now].logits);
    const written = r.steps[now].token;
    let runnerUp = written === 0 ? 1 : 0;
    for (let v = 0; v < probs.length; v++) if (v !== written && probs[v] > probs[runnerUp]) runnerUp = v;
    const order = [...rowsW[now].keys()].sort((a, b) => rowsW[now][b] - rowsW[now][a]).slice(0, 3);
    const reads = order.map((j) => t("translator.note.read", { c: shown(chars[j]), w: plain(t, rowsW[now][j], 2) }));
    const note = t("translator.note", {
      k: now + 1,
      c: outChars[now],
      p: plain(t, probs[written], 3),
      c2: tokenName(vocab, runnerUp),
      p2: plain(t, probs[runnerUp], 3),
      reads,
    });
    setText(ui.note, note);
    const peaks = rowsW.map((row, i) => {
      let best = 0;
      for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
      return t("translator.alt.peak", { o: outChars[i], s: shown(chars[best]) });
    });
    return t("translator.alt", {
      l: l + 1,
      which,
      kind: p.rows[kind].name.textContent,
      src: s.shown.source,
      out: r.text,
      t: outChars.length,
      s: chars.length,
      peaks,
      note,
    });
  }

  function onInput() {
    if (s.status === "waiting") start(); // typing asks for the model too
    s.step = -1;
    read(p.input.value);
    if (ui) ui.redraw();
    const r = s.shown && !s.stale ? s.shown.results[chosen()] : null;
    tell({ source: s.text, translation: r ? r.text : "", step: -1 });
  }

  function onExample(event) {
    p.input.value = event.currentTarget.dataset.source;
    onInput();
  }

  function onStep() {
    s.step = Number(p.step.value);
    if (ui) ui.redraw();
    tell({ step: s.step });
  }

  function followSource() {
    const text = model.get("source") || "";
    if (text === s.text) return; // our own change, echoed
    p.input.value = text;
    s.step = -1;
    read(text);
    if (ui) ui.redraw();
  }

  function followStep() {
    const step = model.get("step") ?? -1;
    if (step === s.step) return;
    s.step = step;
    if (ui) ui.redraw();
  }

  const heads = [
    [-1, t("translator.head.mean")],
    ...[...Array(h).keys()].map((k) => [k, t("translator.head.option", { k: k + 1 })]),
  ];
  const cleanup = mount(el, model, {
    label: t("translator.drawing.label"),
    task: t("translator.task"),
    controls: [
      {
        kind: "picker",
        name: "decoding",
        label: t("translator.decoding"),
        trait: "decoding",
        options: Object.entries(names),
      },
      {
        kind: "picker",
        name: "layer",
        label: t("translator.layer"),
        trait: "layer",
        options: [...Array(N).keys()].map((i) => [i, t("translator.layer.option", { i: i + 1, n: N })]),
      },
      { kind: "picker", name: "head", label: t("translator.head"), trait: "head", options: heads },
    ],
    build,
    update,
  });
  ui.root.insertBefore(p.top, ui.root.firstChild);
  ui.root.querySelector(".ae-controls").appendChild(p.stepWrap);
  p.input.value = s.text;
  p.input.addEventListener("input", onInput);
  for (const chip of p.buttons) chip.addEventListener("click", onExample);
  p.step.addEventListener("input", onStep);
  model.on("change:source", followSource);
  model.on("change:step", followStep);

  /** Fetch (or read) the weights, once, then translate what the box holds. */
  let started = false;
  function start() {
    if (started) return;
    started = true;
    s.status = "loading";
    if (button) button.remove();
    ui.redraw();
    modelOf(manifest, model.get("weights"), model.get("weights_url"), el.ownerDocument).then(
      (net) => {
        if (!alive) return;
        s.net = net;
        s.status = "ready";
        read(s.text);
        ui.redraw();
      },
      (error) => {
        if (!alive) return;
        s.status = "failed";
        s.failure = failureText(lang, error);
        ui.redraw();
      },
    );
  }

  let button = null;
  if (onRequest) {
    const kb = Math.round(manifest.weights.bytes / 1024);
    button = htmlEl("button", { type: "button", className: "attnbook-translator-load" }, null);
    setText(button, t("translator.button", { kb }));
    button.addEventListener("click", start, { once: true });
    p.top.insertBefore(button, p.message);
  } else start();

  return () => {
    alive = false;
    clearTimeout(s.later);
    model.off("change:source", followSource);
    model.off("change:step", followStep);
    cleanup();
  };
}

/** softmax(logits) in double precision. */
function softmaxOf(logits) {
  let max = -Infinity;
  for (const z of logits) if (z > max) max = z;
  const e = Float64Array.from(logits, (z) => Math.exp(z - max));
  let sum = 0;
  for (const x of e) sum += x;
  for (let i = 0; i < e.length; i++) e[i] /= sum;
  return e;
}

// ------------------------------------------------------------------ pages without widgets

/** A minimal anywidget model over a plain object: get, set, on, off, save_changes. */
function pageModel(state) {
  const listeners = new Map();
  return {
    get: (name) => state[name],
    set(name, value) {
      const old = state[name];
      state[name] = value;
      if (old !== value) for (const f of [...(listeners.get(`change:${name}`) || [])]) f(this, value);
    },
    on(event, f) {
      if (!listeners.has(event)) listeners.set(event, []);
      listeners.get(event).push(f);
    },
    off(event, f) {
      listeners.set(
        event,
        (listeners.get(event) || []).filter((g) => g !== f),
      );
    },
    save_changes() {},
  };
}

/**
 * Draw the translator into every <div class="attnbook-translator" data-model="NAME"> of `root`
 * not drawn yet: for pages without a kernel or a saved widget. The model is the site's export
 * _static/attnbook-models/NAME/ (manifest.json, then its weights, each fetched once per page);
 * data-source sets the first source shown; a placeholder with data-load="click" waits until that
 * attribute is removed (the page's button does). Problems are written into the element, never thrown.
 */
export async function mountPlaceholders(root = document) {
  const doc = root.ownerDocument || root;
  const base = staticBase(doc);
  const found = [...root.querySelectorAll("div.attnbook-translator[data-model]")].filter(
    (el) => !el.dataset.mounted && el.dataset.load !== "click", // data-load="click": on the reader's request
  );
  await Promise.all(
    found.map(async (el) => {
      el.dataset.mounted = "true";
      try {
        const name = el.dataset.model;
        if (!/^\w+$/.test(name)) throw new TranslatorFailure("translator.error.name", { name });
        if (!base) throw new TranslatorFailure("translator.error.meta");
        const folder = `${SITE_MODELS}/${name}/`;
        const response = await fetch(new URL(`${folder}manifest.json`, base));
        const url = `${folder}manifest.json`;
        if (!response.ok) throw new TranslatorFailure("translator.error.http", { url, status: response.status });
        const manifest = await response.json();
        el.replaceChildren();
        const state = {
          manifest,
          weights: null,
          weights_url: folder + manifest.weights.file,
          source: el.dataset.source ?? manifest.input.example,
          translation: "",
          decoding: "greedy",
          layer: manifest.config.N - 1,
          head: -1,
          step: -1,
          load: "now", // the placeholder's own button (data-load="click") has been pressed
        };
        render({ model: pageModel(state), el });
      } catch (error) {
        const lang = translatorLanguage(el);
        el.textContent = translatorText(lang, "translator.placeholder.failed", { reason: failureText(lang, error) });
      }
    }),
  );
}

export default { render };
