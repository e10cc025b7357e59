// Cross-attention explorer: rows are the decoder's output characters, columns the source
// characters; pick the example, the layer and the head (or the mean over heads).
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

function blue(w) {
  const a = Math.round(255 * (1 - Math.min(1, Math.max(0, w))));
  return `rgb(${a},${Math.round(120 + 0.53 * a)},255)`;
}

function render({ model, el: root }) {
  const sources = model.get("sources");
  const outputs = model.get("outputs");
  const weights = model.get("weights");
  const N = weights[0].length, h = weights[0][0].length;
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const ex = picker(controls, "example", sources.map((s, i) => [i, s.join("")]), model.get("example"));
  const layer = picker(controls, "layer", [...Array(N).keys()].map((l) => [l, `${l + 1} of ${N}`]),
                       model.get("layer"));
  const head = picker(controls, "head", [[-1, "mean of heads"],
                      ...[...Array(h).keys()].map((k) => [k, `head ${k + 1}`])], model.get("head"));
  const svg = el("svg", { width: 720, height: 100, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function draw() {
    const e = Number(ex.value), l = Number(layer.value), k = Number(head.value);
    const src = sources[e], out = outputs[e], W = weights[e][l];
    const rows = out.map((_, i) => src.map((_, j) =>
      k >= 0 ? W[k][i][j] : W.reduce((acc, hw) => acc + hw[i][j], 0) / h));
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const cell = Math.min(24, Math.floor(600 / src.length)), left = 70, top = 46;
    el("text", { x: left, y: 14, "font-weight": "bold" }, svg,
       `cross-attention, layer ${l + 1}, ${k >= 0 ? "head " + (k + 1) : "mean of heads"}`);
    el("text", { x: left, y: top - 22 }, svg, "source characters (keys) →");
    src.forEach((c, j) => el("text", { x: left + j * cell + cell / 2, y: top - 6,
                                       "text-anchor": "middle" }, svg, c === " " ? "␣" : c));
    out.forEach((c, i) => {
      el("text", { x: left - 8, y: top + i * cell + cell * 0.7, "text-anchor": "end" }, svg, c);
      rows[i].forEach((w, j) => el("rect", { x: left + j * cell, y: top + i * cell,
        width: cell - 1, height: cell - 1, fill: blue(w), "data-w": w.toFixed(3) },
        svg));
    });
    el("text", { x: 4, y: top + out.length * cell / 2, transform:
      `rotate(-90 10 ${top + out.length * cell / 2})`, "text-anchor": "middle" }, svg, "output");
    svg.setAttribute("height", top + out.length * cell + 8);
    const peaks = rows.map((r, i) => `${out[i]}→${src[r.indexOf(Math.max(...r))]}`);
    note.textContent = "strongest source character per output: " + peaks.join("  ");
  }

  function sync() {
    draw();
    model.set("example", Number(ex.value));
    model.set("layer", Number(layer.value));
    model.set("head", Number(head.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel */ }
  }
  [ex, layer, head].forEach((s) => s.addEventListener("change", sync));
  draw();
}

export default { render };
