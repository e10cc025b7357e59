// Schedule explorer: the paper's learning rate, Eq. (3) of §5.3,
//   lrate = d_model^-0.5 · min(step^-0.5, step · warmup^-1.5),
// recomputed in the browser for the chosen d_model and warmup, beside the paper's base
// setting (d_model = 512, warmup = 4000). Its peak, at step = warmup, is (d_model · warmup)^-0.5.
const NS = "http://www.w3.org/2000/svg";
const PAPER = { d_model: 512, warmup: 4000 };

export function lrate(step, d_model, warmup) {
  return Math.pow(d_model, -0.5) * Math.min(Math.pow(step, -0.5), step * Math.pow(warmup, -1.5));
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

const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

function sci(x, digits = 2) {
  const [mantissa, exponent] = (digits === null ? x.toExponential() : x.toExponential(digits)).split("e");
  const power = String(Number(exponent)).split("").map((c) => SUPERSCRIPT[c]).join("");
  return `${mantissa}·10${power}`;
}

function render({ model, el: root }) {
  const dModels = model.get("d_models");
  const steps = model.get("steps");
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";

  const dLabel = document.createElement("label");
  dLabel.textContent = "d_model ";
  const dInput = document.createElement("input");
  Object.assign(dInput, { type: "range", min: 0, max: dModels.length - 1, step: 1,
                          value: Math.max(0, dModels.indexOf(model.get("d_model"))) });
  const dOut = document.createElement("output");
  dLabel.append(dInput, dOut);

  const wLabel = document.createElement("label");
  wLabel.textContent = "warmup ";
  const wInput = document.createElement("input");
  Object.assign(wInput, { type: "range", min: 100, max: 16000, step: 100, value: model.get("warmup") });
  const wOut = document.createElement("output");
  wLabel.append(wInput, wOut);
  controls.append(dLabel, wLabel);

  const W = 700, H = 320;
  const x0 = 80, x1 = 660, y0 = 30, y1 = 260;
  const svg = el("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
                          style: "max-width: 100%; height: auto" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function curve(d, w, X, Y) {
    // denser samples near the start, where the warm-up ramp and the peak are
    const at = new Set([1, w, steps]);
    for (let i = 1; i < 400; i++) at.add(Math.max(1, Math.round(steps * Math.pow(i / 400, 1.6))));
    return [...at].sort((a, b) => a - b)
      .map((s) => `${X(s).toFixed(1)},${Y(lrate(s, d, w)).toFixed(1)}`).join(" ");
  }

  function draw() {
    const d = dModels[Number(dInput.value)];
    const w = Number(wInput.value);
    dOut.textContent = String(d);
    wOut.textContent = String(w);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const peak = lrate(w, d, w);
    const paperPeak = lrate(PAPER.warmup, PAPER.d_model, PAPER.warmup);
    const top = 1.1 * Math.max(peak, paperPeak);
    const X = (s) => x0 + (s / steps) * (x1 - x0);
    const Y = (v) => y1 - (v / top) * (y1 - y0);

    el("line", { x1: x0, y1, x2: x1, y2: y1, stroke: "#333" }, svg);
    el("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#333" }, svg);
    for (const t of niceTicks(0, steps, 5)) {
      el("line", { x1: X(t), y1, x2: X(t), y2: y1 + 4, stroke: "#333" }, svg);
      el("text", { x: X(t), y: y1 + 17, "text-anchor": "middle" }, svg, t.toLocaleString("en"));
    }
    for (const t of niceTicks(0, top, 4)) {
      el("line", { x1: x0 - 4, y1: Y(t), x2: x0, y2: Y(t), stroke: "#333" }, svg);
      el("text", { x: x0 - 7, y: Y(t) + 4, "text-anchor": "end" }, svg, t === 0 ? "0" : sci(t, null));
    }
    el("text", { x: (x0 + x1) / 2, y: y1 + 36, "text-anchor": "middle" }, svg, "training step");
    el("text", { x: 16, y: (y0 + y1) / 2, "text-anchor": "middle",
                 transform: `rotate(-90 16 ${(y0 + y1) / 2})` }, svg, "learning rate (lrate)");

    el("polyline", { points: curve(PAPER.d_model, PAPER.warmup, X, Y), fill: "none",
                     stroke: "#868e96", "stroke-width": 1.5, "stroke-dasharray": "5 4" }, svg);
    el("polyline", { points: curve(d, w, X, Y), fill: "none", stroke: "#1c7ed6",
                     "stroke-width": 2.5 }, svg);
    el("line", { x1: X(w), y1: Y(peak), x2: X(w), y2: y1, stroke: "#d9480f",
                 "stroke-dasharray": "3 3" }, svg);
    el("circle", { cx: X(w), cy: Y(peak), r: 4.5, fill: "#d9480f", "data-peak": peak.toExponential(4) }, svg);

    // legend
    el("line", { x1: x1 - 230, y1: y0 + 4, x2: x1 - 205, y2: y0 + 4, stroke: "#1c7ed6", "stroke-width": 2.5 }, svg);
    el("text", { x: x1 - 200, y: y0 + 8 }, svg, `d_model = ${d}, warmup = ${w}`);
    el("line", { x1: x1 - 230, y1: y0 + 22, x2: x1 - 205, y2: y0 + 22, stroke: "#868e96",
                 "stroke-width": 1.5, "stroke-dasharray": "5 4" }, svg);
    el("text", { x: x1 - 200, y: y0 + 26 }, svg, "the paper: 512, 4000");

    const end = lrate(steps, d, w);
    note.textContent = `peak ${sci(peak)} = (d_model · warmup)^-0.5 at step ${w.toLocaleString("en")} ` +
      `(the paper's base: ${sci(paperPeak)}); at step ${steps.toLocaleString("en")}: ${sci(end)}, ` +
      `${(100 * end / peak).toFixed(0)}% of the peak = √(warmup / step)`;
  }

  function sync() {
    draw();
    model.set("d_model", dModels[Number(dInput.value)]);
    model.set("warmup", Number(wInput.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  dInput.addEventListener("input", sync);
  wInput.addEventListener("input", sync);
  draw();
}

export default { render };
