// Schedule explorer: the paper's learning rate, Eq. (3) of §5.3,
//   lrate = d_model^-0.5 · min(step^-0.5, step · warmup^-1.5),
// recomputed in the browser for the chosen d_model and warmup, beside the paper's base
// setting (d_model = 512, warmup = 4000). Its peak, at step = warmup, is (d_model · warmup)^-0.5.
import { COLOUR, axes, choiceSlider, fmt, linear, mount, niceTicks, setAttrs, svgEl } from "./base.js";
import { translator } from "./strings.js";

const PAPER = { d_model: 512, warmup: 4000 };

export function lrate(step, d_model, warmup) {
  return d_model ** -0.5 * Math.min(step ** -0.5, step * warmup ** -1.5);
}

function render({ model, el }) {
  const t = translator(el, model);
  const dModels = model.get("d_models");
  const steps = model.get("steps");
  let parts;

  function build(ui) {
    const { svg, width: W, narrow } = ui;
    const box = { x0: 72, x1: W - 30, y0: 12, y1: narrow ? 200 : 250 };
    parts = { box, X: linear(0, steps, box.x0, box.x1) };
    parts.axes = axes(svg, { ...box, xTitle: t("schedule.stepAxis"), yTitle: t("schedule.rateAxis"), grid: true });
    parts.axes.xTicks(
      niceTicks(0, steps, narrow ? 3 : 5).map((tick) => ({ ...tick, label: tick.value.toLocaleString("en") })),
      parts.X,
    );
    const paper = { class: `ae-stroke ${COLOUR.reference}`, "stroke-width": 1.5, "stroke-dasharray": "5 4" };
    parts.paper = svgEl("polyline", paper, svg);
    parts.curve = svgEl("polyline", { class: `ae-stroke ${COLOUR.main}`, "stroke-width": 2.5 }, svg);
    parts.drop = svgEl("line", { y2: box.y1, class: `ae-stroke ${COLOUR.highlight}`, "stroke-dasharray": "3 3" }, svg);
    parts.peak = svgEl("circle", { r: 4.5, class: `ae-fill ${COLOUR.highlight}` }, svg);
    ui.size(box.y1 + 42);
  }

  function curve(d, w, Y) {
    // denser samples near the start, where the warm-up ramp and the peak are
    const at = new Set([1, w, steps]);
    for (let i = 1; i < 400; i++) at.add(Math.max(1, Math.round(steps * (i / 400) ** 1.6)));
    return [...at]
      .sort((a, b) => a - b)
      .map((s) => `${parts.X(s).toFixed(1)},${Y(lrate(s, d, w)).toFixed(1)}`)
      .join(" ");
  }

  function update(ui) {
    const d = dModels[ui.values.d_model];
    const w = ui.values.warmup;
    const peak = lrate(w, d, w);
    const paperPeak = lrate(PAPER.warmup, PAPER.d_model, PAPER.warmup);
    const top = 1.1 * Math.max(peak, paperPeak);
    const { box, X } = parts;
    const Y = linear(0, top, box.y1, box.y0);
    parts.axes.yTicks(niceTicks(0, top, 4), Y);
    parts.paper.setAttribute("points", curve(PAPER.d_model, PAPER.warmup, Y));
    parts.curve.setAttribute("points", curve(d, w, Y));
    setAttrs(parts.drop, { x1: X(w), x2: X(w), y1: Y(peak) });
    setAttrs(parts.peak, { cx: X(w), cy: Y(peak) });
    const end = lrate(steps, d, w);
    const at = (s) => s.toLocaleString("en");
    ui.note.textContent = t("schedule.note", {
      peak: fmt(peak, 3),
      warmup: at(w),
      paperPeak: fmt(paperPeak, 3),
      steps: at(steps),
      end: fmt(end, 3),
      percent: ((100 * end) / peak).toFixed(0),
    });
    return t("schedule.alt", {
      d,
      warmup: at(w),
      peak: fmt(peak, 3),
      end: fmt(end, 3),
      steps: at(steps),
      paperPeak: fmt(paperPeak, 3),
    });
  }

  return mount(el, model, {
    label: t("schedule.label"),
    task: t("schedule.task"),
    legend: [
      { mark: "line", colour: "main", text: t("schedule.legendYours") },
      { mark: "dash", colour: "reference", text: t("schedule.legendPaper", PAPER) },
      { mark: "dot", colour: "highlight", text: t("schedule.legendPeak") },
    ],
    controls: [
      choiceSlider("d_model", "d_model", "d_model", dModels),
      {
        kind: "slider",
        name: "warmup",
        label: t("schedule.warmup"),
        trait: "warmup",
        min: 100,
        max: 16000,
        step: 100,
        text: String,
      },
    ],
    build,
    update,
  });
}

export default { render };
