// Label-smoothing explorer (§5.4; Szegedy et al. 2016): for the chosen ε and number of
// classes V, the smoothed target
//   q'(k) = (1 − ε) δ_{k,y} + ε / V
// and the loss H(q', p) = −Σ_k q'(k) log p(k) of a prediction p whose logit for the right
// class y exceeds every other logit by a margin m:
//   p(y) = e^m / (e^m + V − 1),  p(k ≠ y) = 1 / (e^m + V − 1).
// With ε = 0 the loss keeps falling as m grows; with ε > 0 it is smallest at p = q', i.e.
// m* = log(q'(y) / q'(k≠y)), where it equals the entropy H(q').
const NS = "http://www.w3.org/2000/svg";
const Y_CLASS = 0; // the right class is drawn first

export function smoothed(epsilon, V) {
  const other = epsilon / V;
  return { right: 1 - epsilon + other, other };
}

export function lossAtMargin(m, epsilon, V) {
  const { right, other } = smoothed(epsilon, V);
  const logZ = Math.log(Math.exp(m) + V - 1);
  return -(right * (m - logZ) + (V - 1) * other * -logZ);
}

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function render({ model, el: root }) {
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";

  const eLabel = document.createElement("label");
  eLabel.textContent = "ε ";
  const eInput = document.createElement("input");
  Object.assign(eInput, { type: "range", min: 0, max: 0.5, step: 0.01, value: model.get("epsilon") });
  const eOut = document.createElement("output");
  eLabel.append(eInput, eOut);

  const vLabel = document.createElement("label");
  vLabel.textContent = "classes V ";
  const vInput = document.createElement("input");
  Object.assign(vInput, { type: "range", min: 2, max: 100, step: 1, value: model.get("V") });
  const vOut = document.createElement("output");
  vLabel.append(vInput, vOut);
  controls.append(eLabel, vLabel);

  const W = 700, H = 300;
  const svg = el("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
                          style: "max-width: 100%; height: auto" });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function axes(x0, x1, y0, y1, xlabel, ylabel, title) {
    el("text", { x: x0, y: 16, "font-weight": "bold" }, svg, title);
    el("line", { x1: x0, y1, x2: x1, y2: y1, stroke: "#333" }, svg);
    el("line", { x1: x0, y1: y0, x2: x0, y2: y1, stroke: "#333" }, svg);
    el("text", { x: (x0 + x1) / 2, y: y1 + 34, "text-anchor": "middle" }, svg, xlabel);
    el("text", { x: x0 - 42, y: (y0 + y1) / 2, "text-anchor": "middle",
                 transform: `rotate(-90 ${x0 - 42} ${(y0 + y1) / 2})` }, svg, ylabel);
  }

  function drawTarget(epsilon, V) {
    // panel A: q'(k) for every class, the right one first
    const x0 = 60, x1 = 320, y0 = 36, y1 = 240;
    axes(x0, x1, y0, y1, `class k (1…${V}; the right class y first)`, "q'(k)", "smoothed target q'");
    const Y = (v) => y1 - v * (y1 - y0);
    for (const t of [0, 0.25, 0.5, 0.75, 1]) {
      el("line", { x1: x0 - 4, y1: Y(t), x2: x0, y2: Y(t), stroke: "#333" }, svg);
      el("text", { x: x0 - 7, y: Y(t) + 4, "text-anchor": "end" }, svg, String(t));
    }
    const { right, other } = smoothed(epsilon, V);
    const bw = (x1 - x0) / V;
    for (let k = 0; k < V; k++) {
      const v = k === Y_CLASS ? right : other;
      el("rect", { x: x0 + k * bw + (bw > 3 ? 0.5 : 0), y: Y(v), width: Math.max(0.6, bw - (bw > 3 ? 1 : 0)),
                   height: Math.max(0.5, y1 - Y(v)), fill: k === Y_CLASS ? "#d9480f" : "#1c7ed6",
                   "data-q": v.toFixed(5) }, svg);
    }
    el("text", { x: x0 + bw + 6, y: Y(right) + 12 }, svg, `q'(y) = ${right.toFixed(3)}`);
    el("text", { x: x1, y: Math.min(Y(0.12), Y(other) - 8), "text-anchor": "end", fill: "#1c7ed6" }, svg,
       `every other class: ε/V = ${other.toFixed(4)}`);
  }

  function drawLoss(epsilon, V) {
    // panel B: H(q', p) against the logit margin m of p
    const x0 = 420, x1 = 670, y0 = 36, y1 = 240, mMax = 16;
    axes(x0, x1, y0, y1, "logit margin m of the prediction p", "loss H(q', p) (nats)",
         "loss against the model's confidence");
    const losses = [];
    for (let i = 0; i <= 160; i++) losses.push(lossAtMargin((mMax * i) / 160, epsilon, V));
    const top = Math.max(...losses) * 1.05;
    const X = (m) => x0 + (m / mMax) * (x1 - x0);
    const Y = (v) => y1 - (v / top) * (y1 - y0);
    for (const t of [0, 4, 8, 12, 16]) {
      el("line", { x1: X(t), y1, x2: X(t), y2: y1 + 4, stroke: "#333" }, svg);
      el("text", { x: X(t), y: y1 + 17, "text-anchor": "middle" }, svg, String(t));
    }
    const yStep = top > 4 ? 1 : top > 2 ? 0.5 : 0.25;
    for (let t = 0; t <= top; t += yStep) {
      el("line", { x1: x0 - 4, y1: Y(t), x2: x0, y2: Y(t), stroke: "#333" }, svg);
      el("text", { x: x0 - 7, y: Y(t) + 4, "text-anchor": "end" }, svg, String(+t.toFixed(2)));
    }
    const pts = losses.map((v, i) => `${X((mMax * i) / 160).toFixed(1)},${Y(v).toFixed(1)}`);
    el("polyline", { points: pts.join(" "), fill: "none", stroke: "#1c7ed6", "stroke-width": 2.5 }, svg);
    if (epsilon > 0) {
      const { right, other } = smoothed(epsilon, V);
      const mStar = Math.log(right / other);
      const best = lossAtMargin(mStar, epsilon, V);
      if (mStar <= mMax) {
        el("line", { x1: X(mStar), y1: Y(best), x2: X(mStar), y2: y1, stroke: "#d9480f",
                     "stroke-dasharray": "3 3" }, svg);
        el("circle", { cx: X(mStar), cy: Y(best), r: 4.5, fill: "#d9480f", "data-margin": mStar.toFixed(4) }, svg);
        el("text", { x: X(mStar) + 6, y: Y(best) - 8 }, svg, `minimum at m* = ${mStar.toFixed(2)}`);
      }
    } else {
      el("text", { x: x1, y: y0 + 10, "text-anchor": "end", fill: "#d9480f" }, svg,
         "ε = 0: no minimum, m → ∞");
    }
  }

  function draw() {
    const epsilon = Number(eInput.value);
    const V = Number(vInput.value);
    eOut.textContent = epsilon.toFixed(2);
    vOut.textContent = String(V);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    drawTarget(epsilon, V);
    drawLoss(epsilon, V);
    const { right, other } = smoothed(epsilon, V);
    if (epsilon > 0) {
      const entropy = -(right * Math.log(right) + (V - 1) * other * Math.log(other));
      note.textContent = `ε = ${epsilon.toFixed(2)}, V = ${V}: the loss is smallest when p = q', ` +
        `i.e. confidence p(y) = ${right.toFixed(3)} at logit margin ${Math.log(right / other).toFixed(2)}, ` +
        `where it equals H(q') = ${entropy.toFixed(3)} nats; a model there has perplexity ` +
        `1/p(y) = ${(1 / right).toFixed(3)} on the true labels, where ε = 0 would allow 1`;
    } else {
      note.textContent = `ε = 0, V = ${V}: one-hot target; the loss keeps falling as the ` +
        "margin grows, so training pushes the confidence p(y) towards 1";
    }
  }

  function sync() {
    draw();
    model.set("epsilon", Number(eInput.value));
    model.set("V", Number(vInput.value));
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  eInput.addEventListener("input", sync);
  vInput.addEventListener("input", sync);
  draw();
}

export default { render };
