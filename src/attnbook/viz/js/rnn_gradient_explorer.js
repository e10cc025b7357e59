// Gradient-decay explorer: the spectral radius ρ of W_hh is chosen in the browser;
// the curve is log10 ‖∂h_T/∂x_t‖ against the distance T − t, precomputed for each ρ.
const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function render({ model, el: root }) {
  const rhos = model.get("rhos");
  const grid = model.get("log_norms");
  const attention = model.get("attention");
  const T = grid[0].length;

  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const label = document.createElement("label");
  label.textContent = "spectral radius ρ(W_hh) ";
  const input = document.createElement("input");
  Object.assign(input, { type: "range", min: 0, max: rhos.length - 1, step: 1, value: model.get("index") });
  const out = document.createElement("output");
  label.append(input, out);
  controls.appendChild(label);
  const W = 680, H = 350, left = 72, right = 16, top = 14, bottom = 66;
  const svg = el("svg", { width: W, height: H, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  const all = grid.flat().concat(attention);
  const yMin = Math.floor(Math.min(...all)), yMax = Math.ceil(Math.max(...all));
  const x = (k) => left + (k / Math.max(1, T - 1)) * (W - left - right);
  const y = (v) => top + ((yMax - v) / Math.max(1e-9, yMax - yMin)) * (H - top - bottom);
  const path = (ys) => ys.map((v, k) => `${k ? "L" : "M"}${x(k).toFixed(1)},${y(v).toFixed(1)}`).join("");

  function axes() {
    el("line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, stroke: "#333" }, svg);
    el("line", { x1: left, y1: top, x2: left, y2: H - bottom, stroke: "#333" }, svg);
    const step = Math.max(1, Math.ceil((yMax - yMin) / 8));
    for (let v = yMin; v <= yMax; v += step) {
      el("line", { x1: left, y1: y(v), x2: W - right, y2: y(v), stroke: "#eee" }, svg);
      el("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" }, svg, `1e${v}`);
    }
    const xStep = Math.max(1, Math.round(T / 5 / 10) * 10);
    for (let k = 0; k < T; k += xStep) {
      el("text", { x: x(k), y: H - bottom + 16, "text-anchor": "middle" }, svg, String(k));
    }
    el("text", { x: (left + W - right) / 2, y: H - bottom + 34, "text-anchor": "middle" }, svg,
       "distance T − t (steps back from the last input)");
    el("text", { x: 14, y: (top + H - bottom) / 2, "text-anchor": "middle",
                 transform: `rotate(-90 14 ${(top + H - bottom) / 2})` }, svg, "‖∂h_T/∂x_t‖ (log scale)");
  }

  function draw() {
    const i = Number(input.value);
    const curve = grid[i];
    out.textContent = rhos[i].toFixed(2);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    axes();
    grid.forEach((ys, j) => {
      if (j !== i) el("path", { d: path(ys), fill: "none", stroke: "#dde3ea", "stroke-width": 1 }, svg);
    });
    if (attention.length) {
      el("path", { d: path(attention), fill: "none", stroke: "#2b8a3e", "stroke-width": 2,
                   "stroke-dasharray": "6 4" }, svg);
    }
    el("path", { d: path(curve), fill: "none", stroke: "#d9480f", "stroke-width": 2.5,
                 "data-rho": rhos[i] }, svg);
    // legend, in one row under the axis title
    const entries = [[`tanh RNN, ρ = ${rhos[i].toFixed(2)}`, "#d9480f", null, 2.5], ["other ρ", "#c5ced8", null, 1.5]];
    if (attention.length) entries.push(["self-attention layer (path length 1)", "#2b8a3e", "6 4", 2]);
    let lx = left;
    const ly = H - 10;
    entries.forEach(([text, colour, dash, width]) => {
      const attrs = { x1: lx, y1: ly - 4, x2: lx + 24, y2: ly - 4, stroke: colour, "stroke-width": width };
      if (dash) attrs["stroke-dasharray"] = dash;
      el("line", attrs, svg);
      el("text", { x: lx + 30, y: ly }, svg, text);
      lx += 30 + 7.2 * text.length + 18;
    });
    const ratio = curve[T - 1] - curve[0];
    const verb = ratio < -0.5 ? "vanishes" : ratio > 0.5 ? "explodes" : "stays roughly level";
    note.textContent = `ρ = ${rhos[i].toFixed(2)}: from distance 0 to ${T - 1} the gradient norm changes by a factor ` +
      `10^${ratio.toFixed(1)}, so it ${verb}` +
      (attention.length ? `; one self-attention layer: 10^${(attention[T - 1] - attention[0]).toFixed(1)}` : "");
  }

  input.addEventListener("input", () => {
    draw();
    model.set("index", Number(input.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  });
  draw();
}

export default { render };
