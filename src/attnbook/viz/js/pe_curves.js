// PE curves explorer: PE(pos, 2i) = sin(pos·ω_i), PE(pos, 2i+1) = cos(pos·ω_i),
// ω_i = base^(−2i/d_model), all evaluated here in the browser.
const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function colour(x) {
  // diverging blue (−1) – white (0) – red (+1)
  const t = Math.max(-1, Math.min(1, x));
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

function picker(parent, label, options, value) {
  const wrap = document.createElement("label");
  wrap.textContent = label + " ";
  const select = document.createElement("select");
  for (const o of options) {
    const opt = document.createElement("option");
    opt.value = o;
    opt.textContent = o;
    select.appendChild(opt);
  }
  select.value = value;
  wrap.appendChild(select);
  parent.appendChild(wrap);
  return select;
}

// which frequency pair a dimension belongs to, and whether it is the cosine
function pairOf(j, d, layout) {
  if (layout === "concatenated") return { i: j % (d / 2), isCos: j >= d / 2 };
  return { i: Math.floor(j / 2), isCos: j % 2 === 1 };
}

function partnerOf(j, d, layout) {
  if (layout === "concatenated") return j < d / 2 ? j + d / 2 : j - d / 2;
  return j % 2 === 0 ? j + 1 : j - 1;
}

function pe(pos, j, d, base, layout) {
  const { i, isCos } = pairOf(j, d, layout);
  const w = Math.pow(base, (-2 * i) / d);
  return isCos ? Math.cos(pos * w) : Math.sin(pos * w);
}

function render({ model, el: root }) {
  const d = model.get("d_model");
  const L = model.get("max_len");
  const base = model.get("base");
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const p = slider(controls, "position pos", 0, L - 1, 1, model.get("pos"));
  const j = slider(controls, "dimension", 0, d - 1, 1, model.get("dim"));
  const lay = picker(controls, "layout", ["interleaved", "concatenated"], model.get("table_layout"));
  const svg = el("svg", { width: 700, height: 330, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  const left = 60, W = 600, top = 26, H = 170, stripY = 262, stripH = 26;
  const X = (pos) => left + (W * pos) / (L - 1);
  const Y = (v) => top + (H * (1 - v)) / 2;

  function curve(dim, attrs) {
    const pts = [];
    const n = Math.max(2 * L, 400);
    for (let s = 0; s <= n; s++) {
      const pos = ((L - 1) * s) / n;
      pts.push(`${X(pos).toFixed(1)},${Y(pe(pos, dim, d, base, lay.value)).toFixed(1)}`);
    }
    el("polyline", { points: pts.join(" "), fill: "none", ...attrs }, svg);
  }

  function draw() {
    const pos = Number(p.input.value);
    const dim = Number(j.input.value);
    const layout = lay.value;
    const partner = partnerOf(dim, d, layout);
    const { i, isCos } = pairOf(dim, d, layout);
    p.out.textContent = pos;
    j.out.textContent = dim;
    while (svg.firstChild) svg.removeChild(svg.firstChild);

    // top panel: the chosen dimension (solid) and its partner (dashed) over all positions
    el("text", { x: left, y: 14, "font-weight": "bold" }, svg,
       `PE(·, ${dim}) = ${isCos ? "cos" : "sin"}(pos·ω_${i}) over positions (dashed: its partner, dimension ${partner})`);
    el("rect", { x: left, y: top, width: W, height: H, fill: "#fafafa", stroke: "#ccc" }, svg);
    for (const v of [-1, 0, 1]) {
      el("line", { x1: left, x2: left + W, y1: Y(v), y2: Y(v), stroke: v === 0 ? "#bbb" : "#eee" }, svg);
      el("text", { x: left - 6, y: Y(v) + 4, "text-anchor": "end" }, svg, v);
    }
    for (let s = 0; s <= 4; s++) {
      const t = Math.round(((L - 1) * s) / 4);
      el("text", { x: X(t), y: top + H + 14, "text-anchor": "middle" }, svg, t);
    }
    el("text", { x: left + W / 2, y: top + H + 30, "text-anchor": "middle" }, svg, "position pos");
    el("text", { x: 14, y: top + H / 2, transform: `rotate(-90 14 ${top + H / 2})`,
                 "text-anchor": "middle" }, svg, "PE(pos, dim)");
    curve(partner, { stroke: "#1c7ed6", "stroke-width": 1.2, "stroke-dasharray": "4 3" });
    curve(dim, { stroke: "#d9480f", "stroke-width": 2 });
    const value = pe(pos, dim, d, base, layout);
    el("line", { x1: X(pos), x2: X(pos), y1: top, y2: top + H, stroke: "#333", "stroke-dasharray": "2 2" }, svg);
    el("circle", { cx: X(pos), cy: Y(value), r: 5, fill: "#d9480f", stroke: "#333",
                   "data-value": value.toFixed(6) }, svg);

    // bottom strip: the whole vector PE(pos)
    el("text", { x: left, y: stripY - 8, "font-weight": "bold" }, svg,
       `the vector PE(${pos}): all ${d} dimensions (${layout})`);
    const cw = W / d;
    for (let c = 0; c < d; c++) {
      const v = pe(pos, c, d, base, layout);
      el("rect", { x: left + c * cw, y: stripY, width: Math.max(cw - 0.5, 0.5), height: stripH,
                   fill: colour(v), "data-value": v.toFixed(4) }, svg);
    }
    el("rect", { x: left + dim * cw - 1, y: stripY - 2, width: cw + 2, height: stripH + 4,
                 fill: "none", stroke: "#d9480f", "stroke-width": 2 }, svg);
    for (const c of [0, Math.floor(d / 2), d - 1]) {
      el("text", { x: left + (c + 0.5) * cw, y: stripY + stripH + 14, "text-anchor": "middle" }, svg, c);
    }
    el("text", { x: left + W / 2, y: stripY + stripH + 28, "text-anchor": "middle" }, svg,
       "dimension (blue −1 · white 0 · red +1)");

    const lam = 2 * Math.PI * Math.pow(base, (2 * i) / d);
    note.textContent = `PE(${pos}, ${dim}) = ${isCos ? "cos" : "sin"}(${pos} / ${base}^(${2 * i}/${d})) = ` +
      `${value.toFixed(4)} · pair i = ${i}, wavelength 2π·${base}^(${2 * i}/${d}) = ${lam.toFixed(1)} positions`;
  }

  function sync() {
    draw();
    model.set("pos", Number(p.input.value));
    model.set("dim", Number(j.input.value));
    model.set("table_layout", lay.value);
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  p.input.addEventListener("input", sync);
  j.input.addEventListener("input", sync);
  lay.addEventListener("change", sync);
  draw();
}

export default { render };
