// Heads explorer (§3.2.2): switch heads on and off, one by one, and pick a query position.
// Left: each head's weights of that query over the keys (switched-off heads in grey). Right:
// each head's contribution head_i W_O_i to the output, and their sum over the kept heads.
import { COLOUR, diverging, fmt, label, mount, setAttrs, setText, svgEl } from "./base.js";
import { translator } from "./strings.js";

/** The heads whose bits are set in the mask s. */
export function keptHeads(s, h) {
  return [...Array(h).keys()].filter((k) => (s >> k) & 1);
}

/** Σ over the kept heads of head_k W_O_k at query i: (d_model,). */
export function keptSum(contributions, i, kept) {
  return contributions[0][i].map((_, c) => kept.reduce((acc, k) => acc + contributions[k][i][c], 0));
}

/** The largest |value| any head's contribution or the all-heads sum takes at query i. */
export function colourLimit(contributions, i) {
  const all = keptSum(contributions, i, [...contributions.keys()]);
  const each = contributions.flatMap((head) => head[i]);
  return Math.max(1e-9, ...all.map(Math.abs), ...each.map(Math.abs));
}

/** The kept heads in words, counted from 1: "all 4 heads", "head 2", "heads 1 + 3". */
export function keptName(kept, h, t) {
  if (kept.length === h && h > 1) return t("heads.all", { h });
  if (kept.length === 1) return t("common.headN", { n: kept[0] + 1 });
  return t("heads.some", { list: kept.map((k) => k + 1).join(" + ") });
}

function render({ model, el }) {
  const t = translator(el, model);
  const tokens = model.get("tokens");
  const weights = model.get("weights"); // (h, T, T)
  const contributions = model.get("contributions"); // (h, T, d_model)
  const predictions = model.get("predictions"); // (2^h − 1, T): row s − 1 keeps the heads of mask s
  const targets = model.get("targets"); // (T,)
  const h = weights.length;
  const T = tokens.length;
  const d = contributions[0][0].length;
  const limits = tokens.map((_, i) => colourLimit(contributions, i));
  const rowH = 24;
  let parts;

  function build(ui) {
    const { svg, width: W, narrow } = ui;
    const left = 70;
    const cw = narrow
      ? Math.max(2, Math.floor((W - left - 4) / d))
      : Math.max(3, Math.min(8, Math.floor((0.4 * W) / d)));
    const room = narrow ? W - left - 4 : W - left - 34 - d * cw;
    const cell = Math.max(10, Math.min(26, Math.floor(room / T)));
    const top = 50;
    const cx = narrow ? left : left + T * cell + 30;
    const cTop = narrow ? top + h * rowH + 76 : top;
    parts = { heads: [], cell, left, top };
    parts.title = label(svg, 4, 14, "", "start", "ae-title");
    label(svg, cx, cTop - 26, t("heads.shares"), "start", "ae-title");
    parts.tokens = tokens.map((tok, j) => label(svg, left + j * cell + cell / 2, top - 8, tok, "middle"));
    for (let k = 0; k < h; k++) {
      const y = top + k * rowH;
      const head = { name: label(svg, left - 6, y + 16, "", "end"), cells: [], strip: [] };
      for (let j = 0; j < T; j++) {
        const attrs = { x: left + j * cell, y: y + 2, width: cell - 2, height: rowH - 4 };
        svgEl("rect", { ...attrs, class: "ae-panel" }, svg);
        head.cells.push(svgEl("rect", attrs, svg));
      }
      if (narrow) label(svg, cx - 6, cTop + k * rowH + 16, t("common.headN", { n: k + 1 }), "end");
      for (let c = 0; c < d; c++) {
        const attrs = { x: cx + c * cw, y: cTop + k * rowH + 2, width: cw - 1, height: rowH - 4 };
        head.strip.push(svgEl("rect", attrs, svg));
      }
      parts.heads.push(head);
    }
    parts.column = svgEl(
      "rect",
      { y: top - 22, width: cell, height: h * rowH + 24, class: `ae-stroke ${COLOUR.query}`, "stroke-width": 2 },
      svg,
    );
    const ys = cTop + h * rowH + 8;
    label(svg, cx - 6, ys + 16, t("heads.sum"), "end", "ae-title");
    parts.sum = [...Array(d).keys()].map((c) =>
      svgEl(
        "rect",
        {
          x: cx + c * cw,
          y: ys + 2,
          width: cw - 1,
          height: rowH - 4,
          class: "ae-outline",
          "stroke-width": 0.3,
        },
        svg,
      ),
    );
    label(svg, left, top + h * rowH + 18, t("heads.keyAxis"), "start", "ae-muted");
    label(svg, cx, ys + rowH + 16, t("heads.outputAxis"), "start", "ae-muted");
    ui.size(ys + rowH + 24);
  }

  function update(ui) {
    const { heads: s, query: i } = ui.values;
    const kept = keptHeads(s, h);
    const limit = limits[i];
    setText(parts.title, t("heads.title", { i, token: tokens[i] }));
    parts.tokens.forEach((node, j) => node.setAttribute("class", j === i ? "ae-title" : j > i ? "ae-faint" : ""));
    parts.heads.forEach((head, k) => {
      const on = kept.includes(k);
      const row = weights[k][i];
      const best = row.indexOf(Math.max(...row));
      setText(head.name, t(on ? "common.headN" : "heads.off", { n: k + 1 }));
      head.name.setAttribute("class", on ? "ae-title" : "ae-faint");
      row.forEach((w, j) => {
        // darker for more weight; a kept head's largest weight in the highlight, clearly seen
        const top = on && j === best;
        const colour = !on ? COLOUR.other : top ? COLOUR.highlight : COLOUR.main;
        setAttrs(head.cells[j], { class: `ae-fill ${colour}`, "fill-opacity": Math.max(top ? 0.6 : 0.02, w) });
      });
      contributions[k][i].forEach((v, c) => {
        setAttrs(head.strip[c], { fill: diverging(v / limit, ui.dark), "fill-opacity": on ? 1 : 0.15 });
      });
    });
    parts.column.setAttribute("x", parts.left + i * parts.cell - 1);
    const sum = keptSum(contributions, i, kept);
    sum.forEach((v, c) => parts.sum[c].setAttribute("fill", diverging(v / limit, ui.dark)));
    const answer = predictions[s - 1][i];
    const target = targets[i];
    const keptText = keptName(kept, h, t);
    const verdict =
      target === ""
        ? t("heads.noAnswer")
        : t(answer === target ? "heads.right" : "heads.wrong", { target, kept: keptText, answer });
    const norm = Math.sqrt(sum.reduce((acc, v) => acc + v * v, 0));
    ui.note.textContent = t("heads.note", { i, verdict, norm: fmt(norm, 2) });
    const looks = kept.map((k) => {
      const row = weights[k][i];
      const j = row.indexOf(Math.max(...row));
      return t("heads.looks", { n: k + 1, j, token: tokens[j], weight: fmt(row[j], 2) });
    });
    return t("heads.alt", {
      i,
      token: tokens[i],
      kept: keptText,
      looks: looks.join(t("common.clauseSeparator")),
      verdict,
    });
  }

  return mount(el, model, {
    label: t("heads.label"),
    task: t("heads.task"),
    legend: [
      { mark: "frame", colour: "query", text: t("heads.legendQuery") },
      { mark: "bar", colour: "main", text: t("heads.legendWeight") },
      { mark: "bar", colour: "highlight", text: t("heads.legendLargest") },
      { mark: "bar", colour: "other", text: t("heads.legendOff") },
      { ramp: "diverging", low: "−", high: "+", text: t("heads.legendShares") },
    ],
    controls: [
      {
        kind: "toggles",
        name: "heads",
        label: t("heads.kept"),
        trait: "heads",
        options: [...Array(h).keys()].map((k) => [k, t("common.headN", { n: k + 1 })]),
        atLeastOne: t("heads.keepOne"),
      },
      {
        kind: "slider",
        name: "query",
        label: t("heads.query"),
        trait: "query",
        min: 0,
        max: T - 1,
        text: (i) => t("heads.position", { i, token: tokens[i] }),
      },
    ],
    build,
    update,
  });
}

export default { render };
