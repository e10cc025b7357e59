// Gradient-decay explorer: the spectral radius ρ of W_hh is chosen in the browser; the curve
// is log10 ‖∂h_T/∂x_t‖ against the distance T − t, precomputed in Python for each ρ.
import { COLOUR, axes, linear, mount, niceTicks, powerOfTen, svgEl } from "./base.js";
import { translator } from "./strings.js";

/** An SVG path through the points (X(k), Y(ys[k])). */
export function pathThrough(ys, X, Y) {
  return ys.map((v, k) => `${k ? "L" : "M"}${X(k).toFixed(1)},${Y(v).toFixed(1)}`).join("");
}

/**
 * How the gradient norm changes from distance 0 (the last input) to the farthest one: the
 * log10 of the factor, and what that means for learning from far back: its `trend`,
 * "vanishes", "explodes" or "level" (a key of the words in strings.js).
 */
export function decay(curve) {
  const change = curve[curve.length - 1] - curve[0];
  const trend = change < -0.5 ? "vanishes" : change > 0.5 ? "explodes" : "level";
  return { change, trend };
}

function render({ model, el }) {
  const t = translator(el, model);
  const rhos = model.get("rhos");
  const grid = model.get("log_norms");
  const attention = model.get("attention");
  const T = grid[0].length;
  const all = grid.flat().concat(attention);
  const yMin = Math.floor(Math.min(...all));
  const yMax = Math.ceil(Math.max(...all));
  let parts;

  function build(ui) {
    const { svg, width: W, narrow } = ui;
    const box = { x0: 64, x1: W - 12, y0: 10, y1: narrow ? 220 : 270 };
    const X = linear(0, T - 1, box.x0, box.x1);
    const Y = linear(yMin, yMax, box.y1, box.y0);
    parts = { X, Y };
    const frame = axes(svg, { ...box, xTitle: t("gradient.distanceAxis"), yTitle: t("gradient.normAxis"), grid: true });
    frame.xTicks(niceTicks(0, T - 1, narrow ? 4 : 6), X);
    const step = Math.max(1, Math.ceil((yMax - yMin) / (narrow ? 5 : 8)));
    const powers = [];
    for (let v = yMin; v <= yMax; v += step) powers.push({ value: v, label: powerOfTen(v) });
    frame.yTicks(powers, Y);
    const others = svgEl("g", { class: `ae-stroke ${COLOUR.other}`, "stroke-width": 1, "stroke-opacity": 0.45 }, svg);
    grid.forEach((ys) => svgEl("path", { d: pathThrough(ys, X, Y) }, others));
    if (attention.length) {
      const d = pathThrough(attention, X, Y);
      const reference = { d, class: `ae-stroke ${COLOUR.reference}`, "stroke-width": 2, "stroke-dasharray": "6 4" };
      svgEl("path", reference, svg);
    }
    parts.curve = svgEl("path", { class: `ae-stroke ${COLOUR.query}`, "stroke-width": 2.5 }, svg);
    ui.size(box.y1 + 44);
  }

  function update(ui) {
    const i = ui.values.index;
    const curve = grid[i];
    const rho = rhos[i].toFixed(2);
    parts.curve.setAttribute("d", pathThrough(curve, parts.X, parts.Y));
    const tenth = (x) => Number(x.toFixed(1)).toFixed(1); // no "−0.0"
    const { change, trend } = decay(curve);
    const values = { rho, last: T - 1, factor: tenth(change), trend: t(`gradient.${trend}`) };
    const attn = attention.length ? t("gradient.attention", { factor: tenth(decay(attention).change) }) : "";
    ui.note.textContent = t("gradient.note", values) + attn;
    return t("gradient.alt", values) + attn + t("common.fullStop");
  }

  const legend = [
    { mark: "line", colour: "query", text: t("gradient.legendPicked") },
    { mark: "line", colour: "other", text: t("gradient.legendOthers") },
  ];
  if (attention.length) legend.push({ mark: "dash", colour: "reference", text: t("gradient.legendAttention") });

  return mount(el, model, {
    label: t("gradient.label"),
    task: t(attention.length ? "gradient.task" : "gradient.taskAlone"),
    legend,
    controls: [
      {
        kind: "slider",
        name: "index",
        label: t("gradient.rho"),
        trait: "index",
        min: 0,
        max: rhos.length - 1,
        text: (i) => rhos[i].toFixed(2),
      },
    ],
    build,
    update,
  });
}

export default { render };
