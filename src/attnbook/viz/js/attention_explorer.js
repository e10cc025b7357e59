// Attention explorer (§3.2.1): the query (a click on a word) and the temperature τ are chosen
// in the browser; weights = softmax(scores[query] / τ) with scores = Q Kᵀ / √d_k from Python,
// output = Σ_j weights_j · values_j.
import { COLOUR, diverging, entropy, fmt, label, mount, setAttrs, setText, softmax, svgEl } from "./base.js";
import { translator } from "./strings.js";

/** weights = softmax(scores / τ) and output = Σ_j weights_j values_j (d_v,). */
export function attend(scores, values, tau) {
  const weights = softmax(scores.map((s) => s / tau));
  const output = values[0].map((_, c) => weights.reduce((acc, w, j) => acc + w * values[j][c], 0));
  return { weights, output };
}

function render({ model, el }) {
  const t = translator(el, model);
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
    const longest = Math.max(...tokens.map((tok) => tok.length));
    const left = Math.min(90, Math.max(narrow ? 56 : 36, 10 + 7 * longest));
    const barW = narrow ? W - left - 4 : Math.min(280, Math.floor(0.45 * W));
    const top = 26;
    const vx = narrow ? left : left + barW + 36;
    const vTop = narrow ? top + T * rowH + 34 : top;
    const cell = Math.min(28, Math.floor((W - vx - 2) / d_v));
    parts = { bars: [], numbers: [], words: [], marks: [], out: [], barW };
    parts.title = label(svg, 4, 16, "", "start", "ae-title");
    label(svg, vx, vTop - 10, t("attention.values"), "start", "ae-title");
    const cellsLeft = narrow ? left : vx;
    // a click (or a tap) on a word in the drawing presses that word's button above it
    const wordButtons = ui.root.querySelectorAll(".ae-buttons .ae-button");
    tokens.forEach((tok, j) => {
      const y = top + j * rowH;
      const word = label(svg, left - 6, y + 16, tok, "end");
      word.style.cursor = "pointer";
      word.addEventListener("click", () => wordButtons[j]?.click());
      parts.words.push(word);
      parts.marks.push(svgEl("rect", { x: 2, y: y + 19, width: left - 6, height: 3, class: "ae-fill" }, svg));
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
    label(svg, cellsLeft - 6, yo + 16, t("attention.output"), "end", "ae-title");
    for (let c = 0; c < d_v; c++) {
      const attrs = { x: cellsLeft + c * cell, y: yo + 2, width: cell - 2, height: rowH - 4 };
      parts.out.push(svgEl("rect", { ...attrs, class: "ae-outline" }, svg));
    }
    label(svg, cellsLeft, yo + rowH + 16, t("attention.outputFormula"), "start", "ae-muted");
    ui.size(yo + rowH + 24);
  }

  function update(ui) {
    const i = ui.values.query;
    const tau = 10 ** ui.values.logTau;
    const { weights, output } = attend(scores[i], values, tau);
    const best = weights.indexOf(Math.max(...weights));
    setText(parts.title, t("attention.title", { token: tokens[i], tau: fmt(tau, 2) }));
    weights.forEach((w, j) => {
      const cls = `ae-fill ${j === best ? COLOUR.highlight : COLOUR.main}`;
      setAttrs(parts.bars[j], { width: Math.max(0.5, parts.barW * w), class: cls });
      setText(parts.numbers[j], w.toFixed(3));
      parts.words[j].setAttribute("class", j === i ? "ae-title" : "");
      parts.marks[j].setAttribute("class", `ae-fill ${COLOUR.query}`);
      parts.marks[j].setAttribute("visibility", j === i ? "visible" : "hidden");
    });
    output.forEach((x, c) => parts.out[c].setAttribute("fill", diverging(x / limit, ui.dark)));
    const H = entropy(weights);
    ui.note.textContent = t("attention.note", {
      largest: fmt(Math.max(...weights)),
      entropy: fmt(H),
      uniform: fmt(Math.log(T)),
    });
    const listed = tokens.map((tok, j) => t("attention.pair", { token: tok, weight: weights[j].toFixed(2) }));
    return t("attention.alt", {
      token: tokens[i],
      tau: fmt(tau, 2),
      weights: listed.join(t("common.listSeparator")),
      output: output.map((x) => fmt(x, 2)).join(", "),
    });
  }

  return mount(el, model, {
    label: t("attention.label"),
    task: t("attention.task"),
    legend: [
      { mark: "word", colour: "query", text: t("attention.legendQuery") },
      { mark: "bar", colour: "main", text: t("attention.legendWeight") },
      { mark: "bar", colour: "highlight", text: t("attention.legendLargest") },
      { ramp: "diverging", low: "−", high: "+", text: t("attention.legendValues") },
    ],
    controls: [
      {
        kind: "buttons",
        name: "query",
        label: t("attention.query"),
        trait: "query",
        options: tokens.map((tok, j) => [j, tok]),
      },
      {
        kind: "slider",
        name: "logTau",
        label: t("attention.temperature"),
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
