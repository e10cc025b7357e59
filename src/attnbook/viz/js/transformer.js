// The package's Transformer (attnbook.model, the encoder–decoder of §3 of the paper) in plain
// JavaScript, from a model exported by attnbook.web (a manifest and one binary of weights).
//
// Embeddings × √d_model plus sinusoidal or learned positions (§3.4, §3.5); N encoder layers;
// N decoder layers with causal self-attention and cross-attention over the encoder's output
// (§3.2.3), h heads of any d_k and d_v; post-LN (the paper's LayerNorm(x + Sublayer(x))) or
// pre-LN with a final LayerNorm per stack; the output projection, shared with the embeddings
// when the config says so. Nothing else: a manifest whose config asks for another setting (the
// ablations residual=False and layer_norm=False, another positional encoding, a setting this
// file does not know) is refused, with attnbook.web's message, rather than computed otherwise.
// Greedy decoding and beam search run the decoder one token at a time with a key/value cache,
// and return every attention map of every step. Beam search ranks hypotheses exactly as
// attnbook.decode.beam_search does: log P(Y | X) / lp(Y), lp(Y) = ((5 + |Y|) / 6)^α.
//
// Numbers live in Float32Arrays, as in PyTorch; sums run in double precision. Buffers are
// made once per call, never per element. No dependencies, nothing runs at import time.

// ------------------------------------------------------------------ loading

/** The float that the 16 bits of an IEEE half-precision number encode. */
export function halfToFloat(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24; // zero and subnormals
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** The bytes of an ArrayBuffer, a DataView or a typed array (a node Buffer too). */
export function bytesOf(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError("the weights must be an ArrayBuffer, a DataView or a typed array");
}

/** Whether this machine stores numbers little-endian (every browser's does): typed arrays can then view the binary. */
function littleEndian() {
  return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
}

/** Every float16 value by its 16 bits: decoding becomes one table look-up per weight. */
function halfTable() {
  const table = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) table[bits] = halfToFloat(bits);
  return table;
}

/** Each tensor of the binary as a Float32Array, by name (names shared by one tensor included). */
function readTensors(manifest, bytes) {
  // typed-array views need aligned offsets: copy a binary that starts at an odd place
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const fast = littleEndian();
  const view = new DataView(aligned.buffer, aligned.byteOffset, aligned.byteLength);
  const half = manifest.tensors.some((t) => t.dtype === "float16") ? halfTable() : null;
  const tensors = {};
  for (const t of manifest.tensors) {
    const n = t.shape.reduce((a, b) => a * b, 1);
    const size = t.dtype === "float16" ? 2 : 4;
    if (t.offset + n * size > aligned.byteLength) throw new Error(`tensor ${t.name} lies beyond the weights' end`);
    const at = aligned.byteOffset + t.offset;
    let out;
    if (size === 4 && fast) out = new Float32Array(aligned.buffer.slice(at, at + 4 * n));
    else if (size === 4) out = Float32Array.from({ length: n }, (_, i) => view.getFloat32(t.offset + 4 * i, true));
    else {
      const bits = fast ? new Uint16Array(aligned.buffer, at, n) : null;
      out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = half[bits ? bits[i] : view.getUint16(t.offset + 2 * i, true)];
    }
    tensors[t.name] = out;
  }
  for (const [name, storedAs] of Object.entries(manifest.shared || {})) tensors[name] = tensors[storedAs];
  return tensors;
}

/**
 * PE[pos, 2i] = sin(pos·ω_i), PE[pos, 2i+1] = cos(pos·ω_i), ω_i = 10000^(−2i/d_model) — §3.5.
 * The (max_len, d_model) table, angles in double precision as attnbook.positional does.
 */
export function sinusoidTable(maxLen, dModel) {
  const table = new Float32Array(maxLen * dModel);
  for (let pos = 0; pos < maxLen; pos++) {
    for (let i = 0; 2 * i < dModel; i++) {
      const angle = pos * 10000 ** (-(2 * i) / dModel);
      table[pos * dModel + 2 * i] = Math.sin(angle);
      table[pos * dModel + 2 * i + 1] = Math.cos(angle);
    }
  }
  return table;
}

// ------------------------------------------------------------------ the settings it computes

/**
 * What this file computes, per setting of the exported config (attnbook.model.TransformerConfig,
 * plus the export's layer_norm_eps): null for any value, else the values it implements. The same
 * table as attnbook.web.BROWSER_SETTINGS; a setting missing from a manifest takes its default.
 */
const SETTINGS = {
  src_vocab: null,
  tgt_vocab: null,
  N: null,
  d_model: null,
  d_ff: null,
  h: null,
  dropout: null, // the identity at inference
  max_len: null,
  share_embeddings: null,
  norm_first: null,
  residual: [true],
  layer_norm: [true],
  positional: ["sinusoidal", "learned"],
  pad_id: null,
  d_k: null,
  d_v: null,
  layer_norm_eps: null,
};

/** A value as Python's repr writes it (True, None, 'text', 8), for messages worded as attnbook.web's. */
function pyRepr(value) {
  if (value === true || value === false) return value ? "True" : "False";
  if (value === null || value === undefined) return "None";
  if (typeof value === "string") return `'${value}'`;
  return typeof value === "number" ? String(value) : JSON.stringify(value);
}

/** attnbook.web.unsupported_setting: why this file cannot run a model with name = value. */
function unsupported(name, value) {
  const allowed = Object.hasOwn(SETTINGS, name) ? SETTINGS[name] : null;
  const known = allowed
    ? `it computes ${name}=${allowed.map(pyRepr).join(" or ")} only`
    : `it knows no setting '${name}'`;
  return `${name}=${pyRepr(value)}: the browser forward pass (viz/js/transformer.js) does not implement it; ${known}`;
}

/**
 * Throws an Error unless this file computes exactly the model of `config` (a manifest's): every
 * setting known and within SETTINGS, d_k and d_v (default d_model / h) whole and positive.
 */
export function checkConfig(config) {
  if (!config || typeof config !== "object") throw new Error("the manifest has no config");
  for (const [name, value] of Object.entries(config)) {
    const allowed = Object.hasOwn(SETTINGS, name) ? SETTINGS[name] : [];
    if (allowed !== null && !allowed.includes(value)) throw new Error(unsupported(name, value));
  }
  for (const name of ["d_k", "d_v"]) {
    const size = config[name] ?? config.d_model / config.h;
    if (!Number.isInteger(size) || size < 1) {
      throw new Error(`the manifest's ${name}=${pyRepr(config[name])} is not a whole number ≥ 1 (absent: d_model / h)`);
    }
  }
}

/**
 * The model of an attnbook.web export: `manifest` (the parsed JSON) and the weights binary.
 * Throws an Error saying what does not fit (checkConfig's message for a setting it does not
 * implement).
 */
export function loadModel(manifest, data) {
  if (!manifest || manifest.format !== "attnbook-web" || manifest.version !== 1) {
    throw new Error("not an attnbook-web manifest of version 1");
  }
  const bytes = bytesOf(data);
  if (bytes.byteLength !== manifest.weights.bytes) {
    throw new Error(`the weights hold ${bytes.byteLength} bytes, the manifest says ${manifest.weights.bytes}`);
  }
  const c = manifest.config;
  checkConfig(c);
  const [d, h] = [c.d_model, c.h];
  const [dk, dv] = [c.d_k ?? d / h, c.d_v ?? d / h];
  const tensors = readTensors(manifest, bytes);
  const get = (name, size) => {
    if (!tensors[name]) throw new Error(`the export has no tensor ${name}`);
    if (tensors[name].length !== size) {
      throw new Error(`tensor ${name} holds ${tensors[name].length} numbers; the config says ${size}`);
    }
    return tensors[name];
  };
  // an nn.Linear: W (n_out, n_in) and b (n_out)
  const dense = (p, nIn, nOut) => ({ W: get(`${p}.weight`, nOut * nIn), b: get(`${p}.bias`, nOut) });
  // W_Q, W_K: d_model → h·d_k; W_V: d_model → h·d_v; W_O: h·d_v → d_model (§3.2.2)
  const attn = (p) => ({
    Q: dense(`${p}.W_Q`, d, h * dk),
    K: dense(`${p}.W_K`, d, h * dk),
    V: dense(`${p}.W_V`, d, h * dv),
    O: dense(`${p}.W_O`, h * dv, d),
  });
  const norm = (p) => ({ gain: get(`${p}.weight`, d), bias: get(`${p}.bias`, d) });
  const ffn = (p) => ({ W1: dense(`${p}.W_1`, d, c.d_ff), W2: dense(`${p}.W_2`, c.d_ff, d) });
  const layers = (stack, cross) =>
    [...Array(c.N).keys()].map((i) => {
      const p = `${stack}.layers.${i}`;
      const norms = [1, 2, 3].slice(0, cross ? 3 : 2).map((k) => norm(`${p}.sublayer${k}.norm`));
      return {
        self: attn(`${p}.self_attn`),
        cross: cross ? attn(`${p}.cross_attn`) : null,
        ffn: ffn(`${p}.ffn`),
        norms,
      };
    });
  const learned = c.positional === "learned";
  const table = learned ? null : sinusoidTable(c.max_len, c.d_model);
  const vocab = manifest.vocab;
  const stoi = new Map(vocab.itos.slice(vocab.specials).map((s, i) => [s, i + vocab.specials]));
  return {
    manifest,
    config: c,
    N: c.N,
    d,
    h,
    dk,
    dv,
    dff: c.d_ff,
    V: c.tgt_vocab,
    eps: c.layer_norm_eps,
    preLN: c.norm_first,
    vocab,
    stoi,
    src: {
      tokens: get("src_embed.tokens.weight", c.src_vocab * d),
      positions: learned ? get("src_embed.positions.embedding.weight", c.max_len * d) : table,
    },
    tgt: {
      tokens: get("tgt_embed.tokens.weight", c.tgt_vocab * d),
      positions: learned ? get("tgt_embed.positions.embedding.weight", c.max_len * d) : table,
    },
    encoder: layers("encoder", false),
    decoder: layers("decoder", true),
    encoderNorm: c.norm_first ? norm("encoder.norm") : null,
    decoderNorm: c.norm_first ? norm("decoder.norm") : null,
    generator: dense("generator", d, c.tgt_vocab),
  };
}

// ------------------------------------------------------------------ text

/** A character as a message shows it: itself, or U+XXXX for white space (but " ") and control characters. */
export const shownChar = (ch) =>
  /[\s\p{C}]/u.test(ch) && ch !== " " ? `U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}` : ch;

/**
 * The ids of `text` for the encoder, or why the model cannot read it — the checks of
 * attnbook.data.dates.check_date_input, in its order: empty, too long, unknown characters.
 * Returns {ids} or {problem: "empty" | "long" | "unknown", key, params}: the key of the
 * translator's string tables (translator_strings.js) that words the problem, and its values.
 * `known(ch)`, when given, says which characters to let through (default: the vocabulary's).
 */
export function checkSource(net, text, known = (ch) => net.stoi.has(ch)) {
  const chars = Array.from(text); // code points, as Python counts them
  const { max_chars: limit, example } = net.manifest.input;
  if (!text.trim()) {
    return example
      ? { problem: "empty", key: "translator.source.empty.example", params: { example } }
      : { problem: "empty", key: "translator.source.empty", params: {} };
  }
  if (chars.length > limit)
    return { problem: "long", key: "translator.source.long", params: { n: chars.length, max: limit } };
  const unknown = [...new Set(chars.filter((ch) => !known(ch)))];
  if (unknown.length) {
    const key = unknown.length === 1 ? "translator.source.unknown.one" : "translator.source.unknown.many";
    return { problem: "unknown", key, params: { chars: unknown.map(shownChar) } };
  }
  return { ids: chars.map((ch) => net.stoi.get(ch)) };
}

/** The text of output ids, stopping at <eos> and skipping the other special tokens. */
export function decodeIds(net, ids) {
  let text = "";
  for (const id of ids) {
    if (id === net.vocab.eos_id) break;
    if (id >= net.vocab.specials) text += net.vocab.itos[id];
  }
  return text;
}

// ------------------------------------------------------------------ the layers' maths

/**
 * y = W x + b for one position: W is (n_out, n_in) row-major, as nn.Linear stores it. Two rows
 * at a time (each x value read once for both), four running sums per row (the engine overlaps
 * the multiplications); a row's sums are added in the same order either way.
 */
function affine(W, b, x, xOff, nIn, y, yOff, nOut) {
  const n4 = nIn - (nIn % 4);
  let o = 0;
  for (; o + 1 < nOut; o += 2) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let t0 = 0;
    let t1 = 0;
    let t2 = 0;
    let t3 = 0;
    let r = o * nIn;
    let q = r + nIn;
    let k = xOff;
    for (let i = 0; i < n4; i += 4, r += 4, q += 4, k += 4) {
      const x0 = x[k];
      const x1 = x[k + 1];
      const x2 = x[k + 2];
      const x3 = x[k + 3];
      s0 += W[r] * x0;
      s1 += W[r + 1] * x1;
      s2 += W[r + 2] * x2;
      s3 += W[r + 3] * x3;
      t0 += W[q] * x0;
      t1 += W[q + 1] * x1;
      t2 += W[q + 2] * x2;
      t3 += W[q + 3] * x3;
    }
    for (let i = n4; i < nIn; i++, r++, q++, k++) {
      s0 += W[r] * x[k];
      t0 += W[q] * x[k];
    }
    y[yOff + o] = b[o] + (s0 + s1 + (s2 + s3));
    y[yOff + o + 1] = b[o + 1] + (t0 + t1 + (t2 + t3));
  }
  for (; o < nOut; o++) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let r = o * nIn;
    let k = xOff;
    for (let i = 0; i < n4; i += 4, r += 4, k += 4) {
      s0 += W[r] * x[k];
      s1 += W[r + 1] * x[k + 1];
      s2 += W[r + 2] * x[k + 2];
      s3 += W[r + 3] * x[k + 3];
    }
    for (let i = n4; i < nIn; i++, r++, k++) s0 += W[r] * x[k];
    y[yOff + o] = b[o] + (s0 + s1 + (s2 + s3));
  }
}

/** LayerNorm over one position's d values: (x − mean) / √(var + ε) · γ + β (biased var). */
function layerNorm({ gain, bias }, x, xOff, d, eps, y, yOff) {
  let mean = 0;
  for (let i = 0; i < d; i++) mean += x[xOff + i];
  mean /= d;
  let variance = 0;
  for (let i = 0; i < d; i++) variance += (x[xOff + i] - mean) ** 2;
  const inv = 1 / Math.sqrt(variance / d + eps);
  for (let i = 0; i < d; i++) y[yOff + i] = (x[xOff + i] - mean) * inv * gain[i] + bias[i];
}

/** Row `row` of the scaled embedding: E[id] · √d_model + P[pos] (§3.4, §3.5). */
function embed(table, id, pos, d, y, yOff) {
  const scale = Math.sqrt(d);
  for (let i = 0; i < d; i++)
    y[yOff + i] = Math.fround(table.tokens[id * d + i] * scale) + table.positions[pos * d + i];
}

/**
 * softmax(q Kᵀ / √d_k) V for one query and one head — Eq. (1), §3.2.1 — over keys 0 … n − 1
 * with allowed[j] = 1 (the others get weight exactly 0; no allowed key: all zeros). q holds
 * the h heads' queries side by side (h·d_k), K's rows h·d_k keys, V's rows h·d_v values.
 * Writes the weights to w[wOff …] and the head's output (d_v) to out[outOff + head·d_v …].
 */
function attendOne({ h, dk, dv }, q, qOff, K, V, n, head, allowed, w, wOff, out, outOff) {
  const scale = 1 / Math.sqrt(dk);
  const k0 = head * dk;
  const v0 = head * dv;
  let max = -Infinity;
  for (let j = 0; j < n; j++) {
    if (!allowed[j]) continue;
    let s = 0;
    for (let c = 0; c < dk; c++) s += q[qOff + k0 + c] * K[j * h * dk + k0 + c];
    s *= scale;
    w[wOff + j] = s;
    if (s > max) max = s;
  }
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const e = allowed[j] ? Math.exp(w[wOff + j] - max) : 0;
    w[wOff + j] = e;
    sum += e;
  }
  for (let c = 0; c < dv; c++) out[outOff + v0 + c] = 0;
  if (sum === 0) return;
  for (let j = 0; j < n; j++) {
    const p = w[wOff + j] / sum;
    w[wOff + j] = p;
    if (p === 0) continue;
    for (let c = 0; c < dv; c++) out[outOff + v0 + c] += p * V[j * h * dv + v0 + c];
  }
}

/** FFN(x) = max(0, x W_1 + b_1) W_2 + b_2 — Eq. (2), §3.3 — for one position. */
function feedForward(net, { W1, W2 }, x, xOff, hidden, y, yOff) {
  affine(W1.W, W1.b, x, xOff, net.d, hidden, 0, net.dff);
  for (let i = 0; i < net.dff; i++) if (hidden[i] < 0) hidden[i] = 0;
  affine(W2.W, W2.b, hidden, 0, net.dff, y, yOff, net.d);
}

/**
 * x ← LayerNorm(x + f(x)) (post-LN, §3.1) or x ← x + f(LayerNorm(x)) (pre-LN), for one
 * position; `f(input, inputOff, out)` writes the sublayer's output to out[0 …].
 */
function residual(net, norm, x, xOff, tmp, sub, f) {
  const d = net.d;
  if (net.preLN) {
    layerNorm(norm, x, xOff, d, net.eps, tmp, 0);
    f(tmp, 0, sub);
    for (let i = 0; i < d; i++) x[xOff + i] += sub[i];
  } else {
    f(x, xOff, sub);
    for (let i = 0; i < d; i++) tmp[i] = x[xOff + i] + sub[i];
    layerNorm(norm, tmp, 0, d, net.eps, x, xOff);
  }
}

/** Scratch buffers of one call, reused at every position and step. */
function workspace(net, keys) {
  const d = net.d;
  return {
    tmp: new Float32Array(d),
    sub: new Float32Array(d),
    q: new Float32Array(net.h * net.dk),
    heads: new Float32Array(net.h * net.dv), // Concat(head_1, …, head_h)
    hidden: new Float32Array(net.dff),
    scores: new Float32Array(keys),
    logits: new Float32Array(net.V),
  };
}

/** Q, K or V of every row of X (n, d_model): one projection, n times; (n, h·d_k or h·d_v). */
function project(net, { W, b }, X, n) {
  const width = b.length;
  const Y = new Float32Array(n * width);
  for (let r = 0; r < n; r++) affine(W, b, X, r * net.d, net.d, Y, r * width, width);
  return Y;
}

// ------------------------------------------------------------------ encoder and decoder

/**
 * The encoder on source ids: {src, memory (S·d), attention [N] of (h, S, S), and the
 * cross-attention keys and values of every decoder layer, computed once}.
 */
export function encode(net, src) {
  const { d, h, dk, dv } = net;
  const S = src.length;
  const pad = net.config.pad_id;
  const allowed = Uint8Array.from(src, (id) => (id === pad ? 0 : 1)); // the source's padding mask
  const ws = workspace(net, S);
  const x = new Float32Array(S * d);
  for (let p = 0; p < S; p++) embed(net.src, src[p], p, d, x, p * d);
  const attention = [];
  const norm = new Float32Array(S * d);
  for (const layer of net.encoder) {
    const weights = new Float32Array(h * S * S);
    // self-attention sublayer: every position reads every (non-pad) position
    const input = net.preLN ? norm : x;
    if (net.preLN) for (let p = 0; p < S; p++) layerNorm(layer.norms[0], x, p * d, d, net.eps, norm, p * d);
    const [Q, K, V] = [layer.self.Q, layer.self.K, layer.self.V].map((m) => project(net, m, input, S));
    for (let p = 0; p < S; p++) {
      for (let k = 0; k < h; k++)
        attendOne(net, Q, p * h * dk, K, V, S, k, allowed, weights, (k * S + p) * S, ws.heads, 0);
      affine(layer.self.O.W, layer.self.O.b, ws.heads, 0, h * dv, ws.sub, 0, d);
      if (net.preLN) for (let i = 0; i < d; i++) x[p * d + i] += ws.sub[i];
      else {
        for (let i = 0; i < d; i++) ws.tmp[i] = x[p * d + i] + ws.sub[i];
        layerNorm(layer.norms[0], ws.tmp, 0, d, net.eps, x, p * d);
      }
    }
    for (let p = 0; p < S; p++) {
      residual(net, layer.norms[1], x, p * d, ws.tmp, ws.sub, (v, off, out) =>
        feedForward(net, layer.ffn, v, off, ws.hidden, out, 0),
      );
    }
    attention.push(weights);
  }
  if (net.encoderNorm) for (let p = 0; p < S; p++) layerNorm(net.encoderNorm, x, p * d, d, net.eps, x, p * d);
  const crossK = net.decoder.map((layer) => project(net, layer.cross.K, x, S));
  const crossV = net.decoder.map((layer) => project(net, layer.cross.V, x, S));
  return { src: Array.from(src), memory: x, attention, crossK, crossV, allowed };
}

/** The decoder's key/value cache for up to `length` target positions: (length, h·d_k or h·d_v). */
function decoderCache(net, length) {
  return {
    K: net.decoder.map(() => new Float32Array(length * net.h * net.dk)),
    V: net.decoder.map(() => new Float32Array(length * net.h * net.dv)),
    allowed: new Uint8Array(length), // 0 where the target token is <pad>
  };
}

/** Positions 0 … n − 1 of cache `from` into cache `to`. */
function copyCache(net, from, to, n) {
  for (let l = 0; l < net.N; l++) {
    to.K[l].set(from.K[l].subarray(0, n * net.h * net.dk));
    to.V[l].set(from.V[l].subarray(0, n * net.h * net.dv));
  }
  to.allowed.set(from.allowed.subarray(0, n));
}

/**
 * One decoder step: target token `token` at position `pos`, reading positions 0 … pos of
 * `cache` (this step's keys and values are added to it) and the encoder's output. Leaves the
 * logits in ws.logits and returns the step's attention: self (N, h, pos + 1) and cross (N, h, S).
 */
function decoderStep(net, enc, ws, cache, token, pos) {
  const { d, h, dk, dv, N } = net;
  const S = enc.src.length;
  const pad = net.config.pad_id;
  const x = ws.x;
  const n = pos + 1;
  const self = new Float32Array(N * h * n);
  const cross = new Float32Array(N * h * S);
  cache.allowed[pos] = token === pad ? 0 : 1; // keys 0 … pos only (causal), pads masked
  embed(net.tgt, token, pos, d, x, 0);
  net.decoder.forEach((layer, l) => {
    // masked self-attention (§3.2.3): this position's key and value join the cache
    residual(net, layer.norms[0], x, 0, ws.tmp, ws.sub, (v, off, out) => {
      const { Q, K, V, O } = layer.self;
      affine(Q.W, Q.b, v, off, d, ws.q, 0, h * dk);
      affine(K.W, K.b, v, off, d, cache.K[l], pos * h * dk, h * dk);
      affine(V.W, V.b, v, off, d, cache.V[l], pos * h * dv, h * dv);
      for (let k = 0; k < h; k++) {
        attendOne(net, ws.q, 0, cache.K[l], cache.V[l], n, k, cache.allowed, self, (l * h + k) * n, ws.heads, 0);
      }
      affine(O.W, O.b, ws.heads, 0, h * dv, out, 0, d);
    });
    // cross-attention: queries from the decoder, keys and values from the encoder
    residual(net, layer.norms[1], x, 0, ws.tmp, ws.sub, (v, off, out) => {
      const { Q, O } = layer.cross;
      affine(Q.W, Q.b, v, off, d, ws.q, 0, h * dk);
      for (let k = 0; k < h; k++) {
        attendOne(net, ws.q, 0, enc.crossK[l], enc.crossV[l], S, k, enc.allowed, cross, (l * h + k) * S, ws.heads, 0);
      }
      affine(O.W, O.b, ws.heads, 0, h * dv, out, 0, d);
    });
    residual(net, layer.norms[2], x, 0, ws.tmp, ws.sub, (v, off, out) =>
      feedForward(net, layer.ffn, v, off, ws.hidden, out, 0),
    );
  });
  if (net.decoderNorm) layerNorm(net.decoderNorm, x, 0, d, net.eps, x, 0);
  affine(net.generator.W, net.generator.b, x, 0, d, ws.logits, 0, net.V);
  return { self, cross, logits: Float32Array.from(ws.logits) };
}

function decoderWorkspace(net, length) {
  return { ...workspace(net, length), x: new Float32Array(net.d) };
}

/** log Σ exp(logits) in double precision (shifted by the largest, so exp never overflows). */
function logSumExp(logits) {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  return max + Math.log(sum);
}

/** log softmax(logits) in double precision, as log_softmax(logits.double()) in PyTorch. */
export function logSoftmax(logits) {
  const logZ = logSumExp(logits);
  return Float64Array.from(logits, (z) => z - logZ);
}

/**
 * Teacher forcing: the logits (T, V) after each token of `tgt` (which starts with <bos>),
 * through the same cached decoder steps that decoding uses.
 */
export function forward(net, src, tgt) {
  const enc = encode(net, src);
  const ws = decoderWorkspace(net, tgt.length);
  const cache = decoderCache(net, tgt.length);
  return tgt.map((token, pos) => Array.from(decoderStep(net, enc, ws, cache, token, pos).logits));
}

// ------------------------------------------------------------------ decoding

/**
 * Greedy decoding (attnbook.decode.greedy_decode): the most likely token at each step, at most
 * `maxLen` tokens, stopping after <eos>. Returns {ids, text, logProb (log P(Y | X)), finished,
 * steps: [{token, logits, self, cross}]}, one step per output token.
 */
export function greedy(net, enc, maxLen) {
  const ws = decoderWorkspace(net, maxLen);
  const cache = decoderCache(net, maxLen);
  const ids = [];
  const steps = [];
  let token = net.vocab.bos_id;
  let logProb = 0;
  for (let pos = 0; pos < maxLen; pos++) {
    const step = decoderStep(net, enc, ws, cache, token, pos);
    let best = 0;
    for (let v = 1; v < net.V; v++) if (step.logits[v] > step.logits[best]) best = v; // first maximum, as argmax
    logProb += step.logits[best] - logSumExp(step.logits); // log softmax(logits)[best]
    steps.push({ ...step, token: best });
    ids.push(best);
    token = best;
    if (best === net.vocab.eos_id) break;
  }
  return { ids, text: decodeIds(net, ids), logProb, finished: token === net.vocab.eos_id, steps };
}

/** lp(Y) = ((5 + |Y|) / 6)^α (Wu et al., 2016), α = 0.6 in §6.1. */
export function lengthPenalty(length, alpha) {
  return ((5 + length) / 6) ** alpha;
}

/**
 * The `beamSize` best (flat index, score) of scores[b][v] + totals[b], highest first; ties go
 * to the lower flat index b·V + v.
 */
function topCandidates(logps, totals, V, beamSize) {
  const count = Math.min(beamSize, logps.length * V);
  const best = [];
  logps.forEach((logp, b) => {
    for (let v = 0; v < V; v++) {
      const score = totals[b] + logp[v];
      if (best.length === count && score <= best[count - 1].score) continue;
      let i = best.length;
      while (i > 0 && best[i - 1].score < score) i--;
      best.splice(i, 0, { score, b, v });
      if (best.length > count) best.pop();
    }
  });
  return best;
}

/**
 * Beam search as attnbook.decode.beam_search: keep the `beamSize` best partial targets, move
 * those ending in <eos> to the finished list, stop when no live beam is left or when
 * `beamSize` finished hypotheses exist and the best of them, normalised by lp, beats every
 * live one normalised by lp(maxLen); return the finished (else live) hypothesis with the best
 * log P(Y | X) / lp(|Y|). Returns {ids, text, logProb, score, finished, steps} like greedy.
 */
export function beamSearch(net, enc, maxLen, beamSize = 4, alpha = 0.6) {
  const eos = net.vocab.eos_id;
  const ws = decoderWorkspace(net, maxLen);
  let bank = [...Array(beamSize).keys()].map(() => decoderCache(net, maxLen));
  let spare = [...Array(beamSize).keys()].map(() => decoderCache(net, maxLen));
  let beams = [{ ids: [net.vocab.bos_id], score: 0, cache: bank[0], trail: null }];
  const finished = [];
  for (let pos = 0; pos < maxLen; pos++) {
    const records = beams.map((beam) => decoderStep(net, enc, ws, beam.cache, beam.ids[pos], pos));
    const logps = records.map((r) => logSoftmax(r.logits));
    const chosen = topCandidates(
      logps,
      beams.map((b) => b.score),
      net.V,
      beamSize,
    );
    const next = [];
    for (const { score, b, v } of chosen) {
      const parent = beams[b];
      const hyp = {
        ids: [...parent.ids, v],
        score,
        trail: { step: { ...records[b], token: v }, previous: parent.trail },
      };
      if (v === eos) finished.push(hyp);
      else {
        hyp.cache = spare[next.length];
        copyCache(net, parent.cache, hyp.cache, pos + 1);
        next.push(hyp);
      }
    }
    [bank, spare] = [spare, bank];
    beams = next;
    if (!beams.length) break;
    if (finished.length >= beamSize) {
      const bestFinished = Math.max(...finished.map((f) => f.score / lengthPenalty(f.ids.length - 1, alpha)));
      const bestLive = Math.max(...beams.map((b) => b.score)) / lengthPenalty(maxLen, alpha);
      if (bestFinished >= bestLive) break;
    }
  }
  const candidates = finished.length ? finished : beams;
  let best = candidates[0];
  const normalised = (c) => c.score / lengthPenalty(c.ids.length - 1, alpha);
  for (const c of candidates) if (normalised(c) > normalised(best)) best = c;
  const steps = [];
  for (let t = best.trail; t; t = t.previous) steps.unshift(t.step);
  const ids = best.ids.slice(1);
  return {
    ids,
    text: decodeIds(net, ids),
    logProb: best.score,
    score: normalised(best),
    finished: ids[ids.length - 1] === eos,
    steps,
  };
}
