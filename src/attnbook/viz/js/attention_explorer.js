// Attention explorer (§3.2.1): the query token and the temperature τ are chosen in the
// browser; weights = softmax(scores[query] / τ) with scores = Q Kᵀ / √d_k from Python,
// output = Σ_j weights_j · values_j.
import { diverging, entropy, fmt, label, mount, setAttrs, setText, softmax, svgEl } from "./base.js";

/** weights = softmax(scores / τ) and output = Σ_j weights_j values_j (d_v,). */
export function attend(scores, values, tau) {
  const weights = softmax(scores.map((s) => s / tau));
  const output = values[0].map((_, c) => weights.reduce((acc, w, j) => acc + w * values[j][c], 0));
  return { weights, output };
}

function render({ model, el }) {
  const tokens = model.get("tokens");
  const scores = model.get("scores");
  const values = model.get("values");
  const T = tokens.length;
  const d_v = values[0].length;
  const limit = Math.max(1e-9, ...values.flat().map(Math.abs));
  const rowH = 24;
  let parts;

  function build(ui) {
    const { svg, width: W, narrow, dark } = ui;
    const longest = Math.max(...tokens.map((t) => t.length));
    const left = Math.min(90, Math.max(narrow ? 56 : 36, 10 + 7 * longest));
    const barW = narrow ? W - left - 4 : Math.min(280, Math.floor(0.45 * W));
    const top = 26;
    const vx = narrow ? left : left + barW + 36;
    const vTop = narrow ? top + T * rowH + 34 : top;
    const cell = Math.min(28, Math.floor((W - vx - 2) / d_v));
    parts = { bars: [], numbers: [], out: [], barW };
    parts.title = label(svg, 4, 16, "", "start", "ae-title");
    label(svg, vx, vTop - 10, "values vⱼ", "start", "ae-title");
    const cellsLeft = narrow ? left : vx;
    tokens.forEach((tok, j) => {
      const y = top + j * rowH;
      label(svg, left - 6, y + 16, tok, "end");
      svgEl("rect", { x: left, y: y + 3, width: barW, height: rowH - 6, class: "ae-panel" }, svg);
      parts.bars.push(svgEl("rect", { x: left, y: y + 3, height: rowH - 6 }, svg));
      parts.numbers.push(label(svg, left + barW - 4, y + 16, "", "end"));
      const vy = vTop + j * rowH;
      if (narrow) label(svg, left - 6, vy + 16, tok, "end");
      values[j].forEach((x, c) => {
        const attrs = { x: cellsLeft + c * cell, y: vy + 2, width: cell - 2, height: rowH - 4 };
        svgEl("rect", { ...attrs, fill: diverging(x / limit, dark) }, svg);
      });
    });
    const yo = vTop + T * rowH + 8;
    label(svg, cellsLeft - 6, yo + 16, "output", "end", "ae-title");
    for (let c = 0; c < d_v; c++) {
      const attrs = { x: cellsLeft + c * cell, y: yo + 2, width: cell - 2, height: rowH - 4 };
      parts.out.push(svgEl("rect", { ...attrs, class: "ae-outline" }, svg));
    }
    label(svg, cellsLeft, yo + rowH + 16, "Σⱼ wⱼ vⱼ (blue −, orange +)", "start", "ae-muted");
    ui.size(yo + rowH + 24);
  }

  function update(ui) {
    const i = ui.values.query;
    const tau = 10 ** ui.values.logTau;
    const { weights, output } = attend(scores[i], values, tau);
    setText(parts.title, `weights of "${tokens[i]}" over the keys (τ = ${fmt(tau, 2)})`);
    weights.forEach((w, j) => {
      const cls = `ae-fill ${j === i ? "ae-c1" : "ae-c0"}`;
      setAttrs(parts.bars[j], { width: Math.max(0.5, parts.barW * w), class: cls });
      setText(parts.numbers[j], w.toFixed(3));
    });
    output.forEach((x, c) => parts.out[c].setAttribute("fill", diverging(x / limit, ui.dark)));
    const H = entropy(weights);
    ui.note.textContent =
      `largest weight ${fmt(Math.max(...weights))} · entropy ${fmt(H)} nats ` +
      `(uniform would be ${fmt(Math.log(T))}) · τ → 0 picks one key, τ → ∞ averages them all`;
    const listed = tokens.map((t, j) => `${t} ${weights[j].toFixed(2)}`).join(", ");
    return (
      `Query "${tokens[i]}" at temperature ${fmt(tau, 2)}: weights ${listed}; ` +
      `output vector (${output.map((x) => fmt(x, 2)).join(", ")})`
    );
  }

  return mount(el, model, {
    label: "Bars: one query token's attention weights over the keys; cells: the values and their weighted sum",
    controls: [
      {
        kind: "slider",
        name: "query",
        label: "query token",
        trait: "query",
        min: 0,
        max: T - 1,
        text: (i) => `${tokens[i]} (${i})`,
      },
      {
        kind: "slider",
        name: "logTau",
        label: "temperature τ",
        trait: "temperature",
        min: -1.5,
        max: 1.5,
        step: 0.05,
        fromTrait: Math.log10,
        toTrait: (v) => 10 ** v,
        text: (v) => fmt(10 ** v, 2),
      },
    ],
    build,
    update,
  });
}

export default { render };
