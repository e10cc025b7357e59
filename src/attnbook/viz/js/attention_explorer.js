// Attention explorer: the query token and temperature τ are chosen in the browser;
// weights = softmax(scores[query] / τ), output = Σ_j weights_j · values_j.
const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function softmax(xs) {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

function colour(x, limit) {
  // diverging blue (negative) – white – red (positive)
  const t = Math.max(-1, Math.min(1, x / limit));
  const a = Math.round(255 * (1 - Math.abs(t)));
  return t >= 0 ? `rgb(255,${a},${a})` : `rgb(${a},${a},255)`;
}

function slider(parent, label, min, max, step, value) {
  const wrap = document.createElement("label");
  wrap.textContent = label + " ";
  const input = document.createElement("input");
  Object.assign(input, { type: "range", min, max, step, value });
  const out = document.createElement("output");
  wrap.append(input, out);
  parent.appendChild(wrap);
  return { input, out };
}

function render({ model, el: root }) {
  const tokens = model.get("tokens");
  const scores = model.get("scores");
  const values = model.get("values");
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const q = slider(controls, "query token", 0, tokens.length - 1, 1, model.get("query"));
  const t = slider(controls, "temperature τ", -1.5, 1.5, 0.05, Math.log10(model.get("temperature")));
  const svg = el("svg", { width: 700, height: 0, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  const d_v = values[0].length;
  const limit = Math.max(...values.flat().map(Math.abs), 1e-9);
  const rowH = 22, left = 90, barW = 260, cell = 24, gap = 40;

  function draw() {
    const i = Number(q.input.value);
    const tau = Math.pow(10, Number(t.input.value));
    q.out.textContent = tokens[i];
    t.out.textContent = tau.toFixed(2);
    const w = softmax(scores[i].map((s) => s / tau));
    const out = Array.from({ length: d_v }, (_, c) => w.reduce((acc, wj, j) => acc + wj * values[j][c], 0));
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const vx = left + barW + gap;
    el("text", { x: left, y: 14, "font-weight": "bold" }, svg, `weights of "${tokens[i]}" over the keys`);
    el("text", { x: vx, y: 14, "font-weight": "bold" }, svg, "values vⱼ");
    tokens.forEach((tok, j) => {
      const y = 24 + j * rowH;
      el("text", { x: left - 6, y: y + 15, "text-anchor": "end" }, svg, tok);
      el("rect", { x: left, y: y + 3, width: barW, height: rowH - 6, fill: "#f0f0f0" }, svg);
      el("rect", { x: left, y: y + 3, width: Math.max(0.5, barW * w[j]), height: rowH - 6,
                   fill: j === i ? "#d9480f" : "#1c7ed6", "data-weight": w[j].toFixed(4) }, svg);
      el("text", { x: left + barW - 4, y: y + 15, "text-anchor": "end" }, svg, w[j].toFixed(3));
      values[j].forEach((x, c) => el("rect", { x: vx + c * cell, y: y + 2, width: cell - 2,
                                             height: rowH - 4, fill: colour(x, limit) }, svg));
    });
    const yo = 24 + tokens.length * rowH + 10;
    el("text", { x: vx - 6, y: yo + 15, "text-anchor": "end", "font-weight": "bold" }, svg, "output Σⱼ wⱼvⱼ");
    out.forEach((x, c) => el("rect", { x: vx + c * cell, y: yo + 2, width: cell - 2, height: rowH - 4,
                                       fill: colour(x, limit), stroke: "#333", "data-value": x.toFixed(4) }, svg));
    svg.setAttribute("height", yo + rowH + 6);
    const H = -w.reduce((acc, p) => acc + (p > 0 ? p * Math.log(p) : 0), 0);
    note.textContent = `largest weight ${Math.max(...w).toFixed(3)} · entropy ${H.toFixed(3)} nats ` +
      `(uniform would be ${Math.log(tokens.length).toFixed(3)}) · τ → 0 picks one key, τ → ∞ averages them all`;
  }

  function sync() {
    draw();
    model.set("query", Number(q.input.value));
    model.set("temperature", Math.pow(10, Number(t.input.value)));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  q.input.addEventListener("input", sync);
  t.input.addEventListener("input", sync);
  draw();
}

export default { render };
