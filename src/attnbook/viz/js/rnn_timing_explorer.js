// Timing explorer: the sequence length n is chosen in the browser; the chart shows the
// forward+backward times the chapter measured, on log–log axes, and bars at n.
import { COLOUR, SERIES, axes, fmt, label, line, linear, mount, setAttrs, setText, svgEl } from "./base.js";
import { translator } from "./strings.js";

/** A time in ms for a reader: µs below 1 ms, whole ms from 10 ms on. */
export function duration(ms) {
  if (ms >= 1) return `${fmt(ms, ms >= 10 ? 0 : 1)} ms`;
  return `${fmt(ms * 1000, 0)} µs`;
}

function render({ model, el }) {
  const t = translator(el, model);
  const lengths = model.get("lengths");
  const labels = model.get("labels");
  const times = model.get("times_ms");
  const all = times.flat();
  const lo = Math.floor(Math.log10(Math.min(...all)));
  const hi = Math.ceil(Math.log10(Math.max(...all)));
  let parts;

  function build(ui) {
    const { svg, width: W, narrow } = ui;
    const box = { x0: 72, x1: narrow ? W - 14 : Math.floor(0.55 * W), y0: 12, y1: 230 };
    const X = (n) =>
      linear(Math.log2(lengths[0]), Math.log2(lengths[lengths.length - 1]), box.x0, box.x1)(Math.log2(n));
    const Y = (ms) => linear(lo, hi, box.y1, box.y0)(Math.log10(ms));
    parts = { X, Y, box, bars: [] };
    const frame = axes(svg, { ...box, xTitle: t("timing.lengthAxis"), yTitle: t("timing.timeAxis"), grid: true });
    frame.xTicks(
      lengths.map((n) => ({ value: n, label: String(n) })),
      X,
    );
    const decades = [];
    for (let e = lo; e <= hi; e++) decades.push({ value: 10 ** e, label: duration(10 ** e) });
    frame.yTicks(decades, Y);
    parts.cursor = line(svg, 0, box.y0, 0, box.y1, `ae-stroke ${COLOUR.query}`);
    parts.cursor.setAttribute("stroke-dasharray", "4 3");
    const bx = narrow ? 4 : box.x1 + 40;
    const by = narrow ? box.y1 + 64 : box.y0 + 4;
    parts.heading = label(svg, bx, by, "", "start", "ae-title");
    parts.barMax = W - bx - 80;
    times.forEach((series, j) => {
      const [cls, dash] = SERIES[j % SERIES.length];
      const d = series.map((ms, k) => `${k ? "L" : "M"}${X(lengths[k]).toFixed(1)},${Y(ms).toFixed(1)}`).join("");
      svgEl("path", { d, class: `ae-stroke ${cls}`, "stroke-width": 2, "stroke-dasharray": dash }, svg);
      const y = by + 22 + j * 44;
      label(svg, bx, y + 2, labels[j], "start", `ae-fill ${cls}`);
      parts.bars.push({
        dot: svgEl("circle", { r: 4.5, class: `ae-fill ${cls}` }, svg),
        bar: svgEl("rect", { x: bx, y: y + 8, height: 16, class: `ae-fill ${cls}` }, svg),
        value: label(svg, 0, y + 21, ""),
      });
    });
    parts.bx = bx;
    ui.size(Math.max(box.y1 + 44, by + 22 + times.length * 44));
  }

  function update(ui) {
    const i = ui.values.index;
    const n = lengths[i];
    const { X, Y } = parts;
    setAttrs(parts.cursor, { x1: X(n), x2: X(n) });
    setText(parts.heading, t("timing.heading", { n }));
    const maxMs = Math.max(...times.map((s) => s[i]));
    times.forEach((series, j) => {
      const { dot, bar, value } = parts.bars[j];
      const w = Math.max(1, (parts.barMax * series[i]) / maxMs);
      setAttrs(dot, { cx: X(n), cy: Y(series[i]) });
      bar.setAttribute("width", w);
      value.setAttribute("x", parts.bx + w + 4);
      setText(value, duration(series[i]));
    });
    const order = labels.map((l, j) => [times[j][i], l]).sort((a, b) => a[0] - b[0]);
    const [fast, slow] = [order[0], order[order.length - 1]];
    const apart = (slow[0] / fast[0]).toFixed(1);
    ui.note.textContent = t("timing.note", {
      n,
      fast: fast[1],
      fastTime: duration(fast[0]),
      slow: slow[1],
      slowTime: duration(slow[0]),
      apart,
    });
    const listed = order.map(([ms, l]) => t("timing.pair", { layer: l, time: duration(ms) }));
    return t("timing.alt", { n, times: listed.join(t("common.listSeparator")), apart });
  }

  return mount(el, model, {
    label: t("timing.label"),
    task: t("timing.task"),
    legend: [
      ...labels.map((text, j) => ({ mark: "dash", series: j, text })),
      { mark: "dash", colour: "query", text: t("timing.legendLength") },
    ],
    controls: [
      {
        kind: "slider",
        name: "index",
        label: t("timing.length"),
        trait: "index",
        min: 0,
        max: lengths.length - 1,
        text: (i) => String(lengths[i]),
      },
    ],
    build,
    update,
  });
}

export default { render };
