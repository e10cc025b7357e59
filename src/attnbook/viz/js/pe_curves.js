// PE curves explorer (§3.5): one dimension of the sinusoidal encoding over all positions
// (and its sin/cos partner, dashed), with a marker at pos; below, the whole vector PE(pos).
import {
  COLOUR,
  axes,
  diverging,
  fmt,
  label,
  linear,
  mount,
  niceTicks,
  pool,
  setAttrs,
  setText,
  svgEl,
} from "./base.js";
import { layoutPicker, pairOf, partnerOf, pe } from "./positional.js";
import { translator } from "./strings.js";

function render({ model, el }) {
  const t = translator(el, model);
  const d = model.get("d_model");
  const L = model.get("max_len");
  const base = model.get("base");
  let parts;

  function build(ui) {
    const { svg, width: W } = ui;
    const x0 = 44;
    const x1 = W - 10;
    const top = 44;
    const H = ui.narrow ? 130 : 160;
    const X = linear(0, L - 1, x0, x1);
    const Y = linear(-1, 1, top + H, top);
    const stripY = top + H + 74;
    const cw = (x1 - x0) / d;
    parts = { X, Y, cw, x0, top, H, stripY };
    parts.title = label(svg, 4, 14, "", "start", "ae-title");
    parts.legend = label(svg, 4, 32, "", "start", "ae-muted");
    const frame = axes(svg, { x0, x1, y0: top, y1: top + H, xTitle: t("positional.pos"), grid: true });
    frame.xTicks(niceTicks(0, L - 1, ui.narrow ? 4 : 8), X);
    frame.yTicks(niceTicks(-1, 1, 2), Y);
    parts.partner = svgEl(
      "polyline",
      { class: `ae-stroke ${COLOUR.other}`, "stroke-width": 1.3, "stroke-dasharray": "4 3" },
      svg,
    );
    parts.curve = svgEl("polyline", { class: `ae-stroke ${COLOUR.main}`, "stroke-width": 2 }, svg);
    const cursor = { y1: top, y2: top + H, class: `ae-stroke ${COLOUR.query}`, "stroke-dasharray": "2 2" };
    parts.cursor = svgEl("line", cursor, svg);
    parts.dot = svgEl("circle", { r: 5, class: `ae-fill ${COLOUR.query}` }, svg);
    parts.stripTitle = label(svg, x0, stripY - 8, "", "start", "ae-title");
    parts.cells = pool(svg, "rect", { y: stripY, height: 26 });
    for (let c = 0; c < d; c++) setAttrs(parts.cells.get(c), { x: x0 + c * cw, width: Math.max(cw - 0.5, 0.5) });
    parts.mark = svgEl(
      "rect",
      { y: stripY - 2, width: cw + 2, height: 30, class: `ae-stroke ${COLOUR.query}`, "stroke-width": 2 },
      svg,
    );
    for (const c of [0, d / 2, d - 1]) label(svg, x0 + (c + 0.5) * cw, stripY + 42, String(c), "middle");
    label(svg, x0, stripY + 62, t("positional.dimension"), "start");
    ui.size(stripY + 72);
  }

  function curve(dim, layout) {
    const n = Math.max(2 * L, 400);
    const points = [];
    for (let s = 0; s <= n; s++) {
      const pos = ((L - 1) * s) / n;
      points.push(`${parts.X(pos).toFixed(1)},${parts.Y(pe(pos, dim, d, base, layout)).toFixed(1)}`);
    }
    return points.join(" ");
  }

  function update(ui) {
    const { pos, dim, layout } = ui.values;
    const partner = partnerOf(dim, d, layout);
    const { i, isCos } = pairOf(dim, d, layout);
    const fn = isCos ? "cos" : "sin";
    const omega = i === 0 ? "ω₀" : `ω_${i}`;
    setText(parts.title, t("peCurves.title", { dim, fn, omega }));
    setText(parts.legend, t("peCurves.partner", { dim, partner }));
    const key = `${dim} ${layout}`;
    if (parts.drawn !== key) {
      parts.curve.setAttribute("points", curve(dim, layout));
      parts.partner.setAttribute("points", curve(partner, layout));
      parts.drawn = key;
    }
    const value = pe(pos, dim, d, base, layout);
    setAttrs(parts.cursor, { x1: parts.X(pos), x2: parts.X(pos) });
    setAttrs(parts.dot, { cx: parts.X(pos), cy: parts.Y(value) });
    setText(parts.stripTitle, t("peCurves.stripTitle", { pos, d }));
    for (let c = 0; c < d; c++)
      parts.cells.get(c).setAttribute("fill", diverging(pe(pos, c, d, base, layout), ui.dark));
    parts.mark.setAttribute("x", parts.x0 + dim * parts.cw - 1);
    const lam = 2 * Math.PI * base ** ((2 * i) / d);
    ui.note.textContent = t("peCurves.note", {
      pos,
      dim,
      fn,
      base,
      twoI: 2 * i,
      d,
      value: fmt(value, 4),
      i,
      wavelength: lam.toFixed(1),
    });
    return t("peCurves.alt", {
      dim,
      fn,
      i,
      wavelength: lam.toFixed(1),
      last: L - 1,
      pos,
      value: fmt(value, 3),
      d,
    });
  }

  return mount(el, model, {
    label: t("peCurves.label"),
    task: t("peCurves.task"),
    legend: [
      { mark: "line", colour: "main", text: t("peCurves.legendCurve") },
      { mark: "dash", colour: "other", text: t("peCurves.legendPartner") },
      { mark: "dot", colour: "query", text: t("peCurves.legendPos") },
      { mark: "frame", colour: "query", text: t("peCurves.legendDim") },
      { ramp: "diverging", low: "−1", high: "+1", text: t("positional.legendValue") },
    ],
    controls: [
      { kind: "slider", name: "pos", label: t("positional.pos"), trait: "pos", min: 0, max: L - 1, text: String },
      { kind: "slider", name: "dim", label: t("positional.dimension"), trait: "dim", min: 0, max: d - 1, text: String },
      layoutPicker(t),
    ],
    build,
    update,
  });
}

export default { render };
