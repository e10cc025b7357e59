// Gradient-decay explorer: the spectral radius ρ of W_hh is chosen in the browser; the curve
// is log10 ‖∂h_T/∂x_t‖ against the distance T − t, precomputed in Python for each ρ.
import { axes, label, line, linear, mount, niceTicks, powerOfTen, setAttrs, setText, svgEl } from "./base.js";

/** An SVG path through the points (X(k), Y(ys[k])). */
export function pathThrough(ys, X, Y) {
  return ys.map((v, k) => `${k ? "L" : "M"}${X(k).toFixed(1)},${Y(v).toFixed(1)}`).join("");
}

/**
 * How the gradient norm changes from distance 0 (the last input) to the farthest one: the
 * log10 of the factor, and what that means for learning from far back.
 */
export function decay(curve) {
  const change = curve[curve.length - 1] - curve[0];
  const verb = change < -0.5 ? "vanishes" : change > 0.5 ? "explodes" : "stays roughly level";
  return { change, verb };
}

function render({ model, el }) {
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
    const frame = axes(svg, {
      ...box,
      xTitle: "distance T − t (steps back)",
      yTitle: "‖∂h_T/∂x_t‖ (log scale)",
      grid: true,
    });
    frame.xTicks(niceTicks(0, T - 1, narrow ? 4 : 6), X);
    const step = Math.max(1, Math.ceil((yMax - yMin) / (narrow ? 5 : 8)));
    const powers = [];
    for (let v = yMin; v <= yMax; v += step) powers.push({ value: v, label: powerOfTen(v) });
    frame.yTicks(powers, Y);
    const others = svgEl("g", { class: "ae-stroke ae-off", "stroke-width": 1, "stroke-opacity": 0.45 }, svg);
    grid.forEach((ys) => svgEl("path", { d: pathThrough(ys, X, Y) }, others));
    if (attention.length) {
      const d = pathThrough(attention, X, Y);
      svgEl("path", { d, class: "ae-stroke ae-c2", "stroke-width": 2, "stroke-dasharray": "6 4" }, svg);
    }
    parts.curve = svgEl("path", { class: "ae-stroke ae-c1", "stroke-width": 2.5 }, svg);
    // the legend: one row under the axis title, one entry a row on a phone
    const entries = [
      ["ae-c1", "", 2.5],
      ["ae-off", "other ρ", 1.5],
    ];
    if (attention.length) entries.push(["ae-c2", "self-attention layer (path length 1)", 2, "6 4"]);
    const ly = box.y1 + 56;
    let lx = 4;
    parts.legend = entries.map(([cls, text, width, dash], k) => {
      const [x, y] = narrow ? [4, ly + 18 * k] : [lx, ly];
      const mark = line(svg, x, y - 4, x + 24, y - 4, `ae-stroke ${cls}`);
      setAttrs(mark, { "stroke-width": width, "stroke-dasharray": dash ?? null });
      lx += 30 + 7 * (text.length || 18) + 18;
      return label(svg, x + 30, y, text);
    });
    ui.size(narrow ? ly + 18 * entries.length - 6 : ly + 8);
  }

  function update(ui) {
    const i = ui.values.index;
    const curve = grid[i];
    const rho = rhos[i].toFixed(2);
    parts.curve.setAttribute("d", pathThrough(curve, parts.X, parts.Y));
    setText(parts.legend[0], `tanh RNN, ρ = ${rho}`);
    const tenth = (x) => Number(x.toFixed(1)).toFixed(1); // no "−0.0"
    const { change, verb } = decay(curve);
    const attn = attention.length ? `; one self-attention layer: 10^${tenth(decay(attention).change)}` : "";
    ui.note.textContent =
      `ρ = ${rho}: from distance 0 to ${T - 1} the gradient norm changes by a factor ` +
      `10^${tenth(change)}, so it ${verb}${attn}`;
    return `For ρ = ${rho} the gradient norm ${verb}: it changes by a factor of 10^${tenth(change)} over ${T - 1} steps${attn}.`;
  }

  return mount(el, model, {
    label: "Gradient norm of the last RNN state with respect to earlier inputs, against the distance, log scale",
    controls: [
      {
        kind: "slider",
        name: "index",
        label: "spectral radius ρ(W_hh)",
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
