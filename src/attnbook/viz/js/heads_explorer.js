// Heads explorer (§3.2.2): pick which heads to keep and a query position. Left: each
// head's weights of that query over the keys (removed heads faded). Right: each head's
// contribution head_i W_O_i to the output, and their sum over the kept heads.
import { colourKey, diverging, fmt, label, mount, setAttrs, setText, svgEl } from "./base.js";

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

function render({ model, el }) {
  const tokens = model.get("tokens");
  const weights = model.get("weights"); // (h, T, T)
  const contributions = model.get("contributions"); // (h, T, d_model)
  const predictions = model.get("predictions"); // (2^h − 1, T)
  const targets = model.get("targets"); // (T,)
  const subsets = model.get("subsets");
  const h = weights.length;
  const T = tokens.length;
  const d = contributions[0][0].length;
  const limits = tokens.map((_, i) => colourLimit(contributions, i));
  const rowH = 24;
  let parts;

  function build(ui) {
    const { svg, width: W, narrow, dark } = ui;
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
    label(svg, cx, cTop - 26, "each head's share of the output", "start", "ae-title");
    parts.tokens = tokens.map((tok, j) => label(svg, left + j * cell + cell / 2, top - 8, tok, "middle"));
    for (let k = 0; k < h; k++) {
      const y = top + k * rowH;
      const head = { name: label(svg, left - 6, y + 16, "", "end"), cells: [], strip: [] };
      for (let j = 0; j < T; j++) {
        const attrs = { x: left + j * cell, y: y + 2, width: cell - 2, height: rowH - 4 };
        svgEl("rect", { ...attrs, class: "ae-panel" }, svg);
        head.cells.push(svgEl("rect", { ...attrs, class: `ae-fill ae-c${k % 6}` }, svg));
      }
      if (narrow) label(svg, cx - 6, cTop + k * rowH + 16, `head ${k}`, "end");
      for (let c = 0; c < d; c++) {
        const attrs = { x: cx + c * cw, y: cTop + k * rowH + 2, width: cw - 1, height: rowH - 4 };
        head.strip.push(svgEl("rect", attrs, svg));
      }
      parts.heads.push(head);
    }
    parts.column = svgEl("rect", { y: top - 22, width: cell, height: h * rowH + 24, class: "ae-frame" }, svg);
    const ys = cTop + h * rowH + 8;
    label(svg, cx - 6, ys + 16, "Σ kept", "end", "ae-title");
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
    label(svg, left, top + h * rowH + 18, "key position (* marked, grey: masked)", "start", "ae-muted");
    colourKey(svg, cx + 14, ys + rowH + 8, 100, (t) => diverging(2 * t - 1, dark), "−", "+ (output dims)");
    ui.size(ys + rowH + 26);
  }

  function update(ui) {
    const { heads: s, query: i } = ui.values;
    const kept = keptHeads(s, h);
    const limit = limits[i];
    setText(parts.title, `weights of query ${i} ("${tokens[i]}") over the keys`);
    parts.tokens.forEach((node, j) => node.setAttribute("class", j > i ? "ae-faint" : ""));
    parts.heads.forEach((head, k) => {
      const on = kept.includes(k);
      setText(head.name, on ? `head ${k}` : `head ${k} ✕`);
      head.name.setAttribute("class", on ? "ae-title" : "ae-faint");
      weights[k][i].forEach((w, j) => head.cells[j].setAttribute("fill-opacity", (on ? 1 : 0.3) * Math.max(0.02, w)));
      contributions[k][i].forEach((v, c) => {
        setAttrs(head.strip[c], { fill: diverging(v / limit, ui.dark), "fill-opacity": on ? 1 : 0.15 });
      });
    });
    parts.column.setAttribute("x", parts.left + i * parts.cell - 1);
    const sum = keptSum(contributions, i, kept);
    sum.forEach((v, c) => parts.sum[c].setAttribute("fill", diverging(v / limit, ui.dark)));
    const answer = predictions[s - 1][i];
    const target = targets[i];
    const verdict =
      target === ""
        ? "no answer is asked here (the key comes later or is the previous token)"
        : `answer ${target}; keeping ${subsets[s - 1]} the model says ${answer} ` +
          (answer === target ? "✓ (right)" : "✗ (wrong)");
    const norm = Math.sqrt(sum.reduce((acc, v) => acc + v * v, 0));
    ui.note.textContent = `query ${i}: ${verdict} · |Σ kept contributions| = ${fmt(norm, 2)}`;
    const looks = kept
      .map((k) => {
        const row = weights[k][i];
        const j = row.indexOf(Math.max(...row));
        return `head ${k} looks most at key ${j} ("${tokens[j]}", ${fmt(row[j], 2)})`;
      })
      .join("; ");
    return `Query ${i} ("${tokens[i]}"), keeping ${subsets[s - 1]}: ${looks}. ${verdict}.`;
  }

  return mount(el, model, {
    label: "Each head's attention weights for one query, each head's share of the output, and their sum",
    controls: [
      {
        kind: "picker",
        name: "heads",
        label: "heads kept",
        trait: "heads",
        options: subsets.map((text, s) => [s + 1, text]),
      },
      {
        kind: "slider",
        name: "query",
        label: "query position",
        trait: "query",
        min: 0,
        max: T - 1,
        text: (i) => `${i} ("${tokens[i]}")`,
      },
    ],
    build,
    update,
  });
}

export default { render };
