// Patch attention explorer: the [CLS] query's attention weights over the image patches of a
// ViT-style classifier; pick the image, the layer and the head (or the mean of heads).
import { axes, label, pixelImage, setAttrs, setText, svgEl } from "./base.js";
import { fmt, headPicker, linear, mount, niceTicks } from "./base.js";

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
    parts = { patches: [], bars: [], px };
    parts.title = label(svg, 4, 16, "", "start", "ae-title");
    parts.subtitle = label(svg, x0, y0 - 8, "", "start", "ae-muted");
    parts.image = svgEl("image", { x: x0, y: y0, width: W * px, height: H * px, preserveAspectRatio: "none" }, svg);
    parts.image.style.imageRendering = "pixelated";
    for (let j = 0; j < P; j++) {
      const attrs = {
        x: x0 + (j % gw) * p * px,
        y: y0 + Math.floor(j / gw) * p * px,
        width: p * px,
        height: p * px,
      };
      parts.patches.push({
        tint: svgEl("rect", { ...attrs, class: "ae-fill ae-c1" }, svg),
        edge: svgEl("rect", { ...attrs, class: "ae-stroke ae-c0", "stroke-width": 2.5 }, svg),
      });
    }
    label(svg, narrow ? x0 : bx, by - 8, "[CLS] weight per patch (blue: on the shape)", "start", "ae-muted");
    parts.frame = axes(svg, { x0: bx, x1: bx + bw, y0: by, y1: by + bh, grid: true });
    label(svg, bx + bw / 2, by + bh + 32, "patch (row by row)", "middle");
    const slot = bw / P;
    for (let j = 0; j < P; j++)
      parts.bars.push(svgEl("rect", { x: bx + j * slot + 1, width: Math.max(1, slot - 2) }, svg));
    parts.frame.xTicks(
      niceTicks(0, P - 1, 4).map((t) => ({ value: t.value, label: String(t.value + 1) })),
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
    const which = k >= 0 ? `head ${k + 1}` : "mean of heads";
    setText(parts.title, `image ${i + 1}: ${labels[i]} (predicted ${predictions[i]})`);
    setText(parts.subtitle, `layer ${l + 1}, ${which}: patches tinted by [CLS] weight`);
    if (parts.shown !== i) {
      const grey = (v) => Math.round(255 * Math.max(0, Math.min(1, (v + 0.5) / 2)));
      pixelImage(parts.image, H, W, (r, c) => Array(3).fill(grey(images[i][r][c])));
      parts.shown = i;
    }
    const Y = linear(0, top, parts.by + parts.bh, parts.by);
    w.forEach((a, j) => {
      parts.patches[j].tint.setAttribute("fill-opacity", ((0.75 * a) / top).toFixed(3));
      parts.patches[j].edge.setAttribute("visibility", marked[i][j] ? "visible" : "hidden");
      setAttrs(parts.bars[j], {
        y: Y(a),
        height: parts.by + parts.bh - Y(a),
        class: `ae-fill ${marked[i][j] ? "ae-c0" : "ae-off"}`,
      });
    });
    parts.frame.yTicks(niceTicks(0, top, 3), Y);
    const onShape = shareOn(w, marked[i]);
    const share = marked[i].reduce((a, b) => a + b, 0) / P;
    ui.note.textContent =
      `[CLS] → patches the shape touches: ${(100 * onShape).toFixed(0)}% of its attention ` +
      `(they are ${(100 * share).toFixed(0)}% of the patches); ${(100 * row[0]).toFixed(0)}% stays on [CLS] itself`;
    const best = w.indexOf(top);
    return (
      `Image ${i + 1}, a ${labels[i]}, layer ${l + 1}, ${which}: ${(100 * onShape).toFixed(0)}% of the ` +
      `[CLS] attention falls on the ${Math.round(share * P)} patches the shape touches; the largest ` +
      `weight, ${fmt(top, 2)}, is on patch ${best + 1} (row ${Math.floor(best / gw) + 1}, column ${(best % gw) + 1}).`
    );
  }

  return mount(el, model, {
    label: "An image with its patches tinted by the [CLS] token's attention, and the weights as bars",
    controls: [
      {
        kind: "picker",
        name: "image",
        label: "image",
        trait: "image",
        options: labels.map((name, i) => [i, `${i + 1}: ${name}`]),
      },
      {
        kind: "slider",
        name: "layer",
        label: "layer",
        trait: "layer",
        min: 0,
        max: N - 1,
        text: (l) => `${l + 1} of ${N}`,
      },
      headPicker(h),
    ],
    build,
    update,
  });
}

export default { render };
