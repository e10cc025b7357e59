// Heads explorer: pick which heads to keep and a query position. Left: each head's
// weights of that query over the keys (removed heads greyed out). Right: each head's
// contribution head_i W_O_i to the output, and their sum over the kept heads.
const NS = "http://www.w3.org/2000/svg";
const HUES = ["#1c7ed6", "#d9480f", "#2b8a3e", "#862e9c", "#e67700", "#0b7285"];

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function picker(parent, label, options, value) {
  const wrap = document.createElement("label");
  wrap.textContent = label + " ";
  const select = document.createElement("select");
  options.forEach(([v, text]) => {
    const o = document.createElement("option");
    o.value = String(v);
    o.textContent = text;
    select.appendChild(o);
  });
  select.value = String(value);
  wrap.appendChild(select);
  parent.appendChild(wrap);
  return select;
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

function diverging(x, limit) {
  const t = Math.max(-1, Math.min(1, x / limit));
  const a = Math.round(255 * (1 - Math.abs(t)));
  return t >= 0 ? `rgb(255,${a},${a})` : `rgb(${a},${a},255)`;
}

function render({ model, el: root }) {
  const tokens = model.get("tokens");
  const weights = model.get("weights"); // (h, T, T)
  const contributions = model.get("contributions"); // (h, T, d_model)
  const predictions = model.get("predictions"); // (2^h − 1, T)
  const targets = model.get("targets"); // (T,)
  const subsets = model.get("subsets");
  const h = weights.length, T = tokens.length, d = contributions[0][0].length;

  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const pick = picker(controls, "heads kept", subsets.map((s, i) => [i + 1, s]), model.get("heads"));
  const q = slider(controls, "query position", 0, T - 1, 1, model.get("query"));
  const width = 680;
  const svg = el("svg", { width, height: 0, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  // one colour scale per query position, shared by every head's strip and the sum
  function scale(i) {
    let limit = 1e-9;
    for (let c = 0; c < d; c++) {
      let sum = 0;
      for (let k = 0; k < h; k++) {
        limit = Math.max(limit, Math.abs(contributions[k][i][c]));
        sum += contributions[k][i][c];
      }
      limit = Math.max(limit, Math.abs(sum));
    }
    return limit;
  }
  const left = 64, cell = Math.min(20, Math.floor(320 / T)), rowH = 24, top = 48;
  const cx = left + T * cell + 30, cw = Math.max(3, Math.floor((width - cx - 4) / d));

  function draw() {
    const s = Number(pick.value), i = Number(q.input.value);
    const kept = [...Array(h).keys()].filter((k) => (s >> k) & 1);
    const limit = scale(i);
    q.out.textContent = `${i} ("${tokens[i]}")`;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    el("text", { x: left, y: 14, "font-weight": "bold" }, svg, `weights of query ${i} over the keys`);
    el("text", { x: cx, y: 14, "font-weight": "bold" }, svg, "each head's share of the output");
    tokens.forEach((tok, j) => {
      const x = left + j * cell;
      el("text", { x: x + cell / 2, y: top - 8, "text-anchor": "middle",
                   "font-weight": tok.includes("*") ? "bold" : "normal",
                   fill: j > i ? "#aaa" : "#222" }, svg, tok);
    });
    for (let k = 0; k < h; k++) {
      const y = top + k * rowH, on = kept.includes(k), hue = on ? HUES[k % HUES.length] : "#999";
      el("text", { x: left - 6, y: y + 16, "text-anchor": "end", fill: hue,
                   "font-weight": on ? "bold" : "normal" }, svg, on ? `head ${k}` : `head ${k} ✕`);
      weights[k][i].forEach((w, j) => {
        const x = left + j * cell;
        el("rect", { x, y: y + 2, width: cell - 2, height: rowH - 4, fill: "#f3f3f3" }, svg);
        el("rect", { x, y: y + 2, width: cell - 2, height: rowH - 4, fill: hue,
                     "fill-opacity": (on ? 1 : 0.35) * Math.max(0.02, w), "data-weight": w.toFixed(4) }, svg);
      });
      contributions[k][i].forEach((v, c) => el("rect", {
        x: cx + c * cw, y: y + 2, width: cw - 1, height: rowH - 4,
        fill: on ? diverging(v, limit) : "#eee" }, svg));
    }
    // the query's own column, outlined
    el("rect", { x: left + i * cell - 1, y: top - 22, width: cell, height: h * rowH + 24,
                 fill: "none", stroke: "#333", "stroke-width": 1.2 }, svg);
    const ys = top + h * rowH + 8;
    const sum = Array.from({ length: d }, (_, c) => kept.reduce((acc, k) => acc + contributions[k][i][c], 0));
    el("text", { x: cx - 6, y: ys + 16, "text-anchor": "end", "font-weight": "bold" }, svg, "Σ kept");
    sum.forEach((v, c) => el("rect", { x: cx + c * cw, y: ys + 2, width: cw - 1, height: rowH - 4,
                                       fill: diverging(v, limit), stroke: "#333", "stroke-width": 0.3,
                                       "data-value": v.toFixed(4) }, svg));
    el("text", { x: left + (T * cell) / 2, y: ys + rowH + 14, "text-anchor": "middle", fill: "#555" },
       svg, "key position (* = marked key, grey = masked)");
    el("text", { x: cx + (d * cw) / 2, y: ys + rowH + 14, "text-anchor": "middle", fill: "#555" },
       svg, `output dimension (red +, blue −)`);
    svg.setAttribute("height", ys + rowH + 22);

    const answer = predictions[s - 1][i], target = targets[i];
    const norm = Math.sqrt(sum.reduce((acc, v) => acc + v * v, 0));
    const verdict = target === "" ? "no answer is asked here (the key comes later or is the previous token)"
      : `answer ${target}; keeping ${subsets[s - 1]} the model says ${answer} ${answer === target ? "✓" : "✗"}`;
    note.textContent = `query ${i}: ${verdict} · |Σ kept contributions| = ${norm.toFixed(2)}`;
  }

  function sync() {
    draw();
    model.set("heads", Number(pick.value));
    model.set("query", Number(q.input.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  pick.addEventListener("change", sync);
  q.input.addEventListener("input", sync);
  draw();
}

export default { render };
