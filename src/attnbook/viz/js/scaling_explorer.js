// Scaling explorer (§3.2.1): one query q and T keys (standard normal, d_max components)
// come from Python; the browser keeps the first d_k components and recomputes
//   s_j = scale · q·k_j,   p = softmax(s),   H(p),   ‖J‖_F with J = diag(p) − p pᵀ,
//   ‖∂p/∂q‖_F = ‖J · scale · K‖_F,
// for scale = 1, 1/√d_k or 1/d_k.
import { COLOUR, axes, label, line, setAttrs, setText, svgEl } from "./base.js";
import { entropy, fmt, linear, niceTicks, softmax } from "./base.js";
import { choiceSlider, mount, twoPanels } from "./base.js";
import { translator } from "./strings.js";

// the trait's values, in the picker's order; their names and factors are in strings.js
const SCALINGS = ["none", "sqrt", "linear"];

export function scaleFactor(d_k, scaling) {
  if (scaling === "none") return 1;
  if (scaling === "sqrt") return 1 / Math.sqrt(d_k);
  if (scaling === "linear") return 1 / d_k;
  throw new Error(`unknown scaling ${scaling}`);
}

/** The d_k the slider offers: about two a doubling (1, 2, 3, 4, 6, 8, 11, 16, …), up to d_max. */
export function dimensions(dMax) {
  const all = [];
  for (let k = 0; 2 ** (k / 2) <= dMax; k++) all.push(Math.round(2 ** (k / 2)));
  return [...new Set([...all, dMax])];
}

/** Everything the picture shows, from the first d_k components of q and of each key. */
export function stats(q, K, d_k, scale) {
  const T = K.length;
  const logits = K.map((k) => {
    let dot = 0;
    for (let i = 0; i < d_k; i++) dot += q[i] * k[i];
    return scale * dot;
  });
  const p = softmax(logits);
  // J = diag(p) − p pᵀ
  const J = p.map((pi, i) => p.map((pj, j) => (i === j ? pi : 0) - pi * pj));
  const jacobianNorm = Math.sqrt(J.flat().reduce((acc, x) => acc + x * x, 0));
  // ∂p/∂q = J · scale · K[:, :d_k]
  let sq = 0;
  for (let i = 0; i < T; i++) {
    for (let c = 0; c < d_k; c++) {
      let g = 0;
      for (let j = 0; j < T; j++) g += J[i][j] * K[j][c];
      sq += (scale * g) ** 2;
    }
  }
  const mean = logits.reduce((a, b) => a + b, 0) / T;
  const std = Math.sqrt(logits.reduce((a, s) => a + (s - mean) ** 2, 0) / (T - 1));
  const maxWeight = Math.max(...p);
  return { logits, p, entropy: entropy(p), maxWeight, jacobianNorm, queryJacobianNorm: Math.sqrt(sq), std };
}

function render({ model, el }) {
  const t = translator(el, model);
  const q = model.get("q");
  const K = model.get("k");
  const dMax = q.length;
  const T = K.length;
  const dks = dimensions(dMax);
  let parts;

  function build(ui) {
    const { svg, width: W, narrow } = ui;
    const [A, B] = twoPanels(ui, { top: 40, height: 140, margin: 44, gap: 84 });
    parts = { A, B, dots: [], bars: [] };
    // panel A: the N(0, scale²·d_k) density of the logits, and this query's T logits
    parts.aTitle = label(svg, 4, A.y0 - 26, "", "start", "ae-title");
    parts.aNote = label(svg, 4, A.y0 - 8, "", "start", "ae-muted");
    parts.aAxes = axes(svg, { x0: A.x0, x1: A.x1, y0: A.y0, y1: A.y1, xTitle: t("scaling.logitAxis") });
    parts.density = svgEl("polyline", { class: `ae-stroke ${COLOUR.reference}`, "stroke-width": 1.5 }, svg);
    for (let j = 0; j < T; j++) parts.dots.push(svgEl("circle", { cy: A.y1 - 8, r: 4, "fill-opacity": 0.8 }, svg));
    // panel B: the weights p over the T keys
    label(svg, B.x0 - 40, B.y0 - 26, t("scaling.weightsTitle"), "start", "ae-title");
    label(svg, B.x0 - 40, B.y0 - 8, t("scaling.uniform", { T }), "start", "ae-muted");
    const bAxes = axes(svg, { x0: B.x0, x1: B.x1, y0: B.y0, y1: B.y1, xTitle: t("scaling.keyAxis", { T }) });
    const YB = linear(0, 1, B.y1, B.y0);
    bAxes.yTicks(niceTicks(0, 1, 2), YB);
    const bw = (B.x1 - B.x0) / T;
    for (let j = 0; j < T; j++) parts.bars.push(svgEl("rect", { x: B.x0 + j * bw + 1, width: bw - 2 }, svg));
    const uniform = line(svg, B.x0, YB(1 / T), B.x1, YB(1 / T), `ae-stroke ${COLOUR.reference}`);
    uniform.setAttribute("stroke-dasharray", "4 3");
    parts.YB = YB;
    // panel C: entropy (linear, 0…log T) and the two gradient norms (log scale, 10⁻⁶…10)
    const cTop = B.y1 + 62;
    const gx0 = narrow ? 4 : 200;
    const gx1 = W - 70;
    label(svg, 4, cTop - 10, t("scaling.gaugeScale"), "start", "ae-muted");
    const rows = [t("scaling.entropyGauge"), t("scaling.scoresGauge"), t("scaling.queryGauge")];
    const rowH = narrow ? 40 : 26;
    parts.gauges = rows.map((text, i) => {
      const y = cTop + i * rowH + (narrow ? 16 : 0);
      label(svg, narrow ? gx0 : gx0 - 8, narrow ? y - 3 : y + 13, text, narrow ? "start" : "end");
      svgEl("rect", { x: gx0, y: y + 2, width: gx1 - gx0, height: 16, class: "ae-panel" }, svg);
      const bar = svgEl("rect", { x: gx0, y: y + 2, height: 16, class: `ae-fill ${COLOUR.main}` }, svg);
      return { bar, value: label(svg, gx1 + 6, y + 14, "") };
    });
    parts.gx0 = gx0;
    parts.gx1 = gx1;
    ui.size(cTop + 3 * rowH + (narrow ? 20 : 6));
  }

  function drawLogits(r, scale, d) {
    const { A } = parts;
    const sigma = scale * Math.sqrt(d);
    const lim = Math.max(4, 3.5 * sigma, ...r.logits.map(Math.abs));
    const X = linear(-lim, lim, A.x0, A.x1);
    const peak = 1 / (sigma * Math.sqrt(2 * Math.PI));
    const Y = (dens) => A.y1 - (dens / peak) * (A.y1 - A.y0 - 10);
    parts.aAxes.xTicks(niceTicks(-lim, lim, 4), X);
    const points = [];
    for (let i = 0; i <= 120; i++) {
      const v = -lim + (2 * lim * i) / 120;
      points.push(`${X(v).toFixed(1)},${Y(peak * Math.exp(-0.5 * (v / sigma) ** 2)).toFixed(1)}`);
    }
    parts.density.setAttribute("points", points.join(" "));
    const best = r.p.indexOf(r.maxWeight);
    r.logits.forEach((s, j) =>
      setAttrs(parts.dots[j], { cx: X(s), class: `ae-fill ${j === best ? COLOUR.highlight : COLOUR.main}` }),
    );
    setText(parts.aNote, t("scaling.curveNote", { sigma: fmt(sigma, 2), T }));
  }

  function update(ui) {
    const d = dks[ui.values.d_k];
    const scaling = ui.values.scaling;
    const scale = scaleFactor(d, scaling);
    const r = stats(q, K, d, scale);
    setText(parts.aTitle, t("scaling.logitsTitle", { scale: t(`scaling.factor.${scaling}`) }));
    drawLogits(r, scale, d);
    r.p.forEach((w, j) => {
      const y = parts.YB(w);
      setAttrs(parts.bars[j], {
        y,
        height: Math.max(0.5, parts.B.y1 - y),
        class: `ae-fill ${w === r.maxWeight ? COLOUR.highlight : COLOUR.main}`,
      });
    });
    const L = linear(-6, 1, parts.gx0, parts.gx1);
    const values = [
      [parts.gx0 + (r.entropy / Math.log(T)) * (parts.gx1 - parts.gx0), t("common.nats", { x: fmt(r.entropy) })],
      [L(Math.log10(Math.max(r.jacobianNorm, 1e-6))), fmt(r.jacobianNorm)],
      [L(Math.log10(Math.max(r.queryJacobianNorm, 1e-6))), fmt(r.queryJacobianNorm)],
    ];
    values.forEach(([x, text], i) => {
      parts.gauges[i].bar.setAttribute("width", Math.max(0.5, x - parts.gx0));
      setText(parts.gauges[i].value, text);
    });
    ui.note.textContent = t("scaling.note", {
      d,
      scale: fmt(scale),
      std: fmt(r.std),
      theory: fmt(scale * Math.sqrt(d)),
      largest: fmt(r.maxWeight),
      uniform: fmt(1 / T),
      entropy: fmt(r.entropy),
      most: fmt(Math.log(T)),
    });
    return t("scaling.alt", {
      d,
      scaling: t(`scaling.option.${scaling}`),
      T,
      std: fmt(r.std, 2),
      largest: fmt(r.maxWeight, 2),
      entropy: fmt(r.entropy, 2),
      most: fmt(Math.log(T), 2),
      toScores: fmt(r.jacobianNorm, 2),
      toQuery: fmt(r.queryJacobianNorm, 2),
    });
  }

  return mount(el, model, {
    label: t("scaling.label"),
    task: t("scaling.task"),
    legend: [
      { mark: "dot", colour: "main", text: t("scaling.legendKeys") },
      { mark: "dot", colour: "highlight", text: t("scaling.legendLargest") },
      { mark: "line", colour: "reference", text: t("scaling.legendTheory") },
      { mark: "dash", colour: "reference", text: t("scaling.legendUniform") },
    ],
    controls: [
      choiceSlider("d_k", "d_k", "d_k", dks),
      {
        kind: "picker",
        name: "scaling",
        label: t("scaling.scaling"),
        trait: "scaling",
        options: SCALINGS.map((name) => [name, t(`scaling.option.${name}`)]),
      },
    ],
    build,
    update,
  });
}

export default { render };
