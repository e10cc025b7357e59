// Timing explorer: the sequence length n is chosen in the browser; the chart shows the
// forward+backward times that the chapter measured, on log–log axes, and bars at n.
const NS = "http://www.w3.org/2000/svg";
const COLOURS = ["#d9480f", "#1c7ed6", "#2b8a3e", "#7048e8", "#e67700", "#495057"];

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function fmt(ms) {
  return ms >= 100 ? ms.toFixed(0) + " ms" : ms >= 1 ? ms.toFixed(1) + " ms" : (ms * 1000).toFixed(0) + " µs";
}

function render({ model, el: root }) {
  const lengths = model.get("lengths");
  const labels = model.get("labels");
  const times = model.get("times_ms");

  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const label = document.createElement("label");
  label.textContent = "sequence length n ";
  const input = document.createElement("input");
  Object.assign(input, { type: "range", min: 0, max: lengths.length - 1, step: 1, value: model.get("index") });
  const out = document.createElement("output");
  label.append(input, out);
  controls.appendChild(label);
  const W = 700, H = 300, left = 84, plotW = 320, top = 14, bottom = 46, barX = 450, barW = 220;
  const svg = el("svg", { width: W, height: H, role: "img" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  const all = times.flat();
  const lo = Math.floor(Math.log10(Math.min(...all))), hi = Math.ceil(Math.log10(Math.max(...all)));
  const lx0 = Math.log2(lengths[0]), lx1 = Math.log2(lengths[lengths.length - 1]);
  const x = (n) => left + ((Math.log2(n) - lx0) / Math.max(1e-9, lx1 - lx0)) * plotW;
  const y = (ms) => top + ((hi - Math.log10(ms)) / Math.max(1e-9, hi - lo)) * (H - top - bottom);

  function axes() {
    el("line", { x1: left, y1: H - bottom, x2: left + plotW, y2: H - bottom, stroke: "#333" }, svg);
    el("line", { x1: left, y1: top, x2: left, y2: H - bottom, stroke: "#333" }, svg);
    for (let e = lo; e <= hi; e++) {
      el("line", { x1: left, y1: y(10 ** e), x2: left + plotW, y2: y(10 ** e), stroke: "#eee" }, svg);
      el("text", { x: left - 6, y: y(10 ** e) + 4, "text-anchor": "end" }, svg, fmt(10 ** e));
    }
    lengths.forEach((n) => el("text", { x: x(n), y: H - bottom + 16, "text-anchor": "middle" }, svg, String(n)));
    el("text", { x: left + plotW / 2, y: H - 8, "text-anchor": "middle" }, svg, "sequence length n (log scale)");
    el("text", { x: 14, y: (top + H - bottom) / 2, "text-anchor": "middle",
                 transform: `rotate(-90 14 ${(top + H - bottom) / 2})` }, svg, "forward + backward time");
  }

  function draw() {
    const i = Number(input.value);
    const n = lengths[i];
    out.textContent = String(n);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    axes();
    el("line", { x1: x(n), y1: top, x2: x(n), y2: H - bottom, stroke: "#999", "stroke-dasharray": "4 3" }, svg);
    const maxMs = Math.max(...times.map((s) => s[i]));
    el("text", { x: barX, y: top + 4, "font-weight": "bold" }, svg, `measured at n = ${n}`);
    times.forEach((series, j) => {
      const c = COLOURS[j % COLOURS.length];
      const d = series.map((ms, k) => `${k ? "L" : "M"}${x(lengths[k]).toFixed(1)},${y(ms).toFixed(1)}`).join("");
      el("path", { d, fill: "none", stroke: c, "stroke-width": 2 }, svg);
      el("circle", { cx: x(n), cy: y(series[i]), r: 4.5, fill: c }, svg);
      const by = top + 22 + j * 44;
      el("text", { x: barX, y: by + 2, fill: c }, svg, labels[j]);
      el("rect", { x: barX, y: by + 8, width: Math.max(1, (barW - 60) * series[i] / maxMs), height: 16,
                   fill: c, "data-ms": series[i].toFixed(3) }, svg);
      el("text", { x: barX + Math.max(1, (barW - 60) * series[i] / maxMs) + 4, y: by + 21 }, svg, fmt(series[i]));
    });
    const order = labels.map((l, j) => [times[j][i], l]).sort((a, b) => a[0] - b[0]);
    note.textContent = `n = ${n}: fastest ${order[0][1]} (${fmt(order[0][0])}), slowest ` +
      `${order[order.length - 1][1]} (${fmt(order[order.length - 1][0])}), ` +
      `${(order[order.length - 1][0] / order[0][0]).toFixed(1)}× apart`;
  }

  input.addEventListener("input", () => {
    draw();
    model.set("index", Number(input.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  });
  draw();
}

export default { render };
