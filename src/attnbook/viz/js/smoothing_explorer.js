// Label-smoothing explorer (§5.4; Szegedy et al. 2016): for the chosen ε and number of
// classes V, the smoothed target
//   q'(k) = (1 − ε) δ_{k,y} + ε / V
// and the loss H(q', p) = −Σ_k q'(k) log p(k) of a prediction p whose logit for the right
// class y exceeds every other logit by a margin m:
//   p(y) = e^m / (e^m + V − 1),  p(k ≠ y) = 1 / (e^m + V − 1).
// With ε = 0 the loss keeps falling as m grows; with ε > 0 it is smallest at p = q', i.e.
// m* = log(q'(y) / q'(k≠y)), where it equals the entropy H(q').
import {
  COLOUR,
  axes,
  fmt,
  label,
  linear,
  mount,
  niceTicks,
  pool,
  setAttrs,
  setText,
  svgEl,
  twoPanels,
} from "./base.js";
import { translator } from "./strings.js";

const M_MAX = 16; // the margins drawn: 0 … 16

export function smoothed(epsilon, V) {
  const other = epsilon / V;
  return { right: 1 - epsilon + other, other };
}

export function lossAtMargin(m, epsilon, V) {
  const { right, other } = smoothed(epsilon, V);
  const logZ = Math.log(Math.exp(m) + V - 1);
  return -(right * (m - logZ) + (V - 1) * other * -logZ);
}

function render({ model, el }) {
  const t = translator(el, model);
  let parts;

  function build(ui) {
    const { svg } = ui;
    const [A, B] = twoPanels(ui, { top: 30, height: 170, margin: 56, gap: 86 });
    parts = { A, B, bars: pool(svg, "rect") };
    // panel A: q'(k) for every class, the right one first
    label(svg, 4, A.y0 - 14, t("smoothing.targetTitle"), "start", "ae-title");
    axes(svg, { ...A, yTitle: "q'(k)" }).yTicks(niceTicks(0, 1, 4), linear(0, 1, A.y1, A.y0));
    parts.classes = label(svg, (A.x0 + A.x1) / 2, A.y1 + 20, "", "middle");
    parts.right = label(svg, 0, 0, "");
    parts.other = label(svg, A.x1, 0, "", "end");
    // panel B: H(q', p) against the logit margin m of p
    label(svg, B.x0 - 52, B.y0 - 14, t("smoothing.lossTitle"), "start", "ae-title");
    const bAxes = axes(svg, {
      ...B,
      xTitle: t("smoothing.marginAxis"),
      yTitle: t("smoothing.lossAxis"),
      yTitleX: B.x0 - 44,
    });
    parts.bAxes = bAxes;
    parts.XB = linear(0, M_MAX, B.x0, B.x1);
    bAxes.xTicks(niceTicks(0, M_MAX, 4), parts.XB);
    parts.curve = svgEl("polyline", { class: `ae-stroke ${COLOUR.main}`, "stroke-width": 2.5 }, svg);
    parts.drop = svgEl("line", { class: `ae-stroke ${COLOUR.highlight}`, "stroke-dasharray": "3 3" }, svg);
    parts.best = svgEl("circle", { r: 4.5, class: `ae-fill ${COLOUR.highlight}` }, svg);
    parts.bestText = label(svg, 0, 0, "");
    ui.size(B.y1 + 40);
  }

  function update(ui) {
    const { epsilon, V } = ui.values;
    const { A, B, XB } = parts;
    const { right, other } = smoothed(epsilon, V);
    const YA = linear(0, 1, A.y1, A.y0);
    const bw = (A.x1 - A.x0) / V;
    for (let k = 0; k < V; k++) {
      const v = k === 0 ? right : other;
      const gap = bw > 3 ? 0.5 : 0;
      setAttrs(parts.bars.get(k), {
        x: A.x0 + k * bw + gap,
        y: YA(v),
        width: Math.max(0.6, bw - 2 * gap),
        height: Math.max(0.5, A.y1 - YA(v)),
        class: `ae-fill ${k === 0 ? COLOUR.main : COLOUR.other}`,
      });
    }
    parts.bars.trim(V);
    setText(parts.classes, t("smoothing.classAxis", { V }));
    setAttrs(parts.right, { x: A.x0 + bw + 6, y: YA(right) + 14 });
    setText(parts.right, t("smoothing.rightValue", { value: right.toFixed(3) }));
    setAttrs(parts.other, { y: Math.min(YA(0.12), YA(other) - 8) });
    setText(parts.other, t("smoothing.otherValue", { value: other.toFixed(4) }));

    const losses = [];
    for (let i = 0; i <= 160; i++) losses.push(lossAtMargin((M_MAX * i) / 160, epsilon, V));
    const top = Math.max(...losses) * 1.05;
    const YB = linear(0, top, B.y1, B.y0);
    parts.bAxes.yTicks(niceTicks(0, top, 4), YB);
    parts.curve.setAttribute(
      "points",
      losses.map((v, i) => `${XB((M_MAX * i) / 160).toFixed(1)},${YB(v).toFixed(1)}`).join(" "),
    );
    const mStar = epsilon > 0 ? Math.log(right / other) : Infinity;
    const visible = mStar <= M_MAX;
    const best = visible ? lossAtMargin(mStar, epsilon, V) : 0;
    for (const node of [parts.drop, parts.best]) node.setAttribute("visibility", visible ? "visible" : "hidden");
    if (visible) {
      setAttrs(parts.drop, { x1: XB(mStar), x2: XB(mStar), y1: YB(best), y2: B.y1 });
      setAttrs(parts.best, { cx: XB(mStar), cy: YB(best) });
    }
    const atEnd = XB(mStar) > (B.x0 + B.x1) / 2;
    setAttrs(parts.bestText, {
      x: visible ? XB(mStar) + (atEnd ? -8 : 8) : B.x1,
      y: visible ? YB(best) - 10 : B.y0 + 10,
      "text-anchor": visible && !atEnd ? "start" : "end",
    });
    setText(
      parts.bestText,
      visible
        ? t("smoothing.minimumAt", { m: mStar.toFixed(2) })
        : epsilon > 0
          ? t("smoothing.minimumBeyond", { m: M_MAX })
          : t("smoothing.noMinimum"),
    );
    const eps = epsilon.toFixed(2);
    if (epsilon > 0) {
      const H = -(right * Math.log(right) + (V - 1) * other * Math.log(other));
      ui.note.textContent = t("smoothing.note", {
        eps,
        V,
        right: right.toFixed(3),
        m: mStar.toFixed(2),
        H: H.toFixed(3),
        perplexity: (1 / right).toFixed(3),
      });
    } else ui.note.textContent = t("smoothing.noteOneHot", { V });
    const where = epsilon > 0 ? t("smoothing.smallestAt", { m: fmt(mStar, 2) }) : t("smoothing.keepsFalling");
    return t("smoothing.alt", { eps, V, right: right.toFixed(3), other: other.toFixed(4), others: V - 1, where });
  }

  return mount(el, model, {
    label: t("smoothing.label"),
    task: t("smoothing.task"),
    legend: [
      { mark: "bar", colour: "main", text: t("smoothing.legendRight") },
      { mark: "bar", colour: "other", text: t("smoothing.legendOthers") },
      { mark: "line", colour: "main", text: t("smoothing.legendLoss") },
      { mark: "dot", colour: "highlight", text: t("smoothing.legendMinimum") },
    ],
    controls: [
      {
        kind: "slider",
        name: "epsilon",
        label: "ε",
        trait: "epsilon",
        min: 0,
        max: 0.5,
        step: 0.01,
        text: (e) => e.toFixed(2),
      },
      { kind: "slider", name: "V", label: t("smoothing.classes"), trait: "V", min: 2, max: 100, text: String },
    ],
    build,
    update,
  });
}

export default { render };
