// Translator explorer: the book's trained encoder–decoder runs in the page. The reader types a
// source; the translation updates at every keystroke (no kernel, no debounce). The drawing
// shows the cross-attention of each output character over the source characters for a chosen
// layer and head (or their mean); a step slider replays the decoding one output character at
// a time and shows what that step reads. Greedy decoding and beam search are compared, with
// their log-probabilities.
//
// The weights come from the widget (its `weights` bytes, in Colab and JupyterLab) or, on the
// book's static site, from the exported file that `weights_url` names relative to the site's
// _static/ folder (which <meta name="attnbook-vendor"> locates), fetched once per page. On the
// site the page stays light until the reader asks: a button naming the download (or the first
// keystroke in the box) fetches the weights; a model whose `load` is "now" fetches them at once.
// mountPlaceholders() draws the same explorer into each <div class="attnbook-translator"
// data-model="NAME"> of a page that holds no saved widget (a Markdown page).
import {
  colourKey,
  fmt,
  headPicker,
  htmlEl,
  label,
  mount,
  pool,
  sequential,
  setAttrs,
  setText,
  svgEl,
  vlabel,
} from "./base.js";
import { checkDate } from "./date_rule.js";
import { beamSearch, bytesOf, checkSource, encode, greedy, loadModel } from "./transformer.js";

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
    throw new Error(`the weights file holds ${bytes.byteLength} bytes, this model ${manifest.weights.bytes}`);
  }
  const subtle = globalThis.crypto && globalThis.crypto.subtle; // only on https and localhost
  if (!subtle) return;
  const digest = new Uint8Array(await subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== manifest.weights.sha256) throw new Error("the weights file is another model's (its sha256 differs)");
}

async function fetchModel(manifest, href) {
  const response = await fetch(href);
  if (!response.ok) throw new Error(`${href} answered HTTP ${response.status}`);
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
  if (!url) return Promise.reject(new Error("this explorer holds no weights and names no file to fetch"));
  const base = staticBase(doc);
  if (!base) return Promise.reject(new Error("its weights are served by the book's site, and this page is not on it"));
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

/** The text box, the translation, the message line, the comparison and the step slider. */
function panel(manifest, names) {
  const top = htmlEl("div", { className: "ae-translator" });
  const row = htmlEl("div", { className: "ae-source" }, top);
  const id = uniqueId("ae-source");
  htmlEl("label", { htmlFor: id }, row, manifest.input.label || "source");
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
  htmlEl("label", { htmlFor: stepId }, stepWrap, "step");
  const step = htmlEl("input", { type: "range", id: stepId, min: "1", max: "1", step: "1", value: "1" }, stepWrap);
  const stepShown = htmlEl("output", { htmlFor: stepId }, stepWrap);
  stepShown.setAttribute("aria-hidden", "true");
  return { top, arrow, input, output, message, rows, stepWrap, step, stepShown };
}

// ------------------------------------------------------------------ the explorer

/** The (T_src,) cross-attention weights of one step for layer l and head k (k < 0: mean of heads). */
export function stepWeights(cross, S, h, l, k) {
  const out = new Float32Array(S);
  const heads = k < 0 ? [...Array(h).keys()] : [k];
  for (const head of heads) for (let j = 0; j < S; j++) out[j] += cross[(l * h + head) * S + j] / heads.length;
  return out;
}

function render({ model, el }) {
  const manifest = model.get("manifest");
  const { N, h } = manifest.config;
  const { beam_size: beamSize, alpha, max_len: maxLen } = manifest.decoding;
  const names = { greedy: "greedy", beam: `beam search (${beamSize})` };
  const p = panel(manifest, names);
  // weights served by the site wait for the reader's request (a light page first)
  const onRequest = !traitBytes(model.get("weights")) && model.get("load") !== "now";
  const s = {
    net: null,
    status: onRequest ? "waiting" : "loading", // "ready", "failed"
    failure: "",
    text: model.get("source") || "",
    chars: [],
    problem: null,
    note: null, // what the date check noticed but lets through (a weekday that does not match)
    enc: null,
    results: { greedy: null, beam: null },
    step: model.get("step") ?? -1, // 1 … T: the step replayed; −1: the last one
    later: 0,
  };
  let ui = null;
  let parts = null;
  let alive = true;

  const chosen = () => (ui ? ui.values.decoding : model.get("decoding"));

  function tell(changes) {
    for (const [name, value] of Object.entries(changes)) model.set(name, value);
    try {
      model.save_changes();
    } catch {
      // a static page has no kernel to tell
    }
  }

  /** The decoding `kind` of the current source, computed on first use. */
  function result(kind) {
    if (!s.enc) return null;
    if (!s.results[kind]) {
      s.results[kind] =
        kind === "beam" ? beamSearch(s.net, s.enc, maxLen, beamSize, alpha) : greedy(s.net, s.enc, maxLen);
    }
    return s.results[kind];
  }

  /**
   * The ids of `text`, or why the page does not translate it: characters and length from the
   * vocabulary; then, when the export carries the package's date rule (manifest input.rule),
   * that rule, which reads the text without surrounding white space as the package does.
   */
  function check(text) {
    const rule = manifest.input.rule;
    if (!rule) return checkSource(s.net, text);
    const basic = checkSource(s.net, text.trim());
    if (basic.problem === "empty" || basic.problem === "unknown") return basic;
    const date = checkDate(rule, text);
    if (date.problem) return { problem: date.problem, message: sentence(date.message) };
    return { ...checkSource(s.net, date.text), text: date.text, note: date.note && sentence(date.note) };
  }

  /** Read `text`: the chosen decoding now, the other one as soon as this event is over. */
  function read(text) {
    s.text = text;
    s.chars = Array.from(text);
    s.results = { greedy: null, beam: null };
    s.enc = null;
    s.problem = null;
    s.note = null;
    clearTimeout(s.later);
    if (!s.net) return;
    const checked = check(text);
    if (!checked.ids) {
      s.problem = checked;
      return;
    }
    if (checked.text !== undefined) s.chars = Array.from(checked.text);
    s.note = checked.note || null;
    s.enc = encode(s.net, checked.ids);
    result(chosen());
    afterPaint(() => {
      if (!alive || !s.enc) return;
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
    for (const [kind, row] of Object.entries(p.rows)) {
      const r = s.enc ? s.results[kind] : null;
      row.line.classList.toggle("ae-chosen", kind === chosen());
      setText(row.text, r ? r.text || "(nothing)" : s.enc ? "…" : "");
      setText(row.logp, r ? `log P = ${fmt(r.logProb, 4)} (P = ${(100 * Math.exp(r.logProb)).toFixed(1)} %)` : "");
    }
  }

  function showAnswer(r) {
    setText(p.output, r ? r.text : "");
    p.arrow.style.visibility = r ? "" : "hidden";
    let message = "";
    if (s.status === "waiting") message = "";
    else if (s.status === "loading") message = "Loading the model…";
    else if (s.status === "failed") message = `The model could not be loaded: ${s.failure}`;
    else if (s.problem) message = s.problem.message;
    else if (s.note) message = s.note;
    else if (r && !r.finished) message = `No end after ${maxLen} characters: the answer is cut there.`;
    setText(p.message, message);
    p.message.classList.toggle("ae-problem", Boolean(s.problem && s.problem.problem !== "empty"));
    showComparison();
    const T = r ? r.steps.length : 0;
    const k = stepIndex(T);
    p.step.max = String(Math.max(T, 1));
    p.step.value = String(k + 1);
    p.step.disabled = T === 0;
    const text = T ? `${k + 1} of ${T}` : "–";
    setText(p.stepShown, text);
    p.step.setAttribute(
      "aria-valuetext",
      T ? `step ${text}, writes ${tokenName(s.net.vocab, r.steps[k].token)}` : "none",
    );
  }

  /** The step shown (0-based) when the output has T steps. */
  function stepIndex(T) {
    return s.step < 1 || s.step > T ? T - 1 : s.step - 1;
  }

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
      axis: vlabel(svg, 12, 0, "output"),
      key: svgEl("g", {}, svg),
    };
    colourKey(parts.key, 14, 0, 110, sequential, "0", "1 (weight)");
  }

  function clearDrawing(ui, caption) {
    const { title, bars, cols, rows, cells, frame, axis, key } = parts;
    setText(title, "");
    setText(parts.caption, caption);
    for (const pl of [bars, cols, rows, cells]) pl.trim(0);
    for (const node of [frame, axis, key]) node.setAttribute("visibility", "hidden");
    ui.size(48);
    ui.note.textContent = "";
    return caption || "No translation to show.";
  }

  function update(ui) {
    const kind = ui.values.decoding;
    const r = result(kind);
    showAnswer(r);
    if (!r || !r.steps.length) return clearDrawing(ui, s.problem || s.status !== "ready" ? "" : "No output.");
    return drawSteps(ui, r, kind);
  }

  function drawSteps(ui, r, kind) {
    const { layer: l, head: k } = ui.values;
    const { width: W, narrow } = ui;
    const vocab = s.net.vocab;
    const S = s.chars.length;
    const T = r.steps.length;
    const now = stepIndex(T);
    const left = 44;
    const barTop = 46;
    const barH = 26;
    const colY = barTop + barH + 16;
    const top = colY + 8;
    const cell = Math.max(6, Math.min(28, Math.floor((W - left - 8) / S)));
    const rowH = Math.max(16, Math.min(cell, 24));
    const every = Math.ceil(12 / cell);
    const which = k >= 0 ? `head ${k + 1}` : "mean of heads";
    const outChars = r.steps.map((st) => tokenName(vocab, st.token));
    setText(parts.title, `${narrow ? "" : "cross-attention, "}layer ${l + 1} of ${N}, ${which}, ${kind}`);
    setText(parts.caption, `step ${now + 1} of ${T} writes ${outChars[now]} and reads:`);
    const rowsW = r.steps.map((st) => stepWeights(st.cross, S, h, l, k));
    const reads = rowsW[now];
    for (let j = 0; j < S; j++) {
      const height = Math.max(0.5, reads[j] * barH);
      setAttrs(parts.bars.get(j), { x: left + j * cell + 1, y: barTop + barH - height, width: cell - 2, height });
      const text = parts.cols.get(j);
      setAttrs(text, { x: left + j * cell + cell / 2, y: colY, visibility: j % every === 0 ? null : "hidden" });
      setText(text, shown(s.chars[j]));
    }
    parts.bars.trim(S);
    parts.cols.trim(S);
    for (let i = 0; i < T; i++) {
      const future = i > now;
      const text = parts.rows.get(i);
      setAttrs(text, { x: left - 8, y: top + i * rowH + rowH / 2 + 4, class: future ? "ae-faint" : null });
      setText(text, outChars[i]);
      for (let j = 0; j < S; j++) {
        const attrs = { x: left + j * cell, y: top + i * rowH, width: cell - 1, height: rowH - 1 };
        attrs.class = future ? "ae-panel" : null;
        attrs.fill = future ? null : sequential(rowsW[i][j]);
        setAttrs(parts.cells.get(i * S + j), attrs);
      }
    }
    parts.rows.trim(T);
    parts.cells.trim(T * S);
    setAttrs(parts.frame, {
      x: left - 1,
      y: top + now * rowH - 1,
      width: S * cell + 1,
      height: rowH + 1,
      visibility: null,
    });
    setAttrs(parts.axis, {
      y: top + (T * rowH) / 2,
      transform: `rotate(-90 12 ${top + (T * rowH) / 2})`,
      visibility: null,
    });
    const keyY = top + T * rowH + 12;
    setAttrs(parts.key, { transform: `translate(${left} ${keyY})`, visibility: null });
    ui.size(keyY + 18);
    return describe(r, kind, outChars, rowsW, now, which, l);
  }

  /** The note under the drawing and the drawing's text alternative. */
  function describe(r, kind, outChars, rowsW, now, which, l) {
    const vocab = s.net.vocab;
    const probs = softmaxOf(r.steps[now].logits);
    const order = [...probs.keys()].sort((a, b) => probs[b] - probs[a]);
    const written = r.steps[now].token;
    const runnerUp = order.find((v) => v !== written);
    const reads = [...rowsW[now].keys()].sort((a, b) => rowsW[now][b] - rowsW[now][a]).slice(0, 3);
    const readText = reads.map((j) => `${shown(s.chars[j])} (${fmt(rowsW[now][j], 2)})`).join(", ");
    ui.note.textContent =
      `Step ${now + 1} writes ${outChars[now]} with P = ${fmt(probs[written], 3)} ` +
      `(next best ${tokenName(vocab, runnerUp)}, ${fmt(probs[runnerUp], 3)}); it reads most ${readText}.`;
    const peaks = rowsW.map((row, i) => `${outChars[i]}→${shown(s.chars[row.indexOf(Math.max(...row))])}`);
    return (
      `Heat map of cross-attention, layer ${l + 1}, ${which}, ${kind} decoding of "${s.text}" into "${r.text}": ` +
      `rows are the ${outChars.length} output characters, columns the ${s.chars.length} source characters; ` +
      `the strongest source character per output is ${peaks.join(", ")}. ${ui.note.textContent}`
    );
  }

  function onInput() {
    if (s.status === "waiting") start(); // typing asks for the model too
    s.step = -1;
    read(p.input.value);
    if (ui) ui.redraw();
    const r = s.enc ? s.results[chosen()] : null;
    tell({ source: s.text, translation: r ? r.text : "", step: -1 });
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

  const cleanup = mount(el, model, {
    label: "Cross-attention of each output character over the source characters, computed in the page",
    controls: [
      {
        kind: "picker",
        name: "decoding",
        label: "decoding",
        trait: "decoding",
        options: Object.entries(names),
      },
      {
        kind: "picker",
        name: "layer",
        label: "layer",
        trait: "layer",
        options: [...Array(N).keys()].map((i) => [i, `${i + 1} of ${N}`]),
      },
      headPicker(h),
    ],
    build,
    update,
  });
  ui.root.insertBefore(p.top, ui.root.firstChild);
  ui.root.querySelector(".ae-controls").appendChild(p.stepWrap);
  p.input.value = s.text;
  p.input.addEventListener("input", onInput);
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
        s.failure = error && error.message ? error.message : String(error);
        ui.redraw();
      },
    );
  }

  let button = null;
  if (onRequest) {
    const kb = Math.round(manifest.weights.bytes / 1024);
    button = htmlEl("button", { type: "button", className: "attnbook-translator-load" }, null);
    setText(button, `Run the model in this page (${kb} KB)`);
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

/** The package's message as a sentence: a capital first letter, a full stop. */
function sentence(message) {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** softmax(logits) in double precision. */
function softmaxOf(logits) {
  let max = -Infinity;
  for (const z of logits) if (z > max) max = z;
  const e = Array.from(logits, (z) => Math.exp(z - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
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
        if (!/^\w+$/.test(name)) throw new Error(`data-model must name a model such as "dates", got "${name}"`);
        if (!base) throw new Error('the page names no site folder (<meta name="attnbook-vendor">)');
        const folder = `${SITE_MODELS}/${name}/`;
        const response = await fetch(new URL(`${folder}manifest.json`, base));
        if (!response.ok) throw new Error(`${folder}manifest.json answered HTTP ${response.status}`);
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
        el.textContent = `The live translator could not start: ${error.message}`;
      }
    }),
  );
}

export default { render };
