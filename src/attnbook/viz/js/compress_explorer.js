// Quantization explorer: a few rows of trained weights per layer come from Python, with
// the accuracy of the whole model quantized to b bits. For the chosen row w the browser
// recomputes the symmetric per-channel grid exactly as attnbook.compress does (float32,
// ties rounded to even like torch.round):
//   qmax = 2^(b-1) − 1,   s = max_j |w_j| / qmax,   q_j = clamp(round(w_j / s), −qmax, qmax),
// and draws ŵ_j = q_j · s against w (a staircase), next to accuracy against b.
import { COLOUR, axes, label, pool, setAttrs, setText, svgEl } from "./base.js";
import { fmt, linear, niceTicks, roundHalfEven } from "./base.js";
import { choiceSlider, mount } from "./base.js";
import { translator } from "./strings.js";

/** quantize_per_channel for one row w at `bits` bits: the codes q, the scale s and ŵ. */
export function quantizeRow(w, bits) {
  const f = Math.fround;
  const qmax = 2 ** (bits - 1) - 1;
  const w32 = w.map(f);
  const amax = Math.max(...w32.map(Math.abs));
  const s = amax > 0 ? f(amax / qmax) : 1;
  const q = w32.map((x) => Math.max(-qmax, Math.min(qmax, roundHalfEven(f(x / s)))));
  const wHat = q.map((k) => f(k * s));
  const maxErr = Math.max(...w32.map((x, j) => Math.abs(wHat[j] - x)));
  const used = new Set(q).size;
  return { qmax, s, q, wHat, maxErr, used };
}

function render({ model, el }) {
  const t = translator(el, model);
  const layers = model.get("layers");
  const rows = model.get("rows"); // (layers, rows, d_in)
  const accBits = model.get("accuracy_bits");
  const acc = model.get("accuracy");
  const nRows = rows[0].length;
  let parts;

  function build(ui) {
    const { svg, width: W, narrow } = ui;
    const side = narrow ? W - 84 : Math.min(300, Math.floor(W / 2) - 80);
    const A = { x0: 60, x1: 60 + side, y0: 30, y1: 30 + side };
    const B = narrow
      ? { x0: 60, x1: W - 30, y0: A.y1 + 84, y1: A.y1 + 264 }
      : { x0: Math.floor(W / 2) + 50, x1: W - 30, y0: 30, y1: A.y1 };
    parts = { A, B, grid: pool(svgEl("g", {}, svg), "line", { class: "ae-grid" }) };
    parts.title = label(svg, 4, 14, "", "start", "ae-title");
    parts.aAxes = axes(svg, {
      ...A,
      xTitle: t("quantization.floatAxis"),
      yTitle: t("quantization.codeAxis"),
      yTitleX: 12,
    });
    parts.diagonal = svgEl("line", { class: `ae-stroke ${COLOUR.reference}`, "stroke-dasharray": "4 3" }, svg);
    const dots = svgEl("g", { class: `ae-fill ${COLOUR.main}`, "fill-opacity": 0.75 }, svg);
    parts.dots = pool(dots, "circle", { r: 3 });
    label(svg, B.x0 - 40, B.y0 - 16, t("quantization.accuracyTitle"), "start", "ae-title");
    const bAxes = axes(svg, { ...B, xTitle: t("quantization.bits") });
    const lo = accBits[0];
    const hi = accBits[accBits.length - 1];
    parts.XB = linear(lo, hi === lo ? lo + 1 : hi, B.x0 + 8, B.x1 - 8);
    parts.YB = linear(0, 1, B.y1, B.y0);
    bAxes.xTicks(
      accBits.map((b) => ({ value: b, label: String(b) })),
      parts.XB,
    );
    bAxes.yTicks(
      [0, 0.25, 0.5, 0.75, 1].map((share) => ({ value: share, label: `${100 * share}%` })),
      parts.YB,
    );
    const points = accBits.map((b, i) => `${parts.XB(b)},${parts.YB(acc[i])}`).join(" ");
    svgEl("polyline", { points, class: `ae-stroke ${COLOUR.main}`, "stroke-width": 2 }, svg);
    parts.marks = accBits.map((b, i) => svgEl("circle", { cx: parts.XB(b), cy: parts.YB(acc[i]), r: 3.5 }, svg));
    parts.accText = label(svg, 0, 0, "");
    ui.size(B.y1 + 40);
  }

  function update(ui) {
    const li = Math.max(0, layers.indexOf(ui.values.layer));
    const row = ui.values.row;
    const bits = accBits[ui.values.bits];
    const w = rows[li][row];
    const r = quantizeRow(w, bits);
    const { A } = parts;
    setText(parts.title, t("quantization.title", { bits }));
    const lim = 1.05 * Math.max(...w.map(Math.abs), 1e-9);
    const X = linear(-lim, lim, A.x0, A.x1);
    const Y = linear(-lim, lim, A.y1, A.y0);
    const ticks = niceTicks(-lim, lim, 4);
    parts.aAxes.xTicks(ticks, X);
    parts.aAxes.yTicks(ticks, Y);
    const levels = r.qmax <= 31 ? 2 * r.qmax + 1 : 0; // the grid of codes, when sparse enough to see
    for (let k = 0; k < levels; k++)
      setAttrs(parts.grid.get(k), {
        x1: A.x0,
        x2: A.x1,
        y1: Y((k - r.qmax) * r.s),
        y2: Y((k - r.qmax) * r.s),
      });
    parts.grid.trim(levels);
    setAttrs(parts.diagonal, { x1: X(-lim), y1: Y(-lim), x2: X(lim), y2: Y(lim) });
    w.forEach((x, j) => setAttrs(parts.dots.get(j), { cx: X(x), cy: Y(r.wHat[j]) }));
    parts.dots.trim(w.length);
    const i = accBits.indexOf(bits);
    parts.marks.forEach((mark, k) =>
      setAttrs(mark, { r: k === i ? 6 : 3.5, class: `ae-fill ${k === i ? COLOUR.query : COLOUR.main}` }),
    );
    const below = acc[i] > 0.85; // keep the label clear of the panel's title
    const atEnd = i === accBits.length - 1;
    setAttrs(parts.accText, {
      x: parts.XB(bits),
      y: parts.YB(acc[i]) + (below ? 22 : -10),
      "text-anchor": atEnd ? "end" : i === 0 ? "start" : "middle",
      class: "ae-title",
    });
    setText(parts.accText, `${(100 * acc[i]).toFixed(1)}%`);
    const accuracy = (100 * acc[i]).toFixed(1);
    ui.note.textContent = t("quantization.note", {
      layer: layers[li],
      row,
      s: fmt(r.s, 4),
      qmax: r.qmax,
      used: r.used,
      error: fmt(r.maxErr, 4),
      half: fmt(r.s / 2, 4),
      bits,
      accuracy,
    });
    return t("quantization.alt", {
      row,
      layer: layers[li],
      bits,
      weights: w.length,
      used: r.used,
      levels: 2 * r.qmax + 1,
      s: fmt(r.s, 4),
      error: fmt(r.maxErr, 4),
      accuracy,
    });
  }

  return mount(el, model, {
    label: t("quantization.label"),
    task: t("quantization.task"),
    legend: [
      { mark: "dot", colour: "main", text: t("quantization.legendWeight") },
      { mark: "dash", colour: "reference", text: t("quantization.legendExact") },
      { mark: "line", colour: "main", text: t("quantization.legendAccuracy") },
      { mark: "dot", colour: "query", text: t("quantization.legendBits") },
    ],
    controls: [
      {
        kind: "picker",
        name: "layer",
        label: t("common.layer"),
        trait: "layer",
        options: layers.map((name) => [name, name]),
      },
      { kind: "slider", name: "row", label: t("quantization.row"), trait: "row", min: 0, max: nRows - 1, text: String },
      choiceSlider("bits", t("quantization.bits"), "bits", accBits, (b) => t("quantization.nBits", { b })),
    ],
    build,
    update,
  });
}

export default { render };
