// Sparsity explorer: which entries of the n × n score matrix local and block-sparse
// attention use, which they compute and throw away, and which they never compute.
// States: 2 = used (in the pattern), 1 = computed then masked, 0 = skipped.
// The same rules as attnbook.efficient: sliding_window_attention computes, for each query
// block of b rows, the key strip [start − w, start + b + w) (to start + b when causal);
// block_sparse_attention computes the b × b blocks its layout keeps.
import { label, mount, pixelImage, setText, svgEl, vlabel } from "./base.js";

// block_layout(n_blocks, local, global_blocks, stride, causal) of attnbook.efficient
export function blockLayout(nBlocks, params, causal) {
  const local = params.local ?? 1;
  const globalBlocks = params.global_blocks ?? 0;
  const stride = params.stride ?? 0;
  return Array.from({ length: nBlocks }, (_, I) =>
    Array.from({ length: nBlocks }, (_, J) => {
      const off = I - J;
      let on = Math.abs(off) <= local || I < globalBlocks || J < globalBlocks;
      if (stride > 0 && ((off % stride) + stride) % stride === 0) on = true;
      return on && (!causal || off >= 0);
    }),
  );
}

/** The n × n states of sliding-window attention, the cells it uses, and the scores it computes. */
export function slidingWindow(n, w, b, causal) {
  let used = 0;
  const states = Array.from({ length: n }, (_, i) => {
    const start = Math.floor(i / b) * b;
    const lo = start - w;
    const hi = start + b - 1 + (causal ? 0 : w);
    return Array.from({ length: n }, (_, j) => {
      const s = Math.abs(i - j) <= w && (!causal || j <= i) ? 2 : j >= lo && j <= hi ? 1 : 0;
      used += s === 2;
      return s;
    });
  });
  const computed = Math.ceil(n / b) * b * (b + w * (causal ? 1 : 2)); // padding included
  return { states, used, computed };
}

/** The same for block-sparse attention on the layout `params` of b × b blocks. */
export function blockSparse(n, b, params, causal) {
  const nBlocks = Math.ceil(n / b);
  const layout = blockLayout(nBlocks, params, causal);
  let used = 0;
  const states = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => {
      const s = layout[Math.floor(i / b)][Math.floor(j / b)] ? (!causal || j <= i ? 2 : 1) : 0;
      used += s === 2;
      return s;
    }),
  );
  const blocks = layout.flat().filter(Boolean).length;
  return { states, used, computed: blocks * b * b, blocks, nBlocks };
}

// skipped, computed then masked, used: light and dark
const STATES = {
  light: [
    [241, 243, 245],
    [246, 190, 120],
    [0, 114, 178],
  ],
  dark: [
    [42, 47, 53],
    [150, 92, 30],
    [86, 180, 233],
  ],
};
const LEGEND = ["never computed", "computed, then masked", "used"];
const pct = (x) => `${(100 * x).toFixed(1)}%`;

function render({ model, el }) {
  const n = model.get("n");
  const layouts = model.get("layout_params");
  let parts;

  function build(ui) {
    const { svg, width: W, narrow, dark } = ui;
    const P = narrow ? W - 30 : Math.min(300, Math.floor((W - 60) / 2));
    const lefts = narrow ? [24, 24] : [24, 24 + P + 40];
    const tops = narrow ? [48, 48 + P + 112] : [48, 48];
    parts = { panels: [] };
    for (let k = 0; k < 2; k++) {
      const [x0, top] = [lefts[k], tops[k]];
      const panel = {
        title: label(svg, x0, top - 30, "", "start", "ae-title"),
        subtitle: label(svg, x0, top - 12, "", "start", "ae-muted"),
        image: svgEl("image", { x: x0, y: top, width: P, height: P, preserveAspectRatio: "none" }, svg),
        used: label(svg, x0, top + P + 38, ""),
        computed: label(svg, x0, top + P + 56, ""),
      };
      panel.image.style.imageRendering = "pixelated";
      svgEl("rect", { x: x0, y: top, width: P, height: P, class: "ae-frame" }, svg);
      label(svg, x0 + P / 2, top + P + 16, `key position j (0…${n - 1})`, "middle");
      vlabel(svg, x0 - 10, top + P / 2, "query position i");
      parts.panels.push(panel);
    }
    const y = tops[1] + P + 72;
    const colours = STATES[dark ? "dark" : "light"];
    LEGEND.forEach((text, s) => {
      const x = narrow ? lefts[0] : lefts[0] + [0, 150, 340][s];
      const ly = narrow ? y + s * 20 : y;
      svgEl("rect", { x, y: ly, width: 12, height: 12, fill: `rgb(${colours[s]})`, class: "ae-outline" }, svg);
      label(svg, x + 18, ly + 11, text);
    });
    ui.size(narrow ? y + 60 : y + 20);
  }

  function update(ui) {
    const { window: w, block: b, layout: name, causal } = ui.values;
    const colours = STATES[ui.dark ? "dark" : "light"];
    const sw = slidingWindow(n, w, b, causal);
    const bs = blockSparse(n, b, layouts[name], causal);
    const texts = [
      [`sliding window |i − j| ≤ ${w}`, `query blocks of ${b}, key strips of ${b + w * (causal ? 1 : 2)}`, sw],
      [`block-sparse: ${name}`, `${bs.blocks} of ${bs.nBlocks}×${bs.nBlocks} blocks of ${b}×${b}`, bs],
    ];
    texts.forEach(([title, subtitle, r], k) => {
      const panel = parts.panels[k];
      setText(panel.title, title);
      setText(panel.subtitle, subtitle);
      pixelImage(panel.image, n, n, (i, j) => colours[r.states[i][j]]);
      setText(panel.used, `used ${r.used} = ${pct(r.used / (n * n))} of n²`);
      setText(panel.computed, `computed ${r.computed} = ${pct(r.computed / (n * n))} of n² (padding included)`);
    });
    const summary =
      `Sliding window: ${pct(sw.computed / (n * n))} computed for ${pct(sw.used / (n * n))} used; ` +
      `block-sparse: ${pct(bs.computed / (n * n))} computed for ${pct(bs.used / (n * n))} used.`;
    ui.note.textContent = `n = ${n}: full attention computes all ${n * n} scores. ${summary}`;
    return `${causal ? "Causal" : "Bidirectional"}, n = ${n}, window ${w}, blocks of ${b}, ${name} layout. ${summary}`;
  }

  return mount(el, model, {
    label:
      "Two n × n score matrices, sliding-window and block-sparse: cells used, computed then masked, or never computed",
    controls: [
      {
        kind: "slider",
        name: "window",
        label: "window w",
        trait: "window",
        min: 0,
        max: Math.floor(n / 2),
        text: String,
      },
      {
        kind: "slider",
        name: "block",
        label: "block b",
        trait: "block",
        min: 1,
        max: Math.floor(n / 2),
        text: String,
      },
      {
        kind: "picker",
        name: "layout",
        label: "layout",
        trait: "layout_name",
        options: Object.keys(layouts).map((k) => [k, k]),
      },
      {
        kind: "picker",
        name: "causal",
        label: "mask",
        trait: "causal",
        options: [
          [false, "bidirectional (encoder)"],
          [true, "causal (decoder)"],
        ],
      },
    ],
    build,
    update,
  });
}

export default { render };
