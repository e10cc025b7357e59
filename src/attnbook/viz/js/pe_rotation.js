// Rotation explorer: M_k turns each (sin, cos) pair of PE(pos) by k·ω_i, whatever pos is.
// PE(pos+k) = M_k · PE(pos), every block [[cos kω, sin kω], [−sin kω, cos kω]], all computed here.
const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
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
  const d = model.get("d_model");
  const base = model.get("base");
  const half = d / 2;
  const omega = Array.from({ length: half }, (_, i) => Math.pow(base, (-2 * i) / d));
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const k = slider(controls, "offset k", -model.get("k_max"), model.get("k_max"), 1, model.get("k"));
  const p = slider(controls, "position pos", 0, model.get("pos_max"), 1, model.get("pos"));
  const perRow = Math.min(half, 4);
  const rows = Math.ceil(half / perRow);
  const cell = 168, R = 52, top = 24;
  const svg = el("svg", { width: 700, height: top + rows * cell + 8, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function draw() {
    const kk = Number(k.input.value);
    const pos = Number(p.input.value);
    k.out.textContent = kk;
    p.out.textContent = pos;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    el("text", { x: 4, y: 14, "font-weight": "bold" }, svg,
       `each pair i of PE(${pos}) (●), turned by k·ω_i (the block of M_${kk}), lands on PE(${pos + kk}) (○)`);
    let worst = 0;
    for (let i = 0; i < half; i++) {
      const cx = 4 + (i % perRow) * 172 + 86, cy = top + Math.floor(i / perRow) * cell + 78;
      const w = omega[i];
      const s = Math.sin(pos * w), c = Math.cos(pos * w);  // PE(pos, 2i), PE(pos, 2i+1)
      const ck = Math.cos(kk * w), sk = Math.sin(kk * w);  // the 2×2 block of M_k
      const ms = ck * s + sk * c, mc = -sk * s + ck * c;   // M_k · PE(pos), this pair
      worst = Math.max(worst, Math.abs(ms - Math.sin((pos + kk) * w)), Math.abs(mc - Math.cos((pos + kk) * w)));
      // axes: horizontal = dimension 2i (the sine), vertical = dimension 2i+1 (the cosine)
      el("line", { x1: cx - R - 8, x2: cx + R + 8, y1: cy, y2: cy, stroke: "#ddd" }, svg);
      el("line", { x1: cx, x2: cx, y1: cy - R - 8, y2: cy + R + 8, stroke: "#ddd" }, svg);
      el("circle", { cx, cy, r: R, fill: "none", stroke: "#bbb" }, svg);
      el("text", { x: cx + R + 10, y: cy + 14, "text-anchor": "end", fill: "#888" }, svg, `d${2 * i}`);
      el("text", { x: cx - 6, y: cy - R - 2, "text-anchor": "end", fill: "#888" }, svg, `d${2 * i + 1}`);
      // the arc swept: the angle k·ω_i (clockwise for k > 0); whole turns are dropped
      const turn = kk * w;
      const shown = Math.sign(turn) * (Math.abs(turn) % (2 * Math.PI));
      const pts = [];
      for (let t = 0; t <= 40; t++) {
        const a = pos * w + (shown * t) / 40;
        pts.push(`${(cx + 0.82 * R * Math.sin(a)).toFixed(1)},${(cy - 0.82 * R * Math.cos(a)).toFixed(1)}`);
      }
      el("polyline", { points: pts.join(" "), fill: "none", stroke: "#f08c00", "stroke-width": 2 }, svg);
      el("line", { x1: cx, y1: cy, x2: cx + R * s, y2: cy - R * c, stroke: "#1c7ed6" }, svg);
      el("line", { x1: cx, y1: cy, x2: cx + R * ms, y2: cy - R * mc, stroke: "#d9480f" }, svg);
      el("circle", { cx: cx + R * s, cy: cy - R * c, r: 5, fill: "#1c7ed6" }, svg);
      el("circle", { cx: cx + R * ms, cy: cy - R * mc, r: 5, fill: "#fff", stroke: "#d9480f",
                     "stroke-width": 2, "data-x": ms.toFixed(5), "data-y": mc.toFixed(5) }, svg);
      const deg = (turn * 180) / Math.PI;
      const net = (shown * 180) / Math.PI;
      const fmt = (x) => x.toFixed(Math.abs(x) < 10 ? 2 : 0);
      el("text", { x: cx, y: cy + R + 24, "text-anchor": "middle" }, svg,
         `pair ${i}: ${fmt(deg)}°` + (Math.abs(deg) >= 360 ? ` ≡ ${fmt(net)}°` : ""));
    }
    const c0 = Math.cos(kk), s0 = Math.sin(kk);
    note.textContent = `block of pair 0 in M_${kk}: [[${c0.toFixed(3)}, ${s0.toFixed(3)}], ` +
      `[${(-s0).toFixed(3)}, ${c0.toFixed(3)}]] — no pos in it · ` +
      `largest |M_k·PE(pos) − PE(pos+k)| here: ${worst.toExponential(1)}`;
  }

  function sync() {
    draw();
    model.set("k", Number(k.input.value));
    model.set("pos", Number(p.input.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  k.input.addEventListener("input", sync);
  p.input.addEventListener("input", sync);
  draw();
}

export default { render };
