// PE heatmap explorer: the (max_len, d_model) table of sin/cos, recomputed in the browser
// whenever the d_model slider or the layout picker changes.
const NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function rgb(x) {
  // diverging blue (−1) – white (0) – red (+1)
  const t = Math.max(-1, Math.min(1, x));
  const a = Math.round(255 * (1 - Math.abs(t)));
  return t >= 0 ? [255, a, a] : [a, a, 255];
}

function colour(x) {
  return `rgb(${rgb(x).join(",")})`;
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

function render({ model, el: root }) {
  const L = model.get("max_len");
  const base = model.get("base");
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const dm = slider(controls, "d_model", model.get("d_model_min"), model.get("d_model_max"), 2,
                    model.get("d_model"));
  const lay = picker(controls, "layout", ["interleaved", "concatenated"], model.get("table_layout"));
  const left = 56, top = 24, W = 560, rowH = Math.max(2, Math.min(6, Math.floor(360 / L)));
  const H = rowH * L;
  const svg = el("svg", { width: 700, height: top + H + 44, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function draw() {
    const d = Number(dm.input.value);
    const layout = lay.value;
    dm.out.textContent = d;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const half = d / 2;
    const omega = Array.from({ length: half }, (_, i) => Math.pow(base, (-2 * i) / d));
    el("text", { x: left, y: 14, "font-weight": "bold" }, svg,
       `PE: ${L} positions × d_model = ${d} dimensions (${layout})`);
    const cw = W / d;
    // one pixel per (pos, dimension) on a small canvas, stretched into the SVG as an image
    const canvas = document.createElement("canvas");
    canvas.width = d;
    canvas.height = L;
    const ctx = canvas.getContext("2d");
    const pixels = ctx.createImageData(d, L);
    for (let j = 0; j < d; j++) {
      const i = layout === "concatenated" ? j % half : Math.floor(j / 2);
      const isCos = layout === "concatenated" ? j >= half : j % 2 === 1;
      for (let pos = 0; pos < L; pos++) {
        const a = pos * omega[i];
        const [r, g, b] = rgb(isCos ? Math.cos(a) : Math.sin(a));
        pixels.data.set([r, g, b, 255], 4 * (pos * d + j));
      }
    }
    ctx.putImageData(pixels, 0, 0);
    el("image", { x: left, y: top, width: W, height: H, preserveAspectRatio: "none",
                  href: canvas.toDataURL("image/png"), style: "image-rendering: pixelated",
                  "data-d-model": d }, svg);
    el("rect", { x: left, y: top, width: W, height: H, fill: "none", stroke: "#999" }, svg);
    for (const pos of [0, Math.floor(L / 2), L - 1]) {
      el("text", { x: left - 6, y: top + (pos + 0.5) * rowH + 4, "text-anchor": "end" }, svg, pos);
    }
    el("text", { x: 14, y: top + H / 2, transform: `rotate(-90 14 ${top + H / 2})`,
                 "text-anchor": "middle" }, svg, "position pos");
    for (const j of [0, half, d - 1]) {
      el("text", { x: left + (j + 0.5) * cw, y: top + H + 14, "text-anchor": "middle" }, svg, j);
    }
    el("text", { x: left + W / 2, y: top + H + 32, "text-anchor": "middle" }, svg, "dimension");
    // colour bar
    const bx = left + W + 26;
    for (let s = 0; s < 40; s++) {
      el("rect", { x: bx, y: top + (H * s) / 40, width: 14, height: H / 40 + 0.5, fill: colour(1 - s / 20) }, svg);
    }
    el("text", { x: bx + 18, y: top + 8 }, svg, "+1");
    el("text", { x: bx + 18, y: top + H / 2 + 4 }, svg, "0");
    el("text", { x: bx + 18, y: top + H }, svg, "−1");
    const lamMax = 2 * Math.PI * Math.pow(base, (d - 2) / d);
    const slow = omega.findIndex((w) => 2 * Math.PI / w > 10 * L);
    const slowText = slow < 0 ? "every pair completes a visible part of its period here"
      : `pairs ${slow}…${half - 1} have wavelengths over 10 × ${L} positions and look almost constant`;
    note.textContent = `${half} frequencies; wavelengths from 2π ≈ 6.3 to 2π·${base}^(${d - 2}/${d}) ≈ ` +
      `${Math.round(lamMax).toLocaleString("en")} positions · ${slowText}`;
  }

  function sync() {
    draw();
    model.set("d_model", Number(dm.input.value));
    model.set("table_layout", lay.value);
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  dm.input.addEventListener("input", sync);
  lay.addEventListener("change", sync);
  draw();
}

export default { render };
