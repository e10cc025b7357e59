// What every explorer shares: elements, the scaffold (root, a task line, controls, a
// responsive SVG, its legend, a note), sliders, pickers, word buttons and toggles bound to the
// widget's traits, axis ticks, number formatting, the colour language (what each colour means,
// the same in every explorer) and colour scales safe for colour-blind readers, the theme, a
// text alternative for the drawing, and keyboard ownership. Every word shown comes from the
// string tables of strings.js, in the page's language.
//
// Explorer modules import what they need from here with an ES `import`; the Python base
// class inlines the functions they use into each widget's `_esm`, so every widget ships
// one self-contained module that only uses anywidget's model API (get, set, on, off,
// save_changes). Nothing here runs at import time.
import { language, translator } from "./strings.js";

export const SVG_NS = "http://www.w3.org/2000/svg";

// Below this container width (CSS px) an explorer stacks its panels vertically.
export const NARROW = 500;

// ------------------------------------------------------------------ elements

/** Set attributes (a value of null removes one). */
export function setAttrs(node, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null) node.removeAttribute(name);
    else node.setAttribute(name, value);
  }
  return node;
}

/** An SVG element with attributes, appended to `parent`, holding `text`. */
export function svgEl(tag, attrs = {}, parent = null, text = undefined) {
  const node = setAttrs(document.createElementNS(SVG_NS, tag), attrs);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

/** An HTML element with properties (className, hidden, ...), appended to `parent`. */
export function htmlEl(tag, props = {}, parent = null, text = undefined) {
  const node = Object.assign(document.createElement(tag), props);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

/** Change a node's text only when it differs (no needless style or layout work). */
export function setText(node, text) {
  const value = String(text);
  if (node.textContent !== value) node.textContent = value;
}

/**
 * A growable set of same-kind SVG nodes: `get(i)` makes node i on first use, `trim(n)`
 * removes the nodes from n on. Redraws reuse nodes instead of rebuilding the drawing.
 */
export function pool(parent, tag, attrs = {}) {
  const nodes = [];
  return {
    nodes,
    get(i) {
      while (nodes.length <= i) nodes.push(svgEl(tag, attrs, parent));
      return nodes[i];
    },
    trim(n) {
      while (nodes.length > n) nodes.pop().remove();
    },
  };
}

/** SVG text, anchored "start", "middle" or "end"; `cls` names theme classes. */
export function label(parent, x, y, text, anchor = "start", cls = "") {
  const attrs = { x, y, "text-anchor": anchor };
  if (cls) attrs.class = cls;
  return svgEl("text", attrs, parent, text);
}

/** A vertical axis title, centred on (x, y), reading bottom to top. */
export function vlabel(parent, x, y, text) {
  const attrs = { x, y, "text-anchor": "middle", transform: `rotate(-90 ${x} ${y})` };
  return svgEl("text", attrs, parent, text);
}

/** A line; `cls` picks its colour from the theme (ae-axis, ae-grid, ...). */
export function line(parent, x1, y1, x2, y2, cls = "ae-axis") {
  return svgEl("line", { x1, y1, x2, y2, class: cls }, parent);
}

/**
 * Two axes on the box x0…x1 × y0…y1 (y1 is the bottom, in SVG units) with their titles
 * (the y title turned, centred on x = yTitleX).
 * `xTicks(ticks, X)` / `yTicks(ticks, Y)` place tick marks, labels and (with `grid`)
 * grid lines, reusing nodes, for ticks [{value, label}] and a map from value to px.
 */
export function axes(parent, { x0, x1, y0, y1, xTitle = "", yTitle = "", yTitleX = 14, grid = false }) {
  const back = svgEl("g", {}, parent); // grid lines stay behind the data
  const front = svgEl("g", {}, parent);
  line(front, x0, y1, x1, y1);
  line(front, x0, y0, x0, y1);
  if (xTitle) label(front, (x0 + x1) / 2, y1 + 32, xTitle, "middle");
  if (yTitle) vlabel(front, yTitleX, (y0 + y1) / 2, yTitle);
  const parts = (kind) => ({
    grid: pool(back, "line", { class: "ae-grid" }),
    mark: pool(front, "line", { class: "ae-axis" }),
    text: pool(front, "text", { "text-anchor": kind === "x" ? "middle" : "end" }),
  });
  const x = parts("x");
  const y = parts("y");
  function place(p, ticks, at) {
    ticks.forEach((tick, i) => {
      const [mark, text, gridLine] = at(tick.value);
      setAttrs(p.mark.get(i), mark);
      setAttrs(p.text.get(i), text);
      setText(p.text.get(i), tick.label);
      if (grid) setAttrs(p.grid.get(i), gridLine);
    });
    for (const k of ["grid", "mark", "text"]) p[k].trim(k === "grid" && !grid ? 0 : ticks.length);
  }
  return {
    back,
    front,
    xTicks(ticks, X) {
      place(x, ticks, (v) => [
        { x1: X(v), x2: X(v), y1, y2: y1 + 4 },
        { x: X(v), y: y1 + 16 },
        { x1: X(v), x2: X(v), y1: y0, y2: y1 },
      ]);
    },
    yTicks(ticks, Y) {
      place(y, ticks, (v) => [
        { x1: x0 - 4, x2: x0, y1: Y(v), y2: Y(v) },
        { x: x0 - 6, y: Y(v) + 4 },
        { x1: x0, x2: x1, y1: Y(v), y2: Y(v) },
      ]);
    },
  };
}

/** A horizontal colour key: `colourAt(t)` for t from 0 to 1, labelled at both ends. */
export function colourKey(parent, x, y, width, colourAt, low, high) {
  const n = 24;
  label(parent, x, y + 10, low, "end");
  for (let i = 0; i < n; i++) {
    const attrs = { x: x + 4 + (i * (width - 8)) / n, y, width: (width - 8) / n + 0.5, height: 12 };
    svgEl("rect", { ...attrs, fill: colourAt(i / (n - 1)) }, parent);
  }
  label(parent, x + width, y + 10, high, "start");
}

// ------------------------------------------------------------------ numbers

const SUPERSCRIPT = {
  "-": "⁻",
  0: "⁰",
  1: "¹",
  2: "²",
  3: "³",
  4: "⁴",
  5: "⁵",
  6: "⁶",
  7: "⁷",
  8: "⁸",
  9: "⁹",
};

/** 10ⁿ, the exponent in superscript digits. */
export function powerOfTen(n) {
  const digits = String(n)
    .split("")
    .map((c) => SUPERSCRIPT[c])
    .join("");
  return `10${digits}`;
}

/**
 * A number for a reader: `digits` decimals in the middle range, m·10ⁿ (with `digits` − 1
 * decimals in m) for very small or very large values, and a true minus sign.
 */
export function fmt(x, digits = 3) {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  let text;
  if (a !== 0 && (a < 10 ** -digits || a >= 1e6)) {
    const [m, e] = x.toExponential(Math.max(0, digits - 1)).split("e");
    text = `${m}·${powerOfTen(Number(e))}`;
  } else text = x.toFixed(digits);
  return text.replace("-", "−");
}

/**
 * About `n` round tick values covering [lo, hi] (steps of 1, 2 or 5 × 10ᵏ, the one nearest
 * to (hi − lo) / n on a log scale), each with the label `fmt` gives it at the step's
 * number of decimals.
 */
export function niceTicks(lo, hi, n = 5) {
  if (!(hi > lo)) return [{ value: lo, label: fmt(lo) }];
  const raw = (hi - lo) / Math.max(1, n);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const ratio = raw / mag;
  const step = mag * (ratio >= Math.sqrt(50) ? 10 : ratio >= Math.sqrt(10) ? 5 : ratio >= Math.sqrt(2) ? 2 : 1);
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const ticks = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) {
    const value = Number((k * step).toPrecision(12));
    ticks.push({ value, label: fmt(value, decimals) });
  }
  return ticks;
}

/** softmax(xs), shifted by the maximum so that exp never overflows. */
export function softmax(xs) {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/** H(p) = −Σ p log p, in nats. */
export function entropy(p) {
  return -p.reduce((acc, x) => acc + (x > 0 ? x * Math.log(x) : 0), 0);
}

/** x rounded to the nearest integer, ties to the even one (as torch.round does). */
export function roundHalfEven(x) {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** A linear map from [d0, d1] to [r0, r1]. */
export function linear(d0, d1, r0, r1) {
  const k = (r1 - r0) / (d1 - d0 || 1);
  return (v) => r0 + (v - d0) * k;
}

// ------------------------------------------------------------------ colours

/**
 * The colour language: what a colour means, the same in every explorer (the classes'
 * colours, light and dark, are in explorer.css; Okabe–Ito, told apart by colour-blind
 * readers). An explorer colours a mark by what it means, and its legend names each meaning it
 * shows. Signed values use the diverging scale (blue −, red +), weights from 0 to 1 the
 * sequential one (viridis), each with a ramp in the legend.
 */
export const COLOUR = {
  main: "ae-c0", // blue: the quantity drawn (an attention weight, a curve, a score in use)
  highlight: "ae-c1", // orange: the largest weight (the arg-max), or a curve's peak or minimum
  query: "ae-c3", // purple: the query, or what the reader picked (a position, a ρ, a number of bits)
  reference: "ae-c2", // green, dashed: something to compare with (uniform weights, the paper's setting)
  other: "ae-off", // grey: the others, or what is switched off or left out
};

/** Named series compared side by side (the timing explorer's layers): a colour and a dash each. */
export const SERIES = [
  ["ae-c0", null],
  ["ae-c4", "7 3"],
  ["ae-c5", "2 3"],
  ["ae-c2", "9 3 2 3"],
];

// viridis at 0, 1/8, ..., 1: perceptually uniform, readable in greyscale and by
// colour-blind readers.
const VIRIDIS = [
  [68, 1, 84],
  [71, 45, 123],
  [59, 82, 139],
  [44, 114, 142],
  [33, 145, 140],
  [40, 174, 128],
  [94, 201, 98],
  [173, 220, 48],
  [253, 231, 37],
];

// blue – neutral – red (ColorBrewer's RdBu, as the book's figures draw signed values), light
// and dark versions (the dark one mirrored in lightness); the neutral middle is close to the
// page's background so that zero reads as "nothing". Orange is left to COLOUR.highlight.
const DIVERGING = {
  light: [
    [33, 102, 172],
    [103, 169, 207],
    [244, 244, 244],
    [239, 138, 98],
    [178, 24, 43],
  ],
  dark: [
    [146, 197, 222],
    [67, 147, 195],
    [52, 55, 60],
    [214, 96, 77],
    [244, 165, 130],
  ],
};

function ramp(stops, t) {
  const x = Math.min(1, Math.max(0, t)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  return stops[i].map((c, k) => Math.round(c + f * (stops[i + 1][k] - c)));
}

/** Sequential scale (viridis) for t in [0, 1], as [r, g, b]. */
export function sequentialRGB(t) {
  return ramp(VIRIDIS, t);
}

/** Diverging scale (blue − · neutral 0 · red +) for t in [−1, 1], as [r, g, b]. */
export function divergingRGB(t, dark) {
  return ramp(DIVERGING[dark ? "dark" : "light"], (t + 1) / 2);
}

/** An [r, g, b] triple as a CSS colour. */
export function rgb([r, g, b]) {
  return `rgb(${r},${g},${b})`;
}

/** Sequential colour of t in [0, 1]. */
export function sequential(t) {
  return rgb(sequentialRGB(t));
}

/** Diverging colour of t in [−1, 1]. */
export function diverging(t, dark) {
  return rgb(divergingRGB(t, dark));
}

/**
 * Draw a (rows × cols) grid of [r, g, b] colours as one pixelated image (one pixel per
 * cell): far cheaper to redraw than rows × cols rectangles.
 */
export function pixelImage(node, rows, cols, colourAt) {
  const canvas = document.createElement("canvas");
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext("2d");
  const pixels = ctx.createImageData(cols, rows);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const [red, green, blue] = colourAt(r, c);
      const k = 4 * (r * cols + c);
      pixels.data[k] = red;
      pixels.data[k + 1] = green;
      pixels.data[k + 2] = blue;
      pixels.data[k + 3] = 255;
    }
  }
  ctx.putImageData(pixels, 0, 0);
  node.setAttribute("href", canvas.toDataURL("image/png"));
}

// ------------------------------------------------------------------ theme

/**
 * Whether the page around the explorer is dark: the book's theme sets data-theme on
 * <html>, JupyterLab sets data-jp-theme-light on <body>; otherwise the system setting.
 */
export function isDark() {
  const theme = document.documentElement.getAttribute("data-theme");
  if (theme === "dark" || theme === "light") return theme === "dark";
  const jp = document.body ? document.body.getAttribute("data-jp-theme-light") : null;
  if (jp === "true" || jp === "false") return jp === "false";
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
}

/** Call `onChange` whenever the theme may have changed; returns the function that stops. */
export function watchTheme(onChange) {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributeFilter: ["data-theme"] });
  if (document.body) observer.observe(document.body, { attributeFilter: ["data-jp-theme-light"] });
  const query = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
  if (query) query.addEventListener("change", onChange);
  return () => {
    observer.disconnect();
    if (query) query.removeEventListener("change", onChange);
  };
}

// ------------------------------------------------------------------ controls

function uid(prefix) {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
}

function labelled(controls, text, input) {
  const id = uid("ae-control");
  const wrap = htmlEl("div", { className: "ae-control" }, controls);
  htmlEl("label", { htmlFor: id }, wrap, text);
  input.id = id;
  wrap.appendChild(input);
  return wrap;
}

/** A labelled group of inputs (word buttons, toggles): a div with role "group". */
function group(controls, text, cls) {
  const wrap = htmlEl("div", { className: `ae-control ${cls}` }, controls);
  const name = htmlEl("span", { className: "ae-group-label", id: uid("ae-group") }, wrap, text);
  setAttrs(wrap, { role: "group", "aria-labelledby": name.id });
  return wrap;
}

/**
 * A range input. `text(v)` is what the reader sees for position v (a token, d_model, ...):
 * it is shown beside the slider and announced as aria-valuetext.
 */
function slider(controls, spec) {
  const input = document.createElement("input");
  Object.assign(input, { type: "range", min: spec.min, max: spec.max, step: spec.step ?? 1 });
  const wrap = labelled(controls, spec.label, input);
  const out = htmlEl("output", { htmlFor: input.id }, wrap);
  out.setAttribute("aria-hidden", "true"); // the slider announces the same text itself
  const show = (v) => {
    const shown = spec.text ? spec.text(v) : fmt(v);
    setText(out, shown);
    input.setAttribute("aria-valuetext", shown);
  };
  return {
    inputs: [input],
    event: "input",
    read: () => Number(input.value),
    write(v) {
      input.value = String(v);
      show(Number(input.value));
    },
    show,
  };
}

/** A select element with its label; hidden when there is nothing to choose. */
function picker(controls, spec) {
  const select = document.createElement("select");
  spec.options.forEach(([, text], i) => htmlEl("option", { value: String(i) }, select, text));
  const wrap = labelled(controls, spec.label, select);
  wrap.hidden = spec.options.length < 2;
  const index = (v) => spec.options.findIndex(([value]) => value === v);
  return {
    inputs: [select],
    event: "change",
    read: () => spec.options[Number(select.value)][0],
    write(v) {
      select.value = String(Math.max(0, index(v)));
    },
    show() {},
  };
}

/**
 * One button per option, the chosen one pressed: a click, a tap, or Enter or Space on the
 * focused button chooses it (the words of a sentence, each a button).
 */
function buttons(controls, spec) {
  const wrap = group(controls, spec.label, "ae-buttons");
  const list = spec.options.map(([, text]) => {
    const button = htmlEl("button", { type: "button", className: "ae-button" }, wrap, text);
    button.setAttribute("aria-pressed", "false");
    return button;
  });
  let chosen = 0;
  const write = (v) => {
    const index = spec.options.findIndex(([value]) => value === v);
    chosen = Math.max(0, index);
    list.forEach((b, i) => b.setAttribute("aria-pressed", String(i === chosen)));
  };
  return {
    inputs: list,
    event: "click",
    take(event) {
      write(spec.options[list.indexOf(event.currentTarget)][0]);
      return true;
    },
    read: () => spec.options[chosen][0],
    write,
    show() {},
  };
}

/**
 * One checkbox per option, each switched on and off by itself; the value is the bit mask of
 * the options switched on (option k is bit k). With `atLeastOne`, the last one on stays on
 * and the reader hears why.
 */
function toggles(controls, spec, say) {
  const wrap = group(controls, spec.label, "ae-toggles");
  const boxes = spec.options.map(([, text]) => {
    const item = htmlEl("span", { className: "ae-toggle" }, wrap);
    const box = htmlEl("input", { type: "checkbox", id: uid("ae-toggle") }, item);
    htmlEl("label", { htmlFor: box.id }, item, text);
    return box;
  });
  const read = () => boxes.reduce((mask, box, k) => (box.checked ? mask | (1 << k) : mask), 0);
  return {
    inputs: boxes,
    event: "change",
    take(event) {
      if (spec.atLeastOne && read() === 0) {
        event.currentTarget.checked = true;
        say(spec.atLeastOne);
        return false;
      }
      return true;
    },
    read,
    write(v) {
      for (const [k, box] of boxes.entries()) box.checked = Boolean((v >> k) & 1);
    },
    show() {},
  };
}

const CONTROLS = { slider, picker, buttons, toggles };

/**
 * A slider over a list of values (d_model in 64, 128, …): its position is an index, the
 * trait holds the value (the nearest one when the trait is set to another), and the
 * reader sees and hears `text(value)`.
 */
export function choiceSlider(name, label, trait, values, text = String) {
  const nearest = (v) => values.reduce((best, x, i) => (Math.abs(x - v) < Math.abs(values[best] - v) ? i : best), 0);
  const toTrait = (i) => values[i];
  return {
    kind: "slider",
    name,
    label,
    trait,
    min: 0,
    max: values.length - 1,
    fromTrait: nearest,
    toTrait,
    text: (i) => text(values[i]),
  };
}

/**
 * A picker of the trait `head`: the mean of a layer's h heads (−1), or head 1 … h (0 … h − 1).
 * `t` gives the words (strings.js); the page's language when left out.
 */
export function headPicker(h, t = translator(null)) {
  const heads = [...Array(h).keys()].map((k) => [k, t("common.headN", { n: k + 1 })]);
  const options = [[-1, t("common.meanOfHeads")], ...heads];
  return { kind: "picker", name: "head", label: t("common.head"), trait: "head", options };
}

/**
 * The boxes {x0, x1, y0, y1} of two plots: side by side, or one above the other on a narrow
 * screen with `gap` px between them for titles and tick labels. `margin` is the room left
 * of each box for its tick labels.
 */
export function twoPanels(ui, { top = 40, height = 160, margin = 56, gap = 86 }) {
  const { width: W, narrow } = ui;
  const half = narrow ? W : Math.floor(W / 2);
  const A = { x0: margin, x1: half - 16, y0: top, y1: top + height };
  if (narrow)
    return [
      { ...A, x1: W - 12 },
      { x0: margin, x1: W - 12, y0: A.y1 + gap, y1: A.y1 + gap + height },
    ];
  return [A, { x0: half + margin, x1: W - 12, y0: top, y1: top + height }];
}

// ------------------------------------------------------------------ the legend

const MARK = { width: 24, height: 14 };

/**
 * The small drawing of one legend entry, in an SVG of MARK's size: `mark` is "bar" (a filled
 * box), "line", "dash" (a dashed line), "dot", "ring" (a hollow dot), "frame" (an outlined
 * box) or "word" (an underlined word mark), in the colour `colour` (a key of COLOUR) or that
 * of the named series `series` (an index into SERIES, with its dash); or a `ramp`
 * ("diverging" or "sequential") drawn as a strip of colours.
 */
function legendMark(parent, item, dark) {
  const svg = svgEl("svg", { width: MARK.width, height: MARK.height, class: "ae-mark" }, parent);
  svg.setAttribute("aria-hidden", "true");
  const [cls, dash] =
    item.series === undefined ? [COLOUR[item.colour], item.dash] : SERIES[item.series % SERIES.length];
  const mid = MARK.height / 2;
  if (item.ramp) {
    const n = 12;
    const at = item.ramp === "diverging" ? (t) => diverging(2 * t - 1, dark) : sequential;
    for (let i = 0; i < n; i++) {
      const attrs = { x: (i * MARK.width) / n, y: 1, width: MARK.width / n + 0.5, height: MARK.height - 2 };
      svgEl("rect", { ...attrs, fill: at(i / (n - 1)) }, svg);
    }
    return;
  }
  const draw = {
    bar: () => svgEl("rect", { x: 3, y: 2, width: 18, height: 10, class: `ae-fill ${cls}` }, svg),
    line: () => svgEl("line", { x1: 1, y1: mid, x2: 23, y2: mid, class: `ae-stroke ${cls}`, "stroke-width": 2.5 }, svg),
    dash: () =>
      svgEl(
        "line",
        {
          x1: 1,
          y1: mid,
          x2: 23,
          y2: mid,
          class: `ae-stroke ${cls}`,
          "stroke-width": 2,
          "stroke-dasharray": dash ?? "5 3",
        },
        svg,
      ),
    dot: () => svgEl("circle", { cx: 12, cy: mid, r: 4.5, class: `ae-fill ${cls}` }, svg),
    ring: () => svgEl("circle", { cx: 12, cy: mid, r: 4.5, class: `ae-stroke ${cls}`, "stroke-width": 2 }, svg),
    frame: () =>
      svgEl("rect", { x: 3, y: 2, width: 18, height: 10, class: `ae-stroke ${cls}`, "stroke-width": 2 }, svg),
    word: () => svgEl("rect", { x: 2, y: 10, width: 20, height: 3, class: `ae-fill ${cls}` }, svg),
  };
  const mark = item.series === undefined ? item.mark : dash ? "dash" : "line";
  if (item.fill) svgEl("rect", { x: 3, y: 2, width: 18, height: 10, class: "ae-outline" }, svg).style.fill = item.fill;
  else draw[mark]();
}

/**
 * Fill `box` with the legend `items`: [{mark, colour, text}] or [{ramp, low, high, text}]
 * (a ramp's ends labelled low and high), or [{fill, text}] (a box of the CSS colour `fill`).
 */
function drawLegend(box, items, dark) {
  box.replaceChildren();
  box.hidden = items.length === 0;
  for (const item of items) {
    const entry = htmlEl("span", { className: "ae-key" }, box);
    if (item.ramp) htmlEl("span", { className: "ae-ramp-end" }, entry, item.low);
    legendMark(entry, item, dark);
    if (item.ramp) htmlEl("span", { className: "ae-ramp-end" }, entry, item.high);
    htmlEl("span", {}, entry, item.text);
  }
}

// ------------------------------------------------------------------ the explorer

/**
 * The explorer's elements in `el`: a root that owns its keys, the task line (what to try and
 * what to look for), the controls row, a sizer (its width is the drawing's), the drawing, its
 * legend, the note under it and a live region for screen readers.
 */
function scaffold(el) {
  const root = htmlEl("div", { className: "attnbook-explorer" }, el);
  // JupyterLab (Lumino) runs no shortcut for keys pressed under these attributes ...
  for (const name of ["data-lm-suppress-shortcuts", "lm-suppress-shortcuts", "data-p-suppress-shortcuts"]) {
    root.setAttribute(name, "true");
  }
  // ... and no notebook (JupyterLab, Colab) sees them: the default action, moving a slider
  // or a picker, still happens.
  const own = (event) => event.stopPropagation();
  for (const type of ["keydown", "keyup", "keypress"]) root.addEventListener(type, own);
  const task = htmlEl("p", { className: "ae-task" }, root);
  const controls = htmlEl("div", { className: "ae-controls" }, root);
  const sizer = htmlEl("div", { className: "ae-sizer" }, root);
  const drawing = svgEl("svg", { role: "img", class: "ae-drawing" }, root);
  const legend = htmlEl("div", { className: "ae-legend" }, root);
  const note = htmlEl("p", { className: "ae-note", id: uid("ae-note") }, root);
  drawing.setAttribute("aria-describedby", note.id);
  const live = htmlEl("div", { className: "ae-sr" }, root);
  live.setAttribute("aria-live", "polite");
  return { root, task, controls, sizer, drawing, legend, note, live };
}

/**
 * Make control `c` and keep it, `ui.values[c.name]` and the trait `c.trait` in step: a move
 * redraws and tells the model; a change of the trait (from the kernel) moves the control
 * and redraws. Returns the function that stops following the trait.
 */
function bind(c, controls, model, ui, redraw, say) {
  const control = CONTROLS[c.kind](controls, c, say);
  const fromTrait = c.fromTrait ?? ((v) => v);
  const toTrait = c.toTrait ?? ((v) => v);
  control.write(c.trait ? fromTrait(model.get(c.trait)) : c.value);
  ui.values[c.name] = control.read();
  const changed = (event) => {
    if (control.take && !control.take(event)) return;
    ui.values[c.name] = control.read();
    control.show(ui.values[c.name]);
    redraw(c.rebuild);
    if (!c.trait) return;
    model.set(c.trait, toTrait(ui.values[c.name]));
    try {
      model.save_changes();
    } catch {
      // a static page has no kernel to tell
    }
  };
  for (const input of control.inputs) input.addEventListener(control.event, changed);
  if (!c.trait) return () => {};
  const follow = () => {
    control.write(fromTrait(model.get(c.trait)));
    const value = control.read(); // as the control shows it (a slider snaps to its step)
    if (value === ui.values[c.name]) return; // our own change, echoed
    ui.values[c.name] = value;
    redraw(c.rebuild);
  };
  model.on(`change:${c.trait}`, follow);
  return () => model.off(`change:${c.trait}`, follow);
}

/**
 * Mount an explorer into `el` and return anywidget's cleanup function.
 *
 * spec.label      what the drawing is, for its text alternative's first words
 * spec.task       what to try and what to look for, in a sentence or two, shown first (the
 *                 trait `task`, when a chapter sets it, is shown instead: a string, or
 *                 {en, zh} with one per language)
 * spec.legend     what each colour and mark of the drawing means: [{mark, colour, text}, ...]
 *                 (see drawLegend), or ui => that list when it depends on the drawing
 * spec.controls   [{kind: "slider" | "picker" | "buttons" | "toggles", name, label, trait?,
 *                  toTrait?, fromTrait?, rebuild?, ...}]: sliders take min, max, step,
 *                  text(v); pickers and buttons take options [[value, text], ...]; toggles
 *                  take options [[k, text], ...] and hold the bit mask of those on (with
 *                  atLeastOne: the message heard when the reader tries to switch off the
 *                  last). A control with a trait starts from the trait's value, writes it back
 *                  on every change, and follows it.
 * spec.build(ui)  draw the parts that only change with the size, the theme or a control
 *                 marked `rebuild`; call ui.size(height) with the drawing's height.
 * spec.update(ui) redraw from ui.values (the controls' current values) by updating the
 *                 nodes build made; return the text alternative of the new drawing.
 *
 * ui.width is the drawing's width in CSS px (the SVG's viewBox uses the same units, so
 * 12 px text is shown at 12 px), ui.narrow is true below NARROW px, ui.dark follows the
 * theme, ui.t gives the page's words (strings.js). ui.redraw(rebuild) redraws when something
 * other than a control changed (an explorer that computes in the browser, after the reader
 * typed).
 */
export function mount(el, model, spec) {
  const { root, task, controls, sizer, drawing, legend, note, live } = scaffold(el);
  const t = translator(el, model);
  const ui = {
    root,
    svg: drawing,
    note,
    values: {},
    width: 0,
    narrow: false,
    dark: isDark(),
    t,
    size(height) {
      const h = Math.ceil(height);
      setAttrs(drawing, { viewBox: `0 0 ${ui.width} ${h}`, width: ui.width, height: h });
    },
    redraw: (rebuild = false) => redraw(rebuild),
  };
  let liveTimer = 0;
  const say = (text) => {
    clearTimeout(liveTimer);
    setText(live, text);
  };
  // a chapter's own task line (the trait `task`: a string, or one per language) wins
  const own = model.get("task");
  const lang = language(el, model.get("language") || "");
  setText(task, (typeof own === "string" ? own : own?.[lang] || own?.en) || spec.task || "");
  task.hidden = !task.textContent;

  function redraw(rebuild = false) {
    if (rebuild) {
      while (drawing.firstChild) drawing.removeChild(drawing.firstChild);
      spec.build(ui);
      const items = typeof spec.legend === "function" ? spec.legend(ui) : (spec.legend ?? []);
      drawLegend(legend, items, ui.dark);
    }
    const text = spec.update(ui);
    drawing.setAttribute("aria-label", t("common.drawing", { label: spec.label, text }));
    clearTimeout(liveTimer); // announce the drawing once the reader stops moving a control
    liveTimer = setTimeout(() => setText(live, text), 500);
  }

  function layout() {
    const measured = Math.floor(sizer.getBoundingClientRect().width);
    const width = measured > 0 ? measured : 640; // not laid out yet: a guess, corrected when it is
    if (width === ui.width) return;
    ui.width = width;
    ui.narrow = width < NARROW;
    redraw(true);
  }

  function theme() {
    const dark = isDark();
    root.classList.toggle("ae-dark", dark);
    if (dark === ui.dark) return;
    ui.dark = dark;
    redraw(true);
  }

  const unbind = spec.controls.map((c) => bind(c, controls, model, ui, redraw, say));
  root.classList.toggle("ae-dark", ui.dark);
  layout();
  const resize = typeof ResizeObserver === "function" ? new ResizeObserver(layout) : null;
  if (resize) resize.observe(sizer);
  const stopTheme = watchTheme(theme);

  return () => {
    if (resize) resize.disconnect();
    stopTheme();
    clearTimeout(liveTimer);
    for (const stop of unbind) stop();
    root.remove();
  };
}
