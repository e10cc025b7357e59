// Rotation explorer (§3.5): M_k turns each (sin, cos) pair of PE(pos) by k·ω_i, whatever pos
// is: PE(pos + k) = M_k · PE(pos), every block [[cos kω, sin kω], [−sin kω, cos kω]].
import { COLOUR, fmt, label, line, mount, setAttrs, setText, svgEl } from "./base.js";
import { frequencies, peVector, rotate } from "./positional.js";
import { translator } from "./strings.js";

function render({ model, el }) {
  const t = translator(el, model);
  const d = model.get("d_model");
  const base = model.get("base");
  const half = d / 2;
  const omega = frequencies(d, base);
  let parts;

  function build(ui) {
    const { svg, width: W } = ui;
    const cols = Math.max(2, Math.min(4, half, Math.floor(W / 160)));
    const cell = Math.floor(W / cols);
    const R = Math.max(36, Math.min(56, Math.floor(0.3 * cell)));
    const rowH = 2 * R + 58;
    const top = 44;
    parts = { R, pairs: [] };
    parts.title = label(svg, 4, 14, "", "start", "ae-title");
    parts.subtitle = label(svg, 4, 32, "", "start", "ae-muted");
    for (let i = 0; i < half; i++) {
      const cx = (i % cols) * cell + cell / 2;
      const cy = top + Math.floor(i / cols) * rowH + R + 14;
      line(svg, cx - R - 8, cy, cx + R + 8, cy, "ae-grid");
      line(svg, cx, cy - R - 8, cx, cy + R + 8, "ae-grid");
      svgEl("circle", { cx, cy, r: R, class: "ae-frame" }, svg);
      label(svg, cx + R + 6, cy + 14, `d${2 * i}`, "end", "ae-muted");
      label(svg, cx - 4, cy - R - 2, `d${2 * i + 1}`, "end", "ae-muted");
      parts.pairs.push({
        cx,
        cy,
        arc: svgEl("polyline", { class: `ae-stroke ${COLOUR.main}`, "stroke-width": 2 }, svg),
        from: svgEl("line", { x1: cx, y1: cy, class: `ae-stroke ${COLOUR.query}` }, svg),
        to: svgEl("line", { x1: cx, y1: cy, class: `ae-stroke ${COLOUR.main}` }, svg),
        dot: svgEl("circle", { r: 5, class: `ae-fill ${COLOUR.query}` }, svg),
        ring: svgEl("circle", { r: 5, class: `ae-stroke ${COLOUR.main}`, "stroke-width": 2 }, svg),
        caption: label(svg, cx, cy + R + 24, "", "middle"),
      });
    }
    ui.size(top + Math.ceil(half / cols) * rowH);
  }

  function update(ui) {
    const { k, pos } = ui.values;
    const now = peVector(pos, d, base, "interleaved");
    const target = peVector(pos + k, d, base, "interleaved");
    const turned = rotate(now, k, base);
    const worst = Math.max(...turned.map((x, j) => Math.abs(x - target[j])));
    setText(parts.title, t("peRotation.title", { k, pos }));
    setText(parts.subtitle, t("peRotation.subtitle", { to: pos + k }));
    const R = parts.R;
    parts.pairs.forEach((p, i) => {
      const [s, c] = [now[2 * i], now[2 * i + 1]];
      const [ms, mc] = [turned[2 * i], turned[2 * i + 1]];
      const turn = k * omega[i];
      const shown = Math.sign(turn) * (Math.abs(turn) % (2 * Math.PI)); // whole turns dropped
      const points = [];
      for (let t = 0; t <= 40; t++) {
        const a = pos * omega[i] + (shown * t) / 40;
        points.push(`${(p.cx + 0.82 * R * Math.sin(a)).toFixed(1)},${(p.cy - 0.82 * R * Math.cos(a)).toFixed(1)}`);
      }
      p.arc.setAttribute("points", points.join(" "));
      setAttrs(p.from, { x2: p.cx + R * s, y2: p.cy - R * c });
      setAttrs(p.to, { x2: p.cx + R * ms, y2: p.cy - R * mc });
      setAttrs(p.dot, { cx: p.cx + R * s, cy: p.cy - R * c });
      setAttrs(p.ring, { cx: p.cx + R * ms, cy: p.cy - R * mc });
      const deg = (turn * 180) / Math.PI;
      const net = (shown * 180) / Math.PI;
      const digits = Math.abs(deg) < 10 ? 2 : Math.abs(deg) < 100 ? 1 : 0;
      const caption = t("peRotation.caption", { i, degrees: fmt(deg, digits) });
      setText(p.caption, Math.abs(deg) >= 360 ? `${caption} ≡ ${fmt(net, 0)}°` : caption);
    });
    const [c0, s0] = [Math.cos(k), Math.sin(k)];
    const block = `[[${c0.toFixed(3)}, ${s0.toFixed(3)}], [${(-s0).toFixed(3)}, ${c0.toFixed(3)}]]`;
    ui.note.textContent = t("peRotation.note", { k, block, worst: fmt(worst, 2) });
    const degrees = omega.map((w) => fmt((k * w * 180) / Math.PI, 2)).join(", ");
    return t("peRotation.alt", { k, pos, half, degrees, to: pos + k });
  }

  return mount(el, model, {
    label: t("peRotation.label"),
    task: t("peRotation.task"),
    legend: [
      { mark: "dot", colour: "query", text: t("peRotation.legendFrom") },
      { mark: "ring", colour: "main", text: t("peRotation.legendTo") },
      { mark: "line", colour: "main", text: t("peRotation.legendTurn") },
    ],
    controls: [
      {
        kind: "slider",
        name: "k",
        label: t("peRotation.offset"),
        trait: "k",
        min: -model.get("k_max"),
        max: model.get("k_max"),
        text: String,
      },
      {
        kind: "slider",
        name: "pos",
        label: t("positional.pos"),
        trait: "pos",
        min: 0,
        max: model.get("pos_max"),
        text: String,
      },
    ],
    build,
    update,
  });
}

export default { render };
