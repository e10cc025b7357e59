// Cross-attention explorer: rows are the decoder's output characters, columns the source
// characters; pick the example, the layer and the head (or the mean over heads).
import { headPicker, colourKey, label, mount, pool, sequential, setAttrs, setText, vlabel } from "./base.js";

/** The (T_out, T_src) weights of head k of one layer W (h, T_out, T_src); k < 0: their mean. */
export function headWeights(W, k) {
  if (k >= 0) return W[k];
  return W[0].map((row, i) => row.map((_, j) => W.reduce((acc, hw) => acc + hw[i][j], 0) / W.length));
}

const shown = (c) => (c === " " ? "␣" : c);

function render({ model, el }) {
  const sources = model.get("sources");
  const outputs = model.get("outputs");
  const weights = model.get("weights"); // [example][layer][head][out][src]
  const N = weights[0].length;
  const h = weights[0][0].length;
  let parts;

  function build(ui) {
    const { svg, width: W } = ui;
    const src = sources[ui.values.example];
    const out = outputs[ui.values.example];
    const left = 44;
    const top = 52;
    const cell = Math.min(28, Math.floor((W - left - 4) / src.length)); // column width
    const rowH = Math.max(cell, 16);
    const every = Math.ceil(12 / cell); // label every source character, or every 2nd, ...
    parts = { cells: pool(svg, "rect") };
    parts.title = label(svg, 4, 14, "", "start", "ae-title");
    label(svg, left, 32, "source characters (keys) →", "start", "ae-muted");
    src.forEach((c, j) => {
      if (j % every === 0) label(svg, left + j * cell + cell / 2, top - 6, shown(c), "middle");
    });
    out.forEach((c, i) => {
      label(svg, left - 8, top + i * rowH + rowH * 0.5 + 4, shown(c), "end");
      src.forEach((_, j) => {
        const attrs = { x: left + j * cell, y: top + i * rowH, width: cell - 1, height: rowH - 1 };
        setAttrs(parts.cells.get(i * src.length + j), attrs);
      });
    });
    vlabel(svg, 12, top + (out.length * rowH) / 2, "output");
    const y = top + out.length * rowH + 12;
    colourKey(svg, left + 14, y, 110, sequential, "0", "1 (weight)");
    ui.size(y + 18);
  }

  function update(ui) {
    const { example: e, layer: l, head: k } = ui.values;
    const src = sources[e];
    const out = outputs[e];
    const rows = headWeights(weights[e][l], k);
    const which = k >= 0 ? `head ${k + 1}` : "mean of heads";
    setText(parts.title, `cross-attention, layer ${l + 1}, ${which}`);
    rows.forEach((row, i) =>
      row.forEach((w, j) => parts.cells.get(i * src.length + j).setAttribute("fill", sequential(w))),
    );
    const peaks = rows.map((r, i) => `${shown(out[i])}→${shown(src[r.indexOf(Math.max(...r))])}`);
    ui.note.textContent = "strongest source character per output: " + peaks.join("  ");
    return (
      `Heat map of layer ${l + 1}, ${which}, for the source "${src.join("")}": rows are the ` +
      `${out.length} output characters, columns the ${src.length} source characters; ` +
      `the strongest source character per output is ${peaks.join(", ")}.`
    );
  }

  return mount(el, model, {
    label: "Cross-attention weights of each output character over the source characters",
    controls: [
      {
        kind: "picker",
        name: "example",
        label: "example",
        trait: "example",
        rebuild: true,
        options: sources.map((s, i) => [i, s.join("")]),
      },
      {
        kind: "picker",
        name: "layer",
        label: "layer",
        trait: "layer",
        options: [...Array(N).keys()].map((l) => [l, `${l + 1} of ${N}`]),
      },
      headPicker(h),
    ],
    build,
    update,
  });
}

export default { render };
