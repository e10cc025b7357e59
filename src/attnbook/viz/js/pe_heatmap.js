// PE heatmap explorer (§3.5): the (max_len, d_model) table of sines and cosines, recomputed
// in the browser whenever the d_model slider or the layout picker moves.
import { label, pixelImage, setAttrs, setText, svgEl, vlabel } from "./base.js";
import { divergingRGB, mount } from "./base.js";
import { frequencies, layoutPicker, peTable } from "./positional.js";
import { translator } from "./strings.js";

function render({ model, el }) {
  const t = translator(el, model);
  const L = model.get("max_len");
  const base = model.get("base");
  let parts;

  function build(ui) {
    const { svg, width: W } = ui;
    const top = 24;
    const x0 = 44;
    const rowH = Math.max(2, Math.min(6, Math.floor(360 / L)));
    const H = rowH * L;
    const w = W - x0 - 16;
    parts = { x0, w };
    parts.title = label(svg, 4, 14, "", "start", "ae-title");
    parts.image = svgEl("image", { x: x0, y: top, width: w, height: H, preserveAspectRatio: "none" }, svg);
    parts.image.style.imageRendering = "pixelated";
    svgEl("rect", { x: x0, y: top, width: w, height: H, class: "ae-frame" }, svg);
    for (const pos of [0, Math.floor(L / 2), L - 1])
      label(svg, x0 - 6, top + (pos + 0.5) * rowH + 4, String(pos), "end");
    vlabel(svg, 14, top + H / 2, t("positional.pos"));
    parts.ticks = [0, 1, 2].map(() => label(svg, 0, top + H + 14, "", "middle"));
    label(svg, x0, top + H + 34, t("positional.dimension"), "start");
    ui.size(top + H + 42);
  }

  function update(ui) {
    const { d_model: d, layout } = ui.values;
    const half = d / 2;
    const table = peTable(L, d, base, layout);
    setText(parts.title, t("peHeatmap.title", { L, d }));
    pixelImage(parts.image, L, d, (pos, j) => divergingRGB(table[pos][j], ui.dark));
    parts.image.dataset.dModel = String(d);
    [0, half, d - 1].forEach((j, k) => {
      setAttrs(parts.ticks[k], { x: parts.x0 + ((j + 0.5) * parts.w) / d });
      setText(parts.ticks[k], String(j));
    });
    const omega = frequencies(d, base);
    const lamMax = (2 * Math.PI) / omega[half - 1];
    const slow = omega.findIndex((w) => (2 * Math.PI) / w > 10 * L);
    const slowText = slow < 0 ? t("peHeatmap.allVisible") : t("peHeatmap.slowPairs", { slow, last: half - 1, L });
    ui.note.textContent = t("peHeatmap.note", {
      half,
      base,
      top: d - 2,
      d,
      longest: Math.round(lamMax).toLocaleString("en"),
      slow: slowText,
    });
    return t("peHeatmap.alt", {
      L,
      d,
      layout: t(`positional.name.${layout}`),
      fast: t(`peHeatmap.fast.${layout}`),
      rest: slow < 0 ? t("peHeatmap.restVisible") : t("peHeatmap.restConstant", { slow }),
    });
  }

  return mount(el, model, {
    label: t("peHeatmap.label"),
    task: t("peHeatmap.task"),
    legend: [{ ramp: "diverging", low: "−1", high: "+1", text: t("positional.legendValue") }],
    controls: [
      {
        kind: "slider",
        name: "d_model",
        label: "d_model",
        trait: "d_model",
        min: model.get("d_model_min"),
        max: model.get("d_model_max"),
        step: 2,
        text: String,
      },
      layoutPicker(t),
    ],
    build,
    update,
  });
}

export default { render };
