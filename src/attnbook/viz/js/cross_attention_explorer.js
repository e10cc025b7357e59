// Cross-attention explorer: rows are the decoder's output characters, columns the source
// characters; pick the example, the layer and the head (or the mean over heads).
import { headPicker, label, mount, pixelImage, pool, sequentialRGB, setAttrs, setText, svgEl, vlabel } from "./base.js";
import { translator } from "./strings.js";

/** The (T_out, T_src) weights of head k of one layer W (h, T_out, T_src); k < 0: their mean. */
export function headWeights(W, k) {
  if (k >= 0) return W[k];
  return W[0].map((row, i) => row.map((_, j) => W.reduce((acc, hw) => acc + hw[i][j], 0) / W.length));
}

const shown = (c) => (c === " " ? "␣" : c);

function render({ model, el }) {
  const t = translator(el, model);
  const sources = model.get("sources");
  const outputs = model.get("outputs");
  const weights = model.get("weights"); // [example][layer][head][out][src]
  const N = weights[0].length;
  const h = weights[0][0].length;
  const left = 44;
  const top = 52;
  let parts;

  // Everything but the theme and the width changes in update: a new example moves the labels
  // and redraws the one image of the map (a redraw within a frame, however long the example).
  function build(ui) {
    const { svg } = ui;
    parts = {
      title: label(svg, 4, 14, "", "start", "ae-title"),
      cols: pool(svg, "text", { "text-anchor": "middle" }),
      rows: pool(svg, "text", { "text-anchor": "end" }),
      image: svgEl("image", { x: left, y: top, preserveAspectRatio: "none" }, svg),
      frame: svgEl("rect", { x: left, y: top, class: "ae-frame" }, svg),
      axis: vlabel(svg, 12, 0, t("cross.outputAxis")),
    };
    parts.image.style.imageRendering = "pixelated";
    label(svg, left, 32, t("cross.sourceAxis"), "start", "ae-muted");
  }

  function update(ui) {
    const { example: e, layer: l, head: k } = ui.values;
    const src = sources[e];
    const out = outputs[e];
    const cell = Math.min(28, Math.floor((ui.width - left - 4) / src.length)); // column width
    const rowH = Math.max(cell, 16);
    const every = Math.ceil(12 / cell); // label every source character, or every 2nd, ...
    src.forEach((c, j) => {
      const text = parts.cols.get(j);
      setAttrs(text, { x: left + j * cell + cell / 2, y: top - 6, visibility: j % every === 0 ? null : "hidden" });
      setText(text, shown(c));
    });
    parts.cols.trim(src.length);
    out.forEach((c, i) => {
      const text = parts.rows.get(i);
      setAttrs(text, { x: left - 8, y: top + i * rowH + rowH * 0.5 + 4 });
      setText(text, shown(c));
    });
    parts.rows.trim(out.length);
    const size = { width: src.length * cell, height: out.length * rowH };
    setAttrs(parts.image, size);
    setAttrs(parts.frame, size);
    const middle = top + size.height / 2;
    setAttrs(parts.axis, { y: middle, transform: `rotate(-90 12 ${middle})` });
    ui.size(top + size.height + 8);

    const rows = headWeights(weights[e][l], k);
    const which = k >= 0 ? t("common.headN", { n: k + 1 }) : t("common.meanOfHeads");
    setText(parts.title, t("cross.title", { layer: l + 1, which }));
    pixelImage(parts.image, out.length, src.length, (i, j) => sequentialRGB(rows[i][j]));
    const peaks = rows.map((r, i) => `${shown(out[i])}→${shown(src[r.indexOf(Math.max(...r))])}`);
    ui.note.textContent = t("cross.note", { peaks: peaks.join("  ") });
    return t("cross.alt", {
      layer: l + 1,
      which,
      source: src.join(""),
      rows: out.length,
      cols: src.length,
      peaks: peaks.join(t("common.listSeparator")),
    });
  }

  return mount(el, model, {
    label: t("cross.label"),
    task: t("cross.task"),
    legend: [{ ramp: "sequential", low: "0", high: "1", text: t("cross.legendWeight") }],
    controls: [
      {
        kind: "picker",
        name: "example",
        label: t("cross.example"),
        trait: "example",
        options: sources.map((s, i) => [i, s.join("")]),
      },
      {
        kind: "picker",
        name: "layer",
        label: t("common.layer"),
        trait: "layer",
        options: [...Array(N).keys()].map((l) => [l, t("common.layerOf", { n: l + 1, N })]),
      },
      headPicker(h, t),
    ],
    build,
    update,
  });
}

export default { render };
