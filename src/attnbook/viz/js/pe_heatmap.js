// PE heatmap explorer (§3.5): the (max_len, d_model) table of sines and cosines, recomputed
// in the browser whenever the d_model slider or the layout picker moves.
import { colourKey, label, pixelImage, setAttrs, setText, svgEl, vlabel } from "./base.js";
import { diverging, divergingRGB, mount } from "./base.js";
import { LAYOUT_PICKER, frequencies, peTable } from "./positional.js";

function render({ model, el }) {
  const L = model.get("max_len");
  const base = model.get("base");
  let parts;

  function build(ui) {
    const { svg, width: W, dark } = ui;
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
    vlabel(svg, 14, top + H / 2, "position pos");
    parts.ticks = [0, 1, 2].map(() => label(svg, 0, top + H + 14, "", "middle"));
    label(svg, x0, top + H + 34, "dimension", "start");
    colourKey(svg, x0 + w - 120, top + H + 24, 100, (t) => diverging(2 * t - 1, dark), "−1", "+1");
    ui.size(top + H + 42);
  }

  function update(ui) {
    const { d_model: d, layout } = ui.values;
    const half = d / 2;
    const table = peTable(L, d, base, layout);
    setText(parts.title, `PE: ${L} positions × ${d} dimensions`);
    pixelImage(parts.image, L, d, (pos, j) => divergingRGB(table[pos][j], ui.dark));
    parts.image.dataset.dModel = String(d);
    [0, half, d - 1].forEach((j, k) => {
      setAttrs(parts.ticks[k], { x: parts.x0 + ((j + 0.5) * parts.w) / d });
      setText(parts.ticks[k], String(j));
    });
    const omega = frequencies(d, base);
    const lamMax = (2 * Math.PI) / omega[half - 1];
    const slow = omega.findIndex((w) => (2 * Math.PI) / w > 10 * L);
    const slowText =
      slow < 0
        ? "every pair completes a visible part of its period here"
        : `pairs ${slow}…${half - 1} have wavelengths over 10 × ${L} positions and look almost constant`;
    ui.note.textContent =
      `${half} frequencies; wavelengths from 2π ≈ 6.3 to 2π·${base}^(${d - 2}/${d}) ≈ ` +
      `${Math.round(lamMax).toLocaleString("en")} positions · ${slowText}`;
    const fast = layout === "interleaved" ? "the left columns" : "the left columns of each half";
    return (
      `Heat map of the ${L} × ${d} table, ${layout} layout: ${fast} change fastest down the ` +
      `positions, ${slow < 0 ? "and every column changes visibly" : `columns of pairs ${slow} on are almost constant`}.`
    );
  }

  return mount(el, model, {
    label: "Heat map of the positional-encoding table, positions down, dimensions across, blue −1 to orange +1",
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
      LAYOUT_PICKER,
    ],
    build,
    update,
  });
}

export default { render };
