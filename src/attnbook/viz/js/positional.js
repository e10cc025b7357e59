// The sinusoidal encoding of §3.5, as attnbook.positional computes it, for the three
// positional-encoding explorers:
//   PE(pos, 2i) = sin(pos · ω_i),  PE(pos, 2i+1) = cos(pos · ω_i),  ω_i = base^(−2i/d_model)
// in the paper's interleaved layout, or [sin(pos·ω_0) … sin, cos(pos·ω_0) … cos]
// concatenated. M_k turns each (sin, cos) pair by the angle k·ω_i.

/** A picker of the trait `table_layout`, the `layout` of sinusoidal_encoding (`t`: the words). */
export function layoutPicker(t) {
  const options = ["interleaved", "concatenated"].map((name) => [name, t(`positional.layout.${name}`)]);
  return { kind: "picker", name: "layout", label: t("positional.layout"), trait: "table_layout", options };
}

/** ω_i = base^(−2i/d_model) for i = 0 … d_model/2 − 1. */
export function frequencies(d_model, base) {
  return Array.from({ length: d_model / 2 }, (_, i) => base ** ((-2 * i) / d_model));
}

/** The pair i that dimension j belongs to, and whether j holds its cosine. */
export function pairOf(j, d_model, layout) {
  const half = d_model / 2;
  if (layout === "concatenated") return { i: j % half, isCos: j >= half };
  return { i: Math.floor(j / 2), isCos: j % 2 === 1 };
}

/** The other dimension of j's (sin, cos) pair. */
export function partnerOf(j, d_model, layout) {
  const half = d_model / 2;
  if (layout === "concatenated") return j < half ? j + half : j - half;
  return j % 2 === 0 ? j + 1 : j - 1;
}

/** PE(pos, j) for any real pos. */
export function pe(pos, j, d_model, base, layout) {
  const { i, isCos } = pairOf(j, d_model, layout);
  const angle = pos * base ** ((-2 * i) / d_model);
  return isCos ? Math.cos(angle) : Math.sin(angle);
}

/** The vector PE(pos) (d_model,), for any real pos, negative ones included. */
export function peVector(pos, d_model, base, layout) {
  return Array.from({ length: d_model }, (_, j) => pe(pos, j, d_model, base, layout));
}

/** The (max_len, d_model) table: row pos is PE(pos). */
export function peTable(max_len, d_model, base, layout) {
  const omega = frequencies(d_model, base);
  const dims = Array.from({ length: d_model }, (_, j) => pairOf(j, d_model, layout));
  return Array.from({ length: max_len }, (_, pos) =>
    dims.map(({ i, isCos }) => (isCos ? Math.cos(pos * omega[i]) : Math.sin(pos * omega[i]))),
  );
}

/**
 * M_k · v for a vector v in the interleaved layout: each pair (v_2i, v_2i+1) becomes
 * (cos kω_i · v_2i + sin kω_i · v_2i+1, −sin kω_i · v_2i + cos kω_i · v_2i+1).
 */
export function rotate(v, k, base) {
  const omega = frequencies(v.length, base);
  const out = v.slice();
  omega.forEach((w, i) => {
    const [s, c] = [v[2 * i], v[2 * i + 1]];
    const [ck, sk] = [Math.cos(k * w), Math.sin(k * w)];
    out[2 * i] = ck * s + sk * c;
    out[2 * i + 1] = -sk * s + ck * c;
  });
  return out;
}
