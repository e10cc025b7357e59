// Patch attention explorer: the [CLS] query's attention weights over the image patches of a
// ViT-style classifier; pick the image, the layer and the head (or the mean of heads).
import { COLOUR, axes, label, pixelImage, setAttrs, setText, svgEl } from "./base.js";
import { fmt, headPicker, linear, mount, niceTicks } from "./base.js";
import { translator } from "./strings.js";

/** The [CLS] row (1 + P,) of image i, layer l, head k; k < 0: the mean over heads. */
export function clsRow(cls, i, l, k) {
  const heads = cls[i][l];
  if (k >= 0) return heads[k];
  return heads[0].map((_, j) => heads.reduce((acc, row) => acc + row[j], 0) / heads.length);
}

/** The share of the weights w (P,) on the patches marked 1. */
export function shareOn(w, marked) {
  return w.reduce((acc, a, j) => acc + (marked[j] ? a : 0), 0);
}

function render({ model, el }) {
  const t = translator(el, model);
  const images = model.get("images");
  const cls = model.get("cls");
  const marked = model.get("marked");
  const labels = model.get("labels");
  const predictions = model.get("predictions");
  const p = model.get("patch");
  const H = images[0].length;
  const W = images[0][0].length;
  const N = cls[0].length;
  const h = cls[0][0].length;
  const gw = W / p;
  const P = (H / p) * gw;
  let parts;

  function build(ui) {
    const { svg, width, narrow } = ui;
    const px = Math.floor(Math.min(14, (narrow ? width - 8 : 0.4 * width) / W));
    const x0 = 4;
    const y0 = 40;
    const bx = narrow ? 44 : x0 + W * px + 64;
    const by = narrow ? y0 + H * px + 40 : y0;
    const bw = width - bx - 8;
    const bh = narrow ? 130 : H * px - 40;
    parts = { patches: [], bars: [], rug: [], px };
    parts.title = label(svg, 4, 16, "", "start", "ae-title");
    parts.subtitle = label(svg, x0, y0 - 8, "", "start", "ae-muted");
    // the input image as it is (grey levels, no colour scale): class ae-picture
    const picture = { x: x0, y: y0, width: W * px, height: H * px, preserveAspectRatio: "none", class: "ae-picture" };
    parts.image = svgEl("image", picture, svg);
    parts.image.style.imageRendering = "pixelated";
    for (let j = 0; j < P; j++) {
      const attrs = {
        x: x0 + (j % gw) * p * px,
        y: y0 + Math.floor(j / gw) * p * px,
        width: p * px,
        height: p * px,
      };
      parts.patches.push({
        tint: svgEl("rect", { ...attrs, class: `ae-fill ${COLOUR.main}` }, svg),
        edge: svgEl("rect", { ...attrs, class: `ae-stroke ${COLOUR.reference}`, "stroke-width": 2.5 }, svg),
      });
    }
    label(svg, narrow ? x0 : bx, by - 8, t("patches.barsTitle"), "start", "ae-muted");
    parts.frame = axes(svg, { x0: bx, x1: bx + bw, y0: by, y1: by + bh, grid: true });
    label(svg, bx + bw / 2, by + bh + 32, t("patches.patchAxis"), "middle");
    const slot = bw / P;
    for (let j = 0; j < P; j++) {
      const x = bx + j * slot + 1;
      const width = Math.max(1, slot - 2);
      parts.bars.push(svgEl("rect", { x, width }, svg));
      // under the bar of a patch the shape touches, a mark in the outline's colour
      parts.rug.push(svgEl("rect", { x, width, y: by + bh + 1, height: 4, class: `ae-fill ${COLOUR.reference}` }, svg));
    }
    parts.frame.xTicks(
      niceTicks(0, P - 1, 4).map((tick) => ({ value: tick.value, label: String(tick.value + 1) })),
      (j) => bx + (j + 0.5) * slot,
    );
    parts.by = by;
    parts.bh = bh;
    ui.size(by + bh + 40);
  }

  function update(ui) {
    const { image: i, layer: l, head: k } = ui.values;
    const row = clsRow(cls, i, l, k);
    const w = row.slice(1);
    const top = Math.max(...w, 1e-9);
    const which = k >= 0 ? t("common.headN", { n: k + 1 }) : t("common.meanOfHeads");
    setText(parts.title, t("patches.title", { n: i + 1, label: labels[i], prediction: predictions[i] }));
    setText(parts.subtitle, t("patches.subtitle", { layer: l + 1, which }));
    if (parts.shown !== i) {
      const grey = (v) => Math.round(255 * Math.max(0, Math.min(1, (v + 0.5) / 2)));
      pixelImage(parts.image, H, W, (r, c) => Array(3).fill(grey(images[i][r][c])));
      parts.shown = i;
    }
    const Y = linear(0, top, parts.by + parts.bh, parts.by);
    const best = w.indexOf(top);
    w.forEach((a, j) => {
      const onShape = marked[i][j] ? "visible" : "hidden";
      parts.patches[j].tint.setAttribute("fill-opacity", ((0.75 * a) / top).toFixed(3));
      parts.patches[j].edge.setAttribute("visibility", onShape);
      parts.rug[j].setAttribute("visibility", onShape);
      setAttrs(parts.bars[j], {
        y: Y(a),
        height: parts.by + parts.bh - Y(a),
        class: `ae-fill ${j === best ? COLOUR.highlight : COLOUR.main}`,
      });
    });
    parts.frame.yTicks(niceTicks(0, top, 3), Y);
    const onShape = shareOn(w, marked[i]);
    const share = marked[i].reduce((a, b) => a + b, 0) / P;
    ui.note.textContent = t("patches.note", {
      onShape: (100 * onShape).toFixed(0),
      share: (100 * share).toFixed(0),
      self: (100 * row[0]).toFixed(0),
    });
    return t("patches.alt", {
      n: i + 1,
      label: labels[i],
      layer: l + 1,
      which,
      onShape: (100 * onShape).toFixed(0),
      count: Math.round(share * P),
      weight: fmt(top, 2),
      patch: best + 1,
      row: Math.floor(best / gw) + 1,
      column: (best % gw) + 1,
    });
  }

  return mount(el, model, {
    label: t("patches.label"),
    task: t("patches.task"),
    legend: [
      { mark: "bar", colour: "main", text: t("patches.legendWeight") },
      { mark: "bar", colour: "highlight", text: t("patches.legendLargest") },
      { mark: "frame", colour: "reference", text: t("patches.legendShape") },
    ],
    controls: [
      {
        kind: "picker",
        name: "image",
        label: t("patches.image"),
        trait: "image",
        options: labels.map((name, i) => [i, `${i + 1}: ${name}`]),
      },
      {
        kind: "slider",
        name: "layer",
        label: t("common.layer"),
        trait: "layer",
        min: 0,
        max: N - 1,
        text: (l) => t("common.layerOf", { n: l + 1, N }),
      },
      headPicker(h, t),
    ],
    build,
    update,
  });
}

export default { render };
