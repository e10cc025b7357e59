// Sparsity explorer: which entries of the n × n score matrix local and block-sparse
// attention use, which they compute and throw away, and which they never compute.
// States: 2 = used (in the pattern), 1 = computed then masked, 0 = skipped.
// The same rules as attnbook.efficient: sliding_window_attention computes, for each query
// block of b rows, the key strip [start − w, start + b + w) (to start + b when causal);
// block_sparse_attention computes the b × b blocks its layout keeps.
const NS = "http://www.w3.org/2000/svg";
const COLOURS = ["#ffffff", "#ffd8a8", "#1c7ed6"];

// block_layout(n_blocks, local, global_blocks, stride, causal) of attnbook.efficient
export function blockLayout(nBlocks, params, causal) {
  const local = params.local ?? 1;
  const globalBlocks = params.global_blocks ?? 0;
  const stride = params.stride ?? 0;
  const rows = [];
  for (let I = 0; I < nBlocks; I++) {
    const row = [];
    for (let J = 0; J < nBlocks; J++) {
      const off = I - J;
      let on = Math.abs(off) <= local || I < globalBlocks || J < globalBlocks;
      if (stride > 0 && ((off % stride) + stride) % stride === 0) on = true;
      row.push(on && (!causal || off >= 0));
    }
    rows.push(row);
  }
  return rows;
}

export function slidingWindow(n, w, b, causal) {
  const states = [];
  let used = 0;
  for (let i = 0; i < n; i++) {
    const start = Math.floor(i / b) * b;
    const lo = start - w, hi = start + b - 1 + (causal ? 0 : w);
    const row = [];
    for (let j = 0; j < n; j++) {
      const inPattern = Math.abs(i - j) <= w && (!causal || j <= i);
      const s = inPattern ? 2 : j >= lo && j <= hi ? 1 : 0;
      used += s === 2;
      row.push(s);
    }
    states.push(row);
  }
  const computed = Math.ceil(n / b) * b * (b + w * (causal ? 1 : 2)); // padding included
  return { states, used, computed };
}

export function blockSparse(n, b, params, causal) {
  const nBlocks = Math.ceil(n / b);
  const layout = blockLayout(nBlocks, params, causal);
  const states = [];
  let used = 0;
  for (let i = 0; i < n; i++) {
    const row = [];
    for (let j = 0; j < n; j++) {
      const inBlock = layout[Math.floor(i / b)][Math.floor(j / b)];
      const s = inBlock ? (!causal || j <= i ? 2 : 1) : 0;
      used += s === 2;
      row.push(s);
    }
    states.push(row);
  }
  const blocks = layout.flat().filter(Boolean).length;
  return { states, used, computed: blocks * b * b, blocks, nBlocks };
}

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function control(parent, label, input) {
  const wrap = document.createElement("label");
  wrap.textContent = label + " ";
  wrap.appendChild(input);
  const out = document.createElement("output");
  if (input.type === "range") wrap.appendChild(out);
  parent.appendChild(wrap);
  return out;
}

function range(min, max, value) {
  const input = document.createElement("input");
  Object.assign(input, { type: "range", min, max, step: 1, value });
  return input;
}

function select(options, value) {
  const input = document.createElement("select");
  for (const [v, text] of options) {
    const o = document.createElement("option");
    Object.assign(o, { value: v, textContent: text });
    input.appendChild(o);
  }
  input.value = value;
  return input;
}

function pct(x) {
  return `${(100 * x).toFixed(1)}%`;
}

function render({ model, el: root }) {
  const n = model.get("n");
  const layouts = model.get("layout_params");
  const box = document.createElement("div");
  box.className = "attnbook-explorer";
  const controls = document.createElement("div");
  controls.className = "controls";
  const wIn = range(0, Math.floor(n / 2), model.get("window"));
  const bIn = range(1, Math.floor(n / 2), model.get("block"));
  const lIn = select(Object.keys(layouts).map((k) => [k, k]), model.get("layout_name"));
  const cIn = select([["0", "bidirectional (encoder)"], ["1", "causal (decoder)"]],
                     model.get("causal") ? "1" : "0");
  const wOut = control(controls, "window w", wIn);
  const bOut = control(controls, "block b", bIn);
  control(controls, "layout", lIn);
  control(controls, "mask", cIn);
  // drawn on a 660-wide canvas that scales down with the page
  const W = 660, P = 270, top = 40, lefts = [36, 380];
  const svg = el("svg", { width: "100%", viewBox: `0 0 ${W} ${top + P + 80}`, role: "img",
                          "shape-rendering": "crispEdges", style: `max-width: ${W}px` });
  const note = document.createElement("div");
  note.className = "note";
  box.append(controls, svg, note);
  root.appendChild(box);

  function panel(x0, title, r, subtitle) {
    const cell = P / n;
    el("text", { x: x0, y: 16, "font-weight": "bold" }, svg, title);
    el("text", { x: x0, y: 32, fill: "#555" }, svg, subtitle);
    el("rect", { x: x0, y: top, width: P, height: P, fill: COLOURS[0], stroke: "#333" }, svg);
    r.states.forEach((row, i) => {
      // one rectangle per run of equal cells keeps the SVG small
      let j = 0;
      while (j < n) {
        let k = j;
        while (k < n && row[k] === row[j]) k++;
        if (row[j] > 0) {
          el("rect", { x: x0 + j * cell, y: top + i * cell, width: (k - j) * cell, height: cell,
                       fill: COLOURS[row[j]] }, svg);
        }
        j = k;
      }
    });
    el("text", { x: x0 + P / 2, y: top + P + 16, "text-anchor": "middle" }, svg,
       `key position j (0…${n - 1})`);
    const yMid = top + P / 2;
    el("text", { x: x0 - 12, y: yMid, "text-anchor": "middle",
                 transform: `rotate(-90 ${x0 - 12} ${yMid})` }, svg, "query position i");
    const used = r.used / (n * n), computed = r.computed / (n * n);
    el("text", { x: x0, y: top + P + 36, "data-used": used.toFixed(4) }, svg,
       `used ${r.used} = ${pct(used)} of n²`);
    el("text", { x: x0, y: top + P + 54, "data-computed": computed.toFixed(4) }, svg,
       `computed ${r.computed} = ${pct(computed)} of n² (with padding)`);
  }

  function draw() {
    const w = Number(wIn.value), b = Number(bIn.value), causal = cIn.value === "1";
    const name = lIn.value;
    wOut.textContent = String(w);
    bOut.textContent = String(b);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const sw = slidingWindow(n, w, b, causal);
    const bs = blockSparse(n, b, layouts[name], causal);
    panel(lefts[0], `sliding window |i − j| ≤ ${w}`, sw,
          `query blocks of ${b}, key strips of ${b + w * (causal ? 1 : 2)}`);
    panel(lefts[1], `block-sparse: ${name}`, bs,
          `${bs.blocks} of ${bs.nBlocks}×${bs.nBlocks} blocks of ${b}×${b}`);
    const legend = [[2, "used"], [1, "computed, then masked"], [0, "never computed"]];
    legend.forEach(([s, text], k) => {
      const x = lefts[0] + k * 190, y = top + P + 66;
      el("rect", { x, y, width: 12, height: 12, fill: COLOURS[s], stroke: "#333" }, svg);
      el("text", { x: x + 18, y: y + 11 }, svg, text);
    });
    note.textContent = `n = ${n}: full attention computes all ${n * n} scores. Sliding window: ` +
      `${pct(sw.computed / (n * n))} computed for ${pct(sw.used / (n * n))} used; block-sparse: ` +
      `${pct(bs.computed / (n * n))} computed for ${pct(bs.used / (n * n))} used.`;
  }

  function sync() {
    draw();
    model.set("window", Number(wIn.value));
    model.set("block", Number(bIn.value));
    model.set("layout_name", lIn.value);
    model.set("causal", cIn.value === "1");
    try { model.save_changes(); } catch (e) { /* static page: no kernel to tell */ }
  }
  wIn.addEventListener("input", sync);
  bIn.addEventListener("input", sync);
  lIn.addEventListener("change", sync);
  cIn.addEventListener("change", sync);
  draw();
}

export default { render };
