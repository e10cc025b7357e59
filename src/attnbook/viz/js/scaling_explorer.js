// Scaling explorer: one query q and T keys (standard normal, d_max components) come
// from Python; the browser keeps the first d_k components and recomputes
//   s_j = scale · q·k_j,   p = softmax(s),   H(p),   ‖J‖_F with J = diag(p) − p pᵀ,
//   ‖∂p/∂q‖_F = ‖J · scale · K‖_F,
// for scale = 1, 1/√d_k or 1/d_k.
const NS = "http://www.w3.org/2000/svg";
const SCALING_LABELS = { none: "none (scale 1)", sqrt: "1/√d_k (the paper)", linear: "1/d_k" };

export function scaleFactor(d_k, scaling) {
  if (scaling === "none") return 1;
  if (scaling === "sqrt") return 1 / Math.sqrt(d_k);
  if (scaling === "linear") return 1 / d_k;
  throw new Error(`unknown scaling ${scaling}`);
}

// Everything the picture shows, from the first d_k components of q and of each key.
export function stats(q, K, d_k, scale) {
  const T = K.length;
  const logits = K.map((k) => {
    let dot = 0;
    for (let i = 0; i < d_k; i++) dot += q[i] * k[i];
    return scale * dot;
  });
  const m = Math.max(...logits);
  const e = logits.map((s) => Math.exp(s - m));
  const z = e.reduce((a, b) => a + b, 0);
  const p = e.map((x) => x / z);
  const entropy = -p.reduce((acc, pj) => acc + (pj > 0 ? pj * Math.log(pj) : 0), 0);
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
  return { logits, p, entropy, maxWeight: Math.max(...p), jacobianNorm,
           queryJacobianNorm: Math.sqrt(sq), std };
}

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function niceTicks(lo, hi, n) {
  const raw = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw);
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) ticks.push(+t.toPrecision(6));
  return ticks;
}

function fmt(x) {
  if (x === 0) return "0";
  return Math.abs(x) >= 0.01 ? x.toFixed(3) : x.toExponential(1);
}

function render({ model, el: root }) {
  const q = model.get("q");
  const K = model.get("k");
  const dMax = q.length;
  const T = K.length;
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";

  const dLabel = document.createElement("label");
  dLabel.textContent = "d_k ";
  const dInput = document.createElement("input");
  Object.assign(dInput, { type: "range", min: 0, max: Math.log2(dMax), step: 0.5,
                          value: Math.log2(model.get("d_k")) });
  const dOut = document.createElement("output");
  dLabel.append(dInput, dOut);

  const sLabel = document.createElement("label");
  sLabel.textContent = "scaling ";
  const select = document.createElement("select");
  for (const [value, text] of Object.entries(SCALING_LABELS)) {
    const option = document.createElement("option");
    Object.assign(option, { value, textContent: text });
    select.appendChild(option);
  }
  select.value = model.get("scaling");
  sLabel.append(select);
  controls.append(dLabel, sLabel);

  const W = 700, H = 350;  // drawn in these units, scaled to the page's width
  const svg = el("svg", { width: "100%", viewBox: `0 0 ${W} ${H}`, role: "img",
                          style: `max-width: ${W}px; height: auto; display: block;` });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function d_k() {
    return Math.max(1, Math.min(dMax, Math.round(Math.pow(2, Number(dInput.value)))));
  }

  function drawLogits(r, scale, d) {
    // panel A: the N(0, scale²·d_k) density of the logits, and this query's T logits
    const x0 = 50, x1 = 330, y0 = 40, y1 = 190;
    const sigma = scale * Math.sqrt(d);
    const lim = Math.max(4, 3.5 * sigma, ...r.logits.map(Math.abs));
    const X = (v) => x0 + ((v + lim) / (2 * lim)) * (x1 - x0);
    const peak = 1 / (sigma * Math.sqrt(2 * Math.PI));
    const Y = (dens) => y1 - (dens / peak) * (y1 - y0 - 10);
    el("text", { x: x0, y: 18, "font-weight": "bold" }, svg, "logits sⱼ = scale · q·kⱼ");
    el("line", { x1: x0, y1, x2: x1, y2: y1, stroke: "#333" }, svg);
    for (const t of niceTicks(-lim, lim, 5)) {
      el("line", { x1: X(t), y1, x2: X(t), y2: y1 + 4, stroke: "#333" }, svg);
      el("text", { x: X(t), y: y1 + 16, "text-anchor": "middle" }, svg, String(t));
    }
    el("text", { x: (x0 + x1) / 2, y: y1 + 32, "text-anchor": "middle" }, svg, "logit value");
    el("text", { x: 16, y: (y0 + y1) / 2, "text-anchor": "middle",
                 transform: `rotate(-90 16 ${(y0 + y1) / 2})` }, svg, "density (peak = 1)");
    const pts = [];
    for (let i = 0; i <= 120; i++) {
      const v = -lim + (2 * lim * i) / 120;
      pts.push(`${X(v).toFixed(1)},${Y(peak * Math.exp(-0.5 * (v / sigma) ** 2)).toFixed(1)}`);
    }
    el("polyline", { points: pts.join(" "), fill: "none", stroke: "#868e96", "stroke-width": 2 }, svg);
    const best = r.p.indexOf(r.maxWeight);
    r.logits.forEach((s, j) => {
      el("circle", { cx: X(s), cy: y1 - 8, r: 4, fill: j === best ? "#d9480f" : "#1c7ed6",
                     "fill-opacity": 0.8, "data-logit": s.toFixed(4) }, svg);
    });
    el("text", { x: x1, y: y0 - 6, "text-anchor": "end", fill: "#555" }, svg,
       `curve: N(0, ${fmt(sigma)}²) · dots: the ${T} logits`);
  }

  function drawWeights(r) {
    // panel B: softmax weights of the query over its T keys
    const x0 = 400, x1 = 680, y0 = 40, y1 = 190;
    const Y = (w) => y1 - w * (y1 - y0);
    const bw = (x1 - x0) / T;
    el("text", { x: x0, y: 18, "font-weight": "bold" }, svg, "weights p = softmax(s)");
    el("text", { x: x1, y: y0 - 6, "text-anchor": "end", fill: "#2b8a3e" }, svg,
       `dashed: uniform 1/${T}`);
    el("line", { x1: x0, y1, x2: x1, y2: y1, stroke: "#333" }, svg);
    el("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#333" }, svg);
    for (const t of [0, 0.5, 1]) {
      el("text", { x: x0 - 5, y: Y(t) + 4, "text-anchor": "end" }, svg, String(t));
    }
    r.p.forEach((w, j) => {
      el("rect", { x: x0 + j * bw + 1, y: Y(w), width: bw - 2, height: Math.max(0.5, y1 - Y(w)),
                   fill: w === r.maxWeight ? "#d9480f" : "#1c7ed6", "data-weight": w.toFixed(5) }, svg);
    });
    el("line", { x1: x0, y1: Y(1 / T), x2: x1, y2: Y(1 / T), stroke: "#2b8a3e",
                 "stroke-dasharray": "4 3" }, svg);
    el("text", { x: (x0 + x1) / 2, y: y1 + 32, "text-anchor": "middle" }, svg, `key j (1…${T})`);
  }

  function drawGauges(r) {
    // panel C: entropy (linear, 0…log T) and the two gradient norms (log scale)
    const x0 = 190, x1 = 600, top = 266, row = 26;
    const logLo = -6, logHi = 1;
    const L = (v) => x0 + ((Math.log10(Math.max(v, 10 ** logLo)) - logLo) / (logHi - logLo)) * (x1 - x0);
    const rows = [
      ["entropy H(p) / log T", r.entropy / Math.log(T), (v) => x0 + v * (x1 - x0), `${fmt(r.entropy)} nats`],
      ["‖∂p/∂s‖_F (to the scores)", r.jacobianNorm, L, fmt(r.jacobianNorm)],
      ["‖∂p/∂q‖_F (to the query)", r.queryJacobianNorm, L, fmt(r.queryJacobianNorm)],
    ];
    rows.forEach(([label, v, Xf, text], i) => {
      const y = top + i * row;
      el("text", { x: x0 - 6, y: y + 13, "text-anchor": "end" }, svg, label);
      el("rect", { x: x0, y: y + 2, width: x1 - x0, height: row - 8, fill: "#f1f3f5" }, svg);
      el("rect", { x: x0, y: y + 2, width: Math.max(0.5, Xf(v) - x0), height: row - 8,
                   fill: i === 0 ? "#2b8a3e" : "#ae3ec9" }, svg);
      el("text", { x: x1 + 6, y: y + 13 }, svg, text);
    });
    el("text", { x: x0, y: top - 8, fill: "#555" }, svg,
       "gradient bars on a log scale from 10⁻⁶ to 10; entropy bar linear from 0 to log T");
  }

  function draw() {
    const d = d_k();
    const scaling = select.value;
    const scale = scaleFactor(d, scaling);
    const r = stats(q, K, d, scale);
    dOut.textContent = String(d);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    drawLogits(r, scale, d);
    drawWeights(r);
    drawGauges(r);
    note.textContent = `d_k = ${d}, scale = ${fmt(scale)}: logit std ${fmt(r.std)} ` +
      `(theory ${fmt(scale * Math.sqrt(d))}) · largest weight ${fmt(r.maxWeight)} ` +
      `(uniform ${fmt(1 / T)}) · entropy ${fmt(r.entropy)} of at most ${fmt(Math.log(T))} nats`;
  }

  function sync() {
    draw();
    model.set("d_k", d_k());
    model.set("scaling", select.value);
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  dInput.addEventListener("input", sync);
  select.addEventListener("change", sync);
  draw();
}

export default { render };
