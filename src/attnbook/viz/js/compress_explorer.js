// Quantization explorer: a few rows of trained weights per layer come from Python, with
// the accuracy of the whole model quantized to b bits. For the chosen row w the browser
// recomputes the symmetric per-channel grid
//   qmax = 2^(b-1) − 1,   s = max_j |w_j| / qmax,   ŵ_j = round(w_j / s) · s,
// and draws ŵ against w (a staircase), next to accuracy against b.
const NS = "http://www.w3.org/2000/svg";

export function quantizeRow(w, bits) {
  const qmax = 2 ** (bits - 1) - 1;
  const amax = Math.max(...w.map(Math.abs));
  const s = amax > 0 ? amax / qmax : 1;
  const q = w.map((x) => Math.max(-qmax, Math.min(qmax, Math.round(x / s))));
  const wHat = q.map((k) => k * s);
  const maxErr = Math.max(...w.map((x, j) => Math.abs(wHat[j] - x)));
  const used = new Set(q).size;
  return { qmax, s, q, wHat, maxErr, used };
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
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-12; t += step) ticks.push(+t.toPrecision(6));
  return ticks;
}

function fmt(x) {
  if (x === 0) return "0";
  return Math.abs(x) >= 0.01 ? x.toFixed(4) : x.toExponential(2);
}

function render({ model, el: root }) {
  const layers = model.get("layers");
  const rows = model.get("rows"); // (layers, rows, d_in)
  const accBits = model.get("accuracy_bits");
  const acc = model.get("accuracy");
  const nRows = rows[0].length;

  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";

  const lLabel = document.createElement("label");
  lLabel.textContent = "layer ";
  const select = document.createElement("select");
  for (const name of layers) {
    const option = document.createElement("option");
    Object.assign(option, { value: name, textContent: name });
    select.appendChild(option);
  }
  select.value = model.get("layer");
  lLabel.append(select);

  const rLabel = document.createElement("label");
  rLabel.textContent = "row c ";
  const rInput = document.createElement("input");
  Object.assign(rInput, { type: "range", min: 0, max: nRows - 1, step: 1, value: model.get("row") });
  const rOut = document.createElement("output");
  rLabel.append(rInput, rOut);

  const bLabel = document.createElement("label");
  bLabel.textContent = "bits b ";
  const bInput = document.createElement("input");
  Object.assign(bInput, { type: "range", min: accBits[0], max: accBits[accBits.length - 1],
                          step: 1, value: model.get("bits") });
  const bOut = document.createElement("output");
  bLabel.append(bInput, bOut);
  controls.append(lLabel, rLabel, bLabel);

  const W = 700, H = 320;
  const svg = el("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
                          style: "max-width: 100%; height: auto" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function drawStaircase(w, r, bits) {
    const x0 = 70, x1 = 370, y0 = 36, y1 = 266;
    const lim = 1.05 * Math.max(...w.map(Math.abs), 1e-9);
    const X = (v) => x0 + ((v + lim) / (2 * lim)) * (x1 - x0);
    const Y = (v) => y1 - ((v + lim) / (2 * lim)) * (y1 - y0);
    el("text", { x: x0, y: 18, "font-weight": "bold" }, svg,
       `quantized ŵ against float w (${bits} bits)`);
    if (r.qmax <= 31) { // the grid of representable values, when it is sparse enough to see
      for (let k = -r.qmax; k <= r.qmax; k++) {
        el("line", { x1: x0, y1: Y(k * r.s), x2: x1, y2: Y(k * r.s), stroke: "#e9ecef" }, svg);
      }
    }
    el("line", { x1: X(-lim), y1: Y(-lim), x2: X(lim), y2: Y(lim), stroke: "#adb5bd",
                 "stroke-dasharray": "4 3" }, svg);
    el("line", { x1: x0, y1, x2: x1, y2: y1, stroke: "#333" }, svg);
    el("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#333" }, svg);
    for (const t of niceTicks(-lim, lim, 4)) {
      el("line", { x1: X(t), y1, x2: X(t), y2: y1 + 4, stroke: "#333" }, svg);
      el("text", { x: X(t), y: y1 + 16, "text-anchor": "middle" }, svg, String(t));
      el("line", { x1: x0 - 4, y1: Y(t), x2: x0, y2: Y(t), stroke: "#333" }, svg);
      el("text", { x: x0 - 6, y: Y(t) + 4, "text-anchor": "end" }, svg, String(t));
    }
    el("text", { x: (x0 + x1) / 2, y: y1 + 34, "text-anchor": "middle" }, svg,
       "float weight w_cj");
    el("text", { x: 16, y: (y0 + y1) / 2, "text-anchor": "middle",
                 transform: `rotate(-90 16 ${(y0 + y1) / 2})` }, svg, "quantized ŵ_cj = q_cj · s_c");
    w.forEach((x, j) => {
      el("circle", { cx: X(x), cy: Y(r.wHat[j]), r: 3, fill: "#1c7ed6", "fill-opacity": 0.7 }, svg);
    });
  }

  function drawAccuracy(bits) {
    const x0 = 450, x1 = 680, y0 = 36, y1 = 266;
    const lo = accBits[0], hi = accBits[accBits.length - 1];
    const X = (b) => x0 + ((b - lo) / Math.max(1, hi - lo)) * (x1 - x0);
    const Y = (a) => y1 - a * (y1 - y0);
    el("text", { x: x0 - 30, y: 18, "font-weight": "bold" }, svg, "whole model: exact match");
    el("line", { x1: x0, y1, x2: x1, y2: y1, stroke: "#333" }, svg);
    el("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#333" }, svg);
    for (const t of [0, 0.25, 0.5, 0.75, 1]) {
      el("line", { x1: x0 - 4, y1: Y(t), x2: x0, y2: Y(t), stroke: "#333" }, svg);
      el("text", { x: x0 - 6, y: Y(t) + 4, "text-anchor": "end" }, svg, `${100 * t}%`);
    }
    for (const b of accBits) {
      el("text", { x: X(b), y: y1 + 16, "text-anchor": "middle" }, svg, String(b));
    }
    el("text", { x: (x0 + x1) / 2, y: y1 + 34, "text-anchor": "middle" }, svg, "bits b");
    el("polyline", { points: accBits.map((b, i) => `${X(b)},${Y(acc[i])}`).join(" "),
                     fill: "none", stroke: "#868e96", "stroke-width": 2 }, svg);
    accBits.forEach((b, i) => {
      const here = b === bits;
      el("circle", { cx: X(b), cy: Y(acc[i]), r: here ? 6 : 3.5,
                     fill: here ? "#d9480f" : "#868e96" }, svg);
      if (here) {
        const below = acc[i] > 0.85; // keep the label clear of the panel's title
        el("text", { x: X(b), y: Y(acc[i]) + (below ? 22 : -10),
                     "text-anchor": b === hi ? "end" : "middle", fill: "#d9480f" },
           svg, `${(100 * acc[i]).toFixed(1)}%`);
      }
    });
  }

  function draw() {
    const li = Math.max(0, layers.indexOf(select.value));
    const row = Number(rInput.value);
    const bits = Number(bInput.value);
    const w = rows[li][row];
    const r = quantizeRow(w, bits);
    rOut.textContent = String(row);
    bOut.textContent = String(bits);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    drawStaircase(w, r, bits);
    drawAccuracy(bits);
    const a = acc[accBits.indexOf(bits)];
    note.textContent = `${layers[li]}, row ${row}: s = ${fmt(r.s)}, codes −${r.qmax}…${r.qmax} ` +
      `(${r.used} used by this row) · largest |ŵ − w| = ${fmt(r.maxErr)} ≤ s/2 = ${fmt(r.s / 2)} ` +
      `· whole model at ${bits} bits: ${(100 * a).toFixed(1)}% exact match`;
  }

  function sync() {
    draw();
    model.set("layer", select.value);
    model.set("row", Number(rInput.value));
    model.set("bits", Number(bInput.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  select.addEventListener("change", sync);
  rInput.addEventListener("input", sync);
  bInput.addEventListener("input", sync);
  draw();
}

export default { render };
