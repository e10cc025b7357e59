// Sparsity explorer: which entries of the n × n score matrix local and block-sparse
// attention use, which they compute and throw away, and which they never compute.
// States: 2 = used (in the pattern), 1 = computed then masked, 0 = skipped.
// The same rules as attnbook.efficient: sliding_window_attention computes, for each query
// block of b rows, the key strip [start − w, start + b + w) (to start + b when causal);
// block_sparse_attention computes the b × b blocks its layout keeps.
import { label, mount, pixelImage, setText, svgEl, vlabel } from "./base.js";
import { translator } from "./strings.js";

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

// skipped, computed then masked, used, light and dark: the colours of the panel background,
// COLOUR.other and COLOUR.main (explorer.css), for the pixel image
const STATES = {
  light: [
    [241, 243, 245],
    [154, 161, 169],
    [0, 114, 178],
  ],
  dark: [
    [42, 47, 53],
    [110, 118, 129],
    [86, 180, 233],
  ],
};
const pct = (x) => `${(100 * x).toFixed(1)}%`;

/** The string key of a layout's name ("local + global" → "sparsity.layout.local_global"). */
const layoutKey = (name) => `sparsity.layout.${name.replace(/\W+/g, "_")}`;

function render({ model, el }) {
  const t = translator(el, model);
  const n = model.get("n");
  const layouts = model.get("layout_params");
  let parts;

  function build(ui) {
    const { svg, width: W, narrow } = ui;
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
      label(svg, x0 + P / 2, top + P + 16, t("sparsity.keyAxis", { last: n - 1 }), "middle");
      vlabel(svg, x0 - 10, top + P / 2, t("sparsity.queryAxis"));
      parts.panels.push(panel);
    }
    ui.size(tops[1] + P + 64);
  }

  function update(ui) {
    const { window: w, block: b, layout: name, causal } = ui.values;
    const colours = STATES[ui.dark ? "dark" : "light"];
    const sw = slidingWindow(n, w, b, causal);
    const bs = blockSparse(n, b, layouts[name], causal);
    const layout = t(layoutKey(name));
    const strip = b + w * (causal ? 1 : 2);
    const texts = [
      [t("sparsity.windowTitle", { w }), t("sparsity.windowSubtitle", { b, strip }), sw],
      [
        t("sparsity.blockTitle", { layout }),
        t("sparsity.blockSubtitle", { blocks: bs.blocks, grid: bs.nBlocks, b }),
        bs,
      ],
    ];
    texts.forEach(([title, subtitle, r], k) => {
      const panel = parts.panels[k];
      setText(panel.title, title);
      setText(panel.subtitle, subtitle);
      pixelImage(panel.image, n, n, (i, j) => colours[r.states[i][j]]);
      setText(panel.used, t("sparsity.used", { count: r.used, share: pct(r.used / (n * n)) }));
      setText(panel.computed, t("sparsity.computed", { count: r.computed, share: pct(r.computed / (n * n)) }));
    });
    const summary = t("sparsity.summary", {
      swComputed: pct(sw.computed / (n * n)),
      swUsed: pct(sw.used / (n * n)),
      bsComputed: pct(bs.computed / (n * n)),
      bsUsed: pct(bs.used / (n * n)),
    });
    ui.note.textContent = t("sparsity.note", { n, all: n * n, summary });
    return t(causal ? "sparsity.altCausal" : "sparsity.altBidirectional", { n, w, b, layout, summary });
  }

  return mount(el, model, {
    label: t("sparsity.label"),
    task: t("sparsity.task"),
    legend: [
      { mark: "bar", colour: "main", text: t("sparsity.legendUsed") },
      { mark: "bar", colour: "other", text: t("sparsity.legendMasked") },
      { fill: "var(--ae-panel)", text: t("sparsity.legendSkipped") },
    ],
    controls: [
      {
        kind: "slider",
        name: "window",
        label: t("sparsity.window"),
        trait: "window",
        min: 0,
        max: Math.floor(n / 2),
        text: String,
      },
      {
        kind: "slider",
        name: "block",
        label: t("sparsity.block"),
        trait: "block",
        min: 1,
        max: Math.floor(n / 2),
        text: String,
      },
      {
        kind: "picker",
        name: "layout",
        label: t("sparsity.layout"),
        trait: "layout_name",
        options: Object.keys(layouts).map((name) => [name, t(layoutKey(name))]),
      },
      {
        kind: "picker",
        name: "causal",
        label: t("sparsity.mask"),
        trait: "causal",
        options: [
          [false, t("sparsity.bidirectional")],
          [true, t("sparsity.causal")],
        ],
      },
    ],
    build,
    update,
  });
}

export default { render };
