// Patch attention explorer: the [CLS] query's attention weights over the image patches of a
// ViT-style classifier; pick the image, the layer and the head (or the mean of heads).
const NS = "http://www.w3.org/2000/svg";

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

function slider(parent, label, min, max, value) {
  const wrap = document.createElement("label");
  wrap.textContent = label + " ";
  const input = document.createElement("input");
  Object.assign(input, { type: "range", min, max, step: 1, value });
  const out = document.createElement("output");
  wrap.append(input, out);
  parent.appendChild(wrap);
  return { input, out };
}

function grey(x) {
  const v = Math.round(255 * Math.max(0, Math.min(1, (x + 0.5) / 2)));
  return `rgb(${v},${v},${v})`;
}

function render({ model, el: root }) {
  const images = model.get("images"), cls = model.get("cls"), marked = model.get("marked");
  const labels = model.get("labels"), predictions = model.get("predictions");
  const p = model.get("patch");
  const n = images.length, H = images[0].length, W = images[0][0].length;
  const N = cls[0].length, h = cls[0][0].length, gw = W / p, P = (H / p) * gw;
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const img = picker(controls, "image", [...Array(n).keys()].map((i) =>
    [i, `${i + 1}: ${labels[i]}`]), model.get("image"));
  const layer = slider(controls, "layer", 1, N, model.get("layer") + 1);
  const head = picker(controls, "head", [[-1, "mean of heads"],
    ...[...Array(h).keys()].map((k) => [k, `head ${k + 1}`])], model.get("head"));
  const svg = el("svg", { width: 700, height: 300, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function draw() {
    const i = Number(img.value), l = Number(layer.input.value) - 1, k = Number(head.value);
    layer.out.textContent = `${l + 1} of ${N}`;
    const row = k >= 0 ? cls[i][l][k]
      : cls[i][l][0].map((_, j) => cls[i][l].reduce((acc, r) => acc + r[j], 0) / h);
    const w = row.slice(1), self = row[0], top = Math.max(...w, 1e-9);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const px = 14, x0 = 20, y0 = 40;
    el("text", { x: x0, y: 16, "font-weight": "bold" }, svg,
       `image ${i + 1}: ${labels[i]} (predicted ${predictions[i]})`);
    el("text", { x: x0, y: 32 }, svg, "pixels; patches tinted by [CLS] weight");
    images[i].forEach((r, y) => r.forEach((v, x) =>
      el("rect", { x: x0 + x * px, y: y0 + y * px, width: px, height: px, fill: grey(v) }, svg)));
    w.forEach((a, j) => {
      const gx = x0 + (j % gw) * p * px, gy = y0 + Math.floor(j / gw) * p * px;
      el("rect", { x: gx, y: gy, width: p * px, height: p * px, fill: "#f76707",
                   "fill-opacity": (0.75 * a / top).toFixed(3), stroke: marked[i][j] ? "#1c7ed6" : "#999",
                   "stroke-width": marked[i][j] ? 2.5 : 0.5, "data-w": a.toFixed(4) }, svg);
    });
    // bars: weight on each patch, blue outline = the patch overlaps the shape
    const bx = x0 + W * px + 50, bw = 700 - bx - 10, bh = H * px - 30, slot = bw / P;
    el("text", { x: bx, y: 32 }, svg, "[CLS] weight on each patch (blue: shape there)");
    el("line", { x1: bx, y1: y0 + bh, x2: bx + bw, y2: y0 + bh, stroke: "#333" }, svg);
    el("line", { x1: bx, y1: y0, x2: bx, y2: y0 + bh, stroke: "#333" }, svg);
    el("text", { x: bx - 4, y: y0 + 8, "text-anchor": "end" }, svg, top.toFixed(2));
    el("text", { x: bx - 4, y: y0 + bh, "text-anchor": "end" }, svg, "0");
    w.forEach((a, j) => el("rect", { x: bx + j * slot + 1, y: y0 + bh * (1 - a / top),
      width: Math.max(1, slot - 2), height: bh * a / top, fill: marked[i][j] ? "#1c7ed6" : "#adb5bd" }, svg));
    el("text", { x: bx + bw / 2, y: y0 + bh + 18, "text-anchor": "middle" }, svg,
       "patch (row by row)");
    svg.setAttribute("height", y0 + H * px + 10);
    const onShape = w.reduce((acc, a, j) => acc + (marked[i][j] ? a : 0), 0);
    const share = marked[i].reduce((a, b) => a + b, 0) / P;
    note.textContent = `[CLS] → patches the shape touches: ${(100 * onShape).toFixed(0)}% of its ` +
      `attention (they are ${(100 * share).toFixed(0)}% of the patches); ` +
      `${(100 * self).toFixed(0)}% stays on [CLS] itself`;
  }

  function sync() {
    draw();
    model.set("image", Number(img.value));
    model.set("layer", Number(layer.input.value) - 1);
    model.set("head", Number(head.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  img.addEventListener("change", sync);
  head.addEventListener("change", sync);
  layer.input.addEventListener("input", sync);
  draw();
}

export default { render };
