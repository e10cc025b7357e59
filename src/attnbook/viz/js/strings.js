// Every word the explorers show or say, one table per language: labels, buttons, legends,
// task lines, text alternatives, notes and messages. Both tables have the same keys
// (tests/test_explorers.py checks it, placeholders included); a key is "<explorer>.<what>",
// or "common.<what>" for words several explorers share.
//
// A string may name values: {name} is replaced by values.name, which the explorer formats
// (numbers, symbols and the chapter's own data, such as tokens, are never translated). The
// language is the page's (the lang attribute of the nearest element that has one: zh, zh-CN,
// zh-Hans… → Chinese, anything else → English), or the one the widget's `language` trait names.
// The Chinese follows the terms of d2l-zh (注意力, 查询/键/值, 多头注意力, 位置编码,
// 编码器–解码器, 掩码, 热力图…) with Chinese punctuation.

export const STRINGS = {
  en: {
    // shared by several explorers (and by base.js)
    "common.drawing": "{label}. {text}",
    "common.listSeparator": ", ",
    "common.clauseSeparator": "; ",
    "common.fullStop": ".",
    "common.head": "head",
    "common.headN": "head {n}",
    "common.meanOfHeads": "mean of heads",
    "common.layer": "layer",
    "common.layerOf": "{n} of {N}",
    "common.nats": "{x} nats",

    // chapter 2: scaled dot-product attention
    "attention.label": "Bars: the query's attention weights over the keys; cells: the values and their weighted sum",
    "attention.task":
      "Click a word to make it the query, then move τ. Watch the bars: a small τ puts nearly all the weight on one key, a large τ spreads it over all of them, and the output row follows the weights.",
    "attention.query": "query",
    "attention.temperature": "temperature τ",
    "attention.values": "values vⱼ",
    "attention.output": "output",
    "attention.outputFormula": "= Σⱼ wⱼ vⱼ",
    "attention.title": "weights of “{token}” over the keys (τ = {tau})",
    "attention.note":
      "largest weight {largest} · entropy {entropy} nats (uniform would be {uniform}) · τ → 0 picks one key, τ → ∞ averages them all",
    "attention.pair": "{token} {weight}",
    "attention.alt": "Query “{token}” at temperature {tau}: weights {weights}; output vector ({output}).",
    "attention.legendQuery": "the query",
    "attention.legendWeight": "the query's weight on each key",
    "attention.legendLargest": "the largest weight",
    "attention.legendValues": "components of the values and the output",

    // chapter 3: why divide by √d_k
    "scaling.label":
      "The logits of one query against its keys, their softmax weights, and the entropy and gradient norms",
    "scaling.task":
      "Slide d_k up with no scaling, then switch to 1/√d_k and to 1/d_k. Watch the largest weight and the gradient bars: unscaled, the weights turn one-hot and the gradients vanish; 1/√d_k keeps them steady; 1/d_k flattens the weights towards uniform.",
    "scaling.scaling": "scaling",
    "scaling.option.none": "none (scale 1)",
    "scaling.option.sqrt": "1/√d_k (the paper)",
    "scaling.option.linear": "1/d_k",
    "scaling.factor.none": "1",
    "scaling.factor.sqrt": "(1/√d_k)",
    "scaling.factor.linear": "(1/d_k)",
    "scaling.logitsTitle": "logits sⱼ = {scale} · q·kⱼ",
    "scaling.logitAxis": "logit value",
    "scaling.curveNote": "curve: N(0, {sigma}²) · dots: the {T} logits",
    "scaling.weightsTitle": "weights p = softmax(s)",
    "scaling.uniform": "dashed: uniform 1/{T}",
    "scaling.keyAxis": "key j (1…{T})",
    "scaling.gaugeScale": "bars: log scale 10⁻⁶ … 10 (entropy: linear)",
    "scaling.entropyGauge": "entropy H(p) / log T",
    "scaling.scoresGauge": "‖∂p/∂s‖_F (to the scores)",
    "scaling.queryGauge": "‖∂p/∂q‖_F (to the query)",
    "scaling.note":
      "d_k = {d}, scale = {scale}: logit std {std} (theory {theory}) · largest weight {largest} (uniform {uniform}) · entropy {entropy} of at most {most} nats",
    "scaling.alt":
      "d_k = {d}, scaling {scaling}: the {T} logits spread with standard deviation {std}; the largest weight is {largest}, entropy {entropy} of at most {most} nats; gradient norms {toScores} to the scores and {toQuery} to the query.",
    "scaling.legendKeys": "one key's logit (dot) and weight (bar)",
    "scaling.legendLargest": "the largest weight and its logit",
    "scaling.legendTheory": "theory: the logits follow N(0, c²·d_k)",
    "scaling.legendUniform": "uniform weights 1/T",

    // chapter 4: multi-head attention
    "heads.label": "Each head's attention weights for one query, each head's share of the output, and their sum",
    "heads.task":
      "Switch heads on and off, one by one, and move the query. Watch the answer under the drawing: find the fewest heads that still answer right, and see which keys those heads look at.",
    "heads.kept": "heads kept",
    "heads.keepOne": "At least one head stays on.",
    "heads.query": "query position",
    "heads.position": "{i} (“{token}”)",
    "heads.shares": "each head's share of the output",
    "heads.sum": "Σ kept",
    "heads.keyAxis": "key position (*: the marked key)",
    "heads.outputAxis": "output dimensions",
    "heads.title": "weights of query {i} (“{token}”) over the keys",
    "heads.off": "head {n} ✕",
    "heads.all": "all {h} heads",
    "heads.some": "heads {list}",
    "heads.noAnswer": "no answer is asked here (the key comes later or is the previous token)",
    "heads.right": "answer {target}; keeping {kept}, the model says {answer} ✓ (right)",
    "heads.wrong": "answer {target}; keeping {kept}, the model says {answer} ✗ (wrong)",
    "heads.note": "query {i}: {verdict} · |Σ kept contributions| = {norm}",
    "heads.looks": "head {n} looks most at key {j} (“{token}”, {weight})",
    "heads.alt": "Query {i} (“{token}”), keeping {kept}: {looks}. {verdict}.",
    "heads.legendQuery": "the query position",
    "heads.legendWeight": "a kept head's weight on a key (darker: more)",
    "heads.legendLargest": "that head's largest weight",
    "heads.legendOff": "a head switched off",
    "heads.legendShares": "each head's share of the output, and their sum",

    // chapter 5: positional encoding
    "positional.pos": "position pos",
    "positional.dimension": "dimension",
    "positional.layout": "layout",
    "positional.layout.interleaved": "interleaved (the paper)",
    "positional.layout.concatenated": "concatenated",
    "positional.name.interleaved": "interleaved",
    "positional.name.concatenated": "concatenated",
    "positional.legendValue": "a value of PE",
    "peCurves.label":
      "Curve: one dimension of the positional encoding over the positions; strip: the whole vector at one position",
    "peCurves.task":
      "Move the position and the dimension. Low dimensions wave fast over the positions, high ones barely move; the strip below is the whole vector at that position, a different pattern at every position.",
    "peCurves.title": "PE(·, {dim}) = {fn}(pos·{omega}) over positions",
    "peCurves.partner": "dashed: its partner, dimension {partner}",
    "peCurves.stripTitle": "the vector PE({pos}), all {d} dimensions",
    "peCurves.note":
      "PE({pos}, {dim}) = {fn}({pos} / {base}^({twoI}/{d})) = {value} · pair i = {i}, wavelength 2π·{base}^({twoI}/{d}) = {wavelength} positions",
    "peCurves.alt":
      "Dimension {dim} ({fn} of pair {i}, wavelength {wavelength} positions) over positions 0 to {last}; at position {pos} it is {value}. Strip: the {d} values of PE({pos}).",
    "peCurves.legendCurve": "the dimension picked, over the positions",
    "peCurves.legendPartner": "its sine/cosine partner",
    "peCurves.legendPos": "the position picked",
    "peCurves.legendDim": "the dimension picked, in the vector PE(pos)",
    "peHeatmap.label":
      "Heat map of the positional-encoding table: positions down, dimensions across, blue −1 to red +1",
    "peHeatmap.task":
      "Move d_model and switch the layout. The left columns (of each half, when concatenated) change fastest down the positions, the right ones barely change; with more dimensions the frequencies are spaced more finely.",
    "peHeatmap.title": "PE: {L} positions × {d} dimensions",
    "peHeatmap.allVisible": "every pair completes a visible part of its period here",
    "peHeatmap.slowPairs": "pairs {slow}…{last} have wavelengths over 10 × {L} positions and look almost constant",
    "peHeatmap.note":
      "{half} frequencies; wavelengths from 2π ≈ 6.3 to 2π·{base}^({top}/{d}) ≈ {longest} positions · {slow}",
    "peHeatmap.alt":
      "Heat map of the {L} × {d} table, {layout} layout: {fast} change fastest down the positions, {rest}.",
    "peHeatmap.fast.interleaved": "the left columns",
    "peHeatmap.fast.concatenated": "the left columns of each half",
    "peHeatmap.restVisible": "and every column changes visibly",
    "peHeatmap.restConstant": "columns of pairs {slow} on are almost constant",
    "peRotation.label":
      "One unit circle per frequency pair: the point of PE(pos), its rotation by k·ωᵢ, and where it lands",
    "peRotation.task":
      "Move k: every pair turns by its own angle k·ωᵢ, fast pairs a lot, slow pairs barely. Then move pos: the dots move, but the angles stay the same, because M_k does not depend on pos.",
    "peRotation.offset": "offset k",
    "peRotation.title": "M_{k} turns each pair of PE({pos}) (●) by k·ωᵢ",
    "peRotation.subtitle": "and lands on PE({to}) (○), the same turn for every pos",
    "peRotation.caption": "pair {i}: {degrees}°",
    "peRotation.note":
      "block of pair 0 in M_{k}: {block} (no pos in it) · largest |M_k·PE(pos) − PE(pos+k)| here: {worst}",
    "peRotation.alt":
      "Offset k = {k}, position {pos}: the {half} pairs turn by {degrees} degrees, from PE({pos}) to PE({to}).",
    "peRotation.legendFrom": "PE(pos), one pair per circle",
    "peRotation.legendTo": "M_k·PE(pos) = PE(pos + k)",
    "peRotation.legendTurn": "the turn by k·ωᵢ",

    // chapter 6: the encoder–decoder
    "cross.label": "Cross-attention weights of each output character over the source characters",
    "cross.task":
      "Pick an example, a layer and a head. Each row is one output character, and its bright cells are the source characters it reads. Compare the examples: does each output character find its source characters wherever the format puts them?",
    "cross.example": "example",
    "cross.sourceAxis": "source characters (keys) →",
    "cross.outputAxis": "output",
    "cross.title": "cross-attention, layer {layer}, {which}",
    "cross.note": "strongest source character per output: {peaks}",
    "cross.alt":
      "Heat map of layer {layer}, {which}, for the source “{source}”: rows are the {rows} output characters, columns the {cols} source characters; the strongest source character per output is {peaks}.",
    "cross.legendWeight": "weight of an output character (row) on a source character (column)",

    // chapter 7: training
    "schedule.label": "The learning rate of Eq. (3) against the training step, beside the paper's base setting",
    "schedule.task":
      "Move d_model and warmup. The rate climbs for warmup steps, peaks at (d_model · warmup)^−0.5 and then falls as 1/√step; compare it with the paper's base setting.",
    "schedule.warmup": "warmup",
    "schedule.stepAxis": "training step",
    "schedule.rateAxis": "learning rate (lrate)",
    "schedule.note":
      "peak {peak} = (d_model · warmup)^−0.5 at step {warmup} (the paper's base: {paperPeak}); at step {steps}: {end}, {percent}% of the peak = √(warmup / step)",
    "schedule.alt":
      "For d_model = {d} and warmup = {warmup} the learning rate rises linearly to {peak} at step {warmup}, then decays as 1/√step to {end} at step {steps}; the paper's setting peaks at {paperPeak}.",
    "schedule.legendYours": "your d_model and warmup",
    "schedule.legendPaper": "the paper's base setting ({d_model}, {warmup})",
    "schedule.legendPeak": "the peak, at step = warmup",
    "smoothing.label": "The smoothed target distribution, and the loss against the model's logit margin",
    "smoothing.task":
      "Move ε and the number of classes V. The smoothed target gives the right class 1 − ε + ε/V and every other class ε/V. With ε > 0 the loss has its minimum at a finite margin; at ε = 0 it keeps falling, pushing the model to ever more confidence.",
    "smoothing.classes": "classes V",
    "smoothing.targetTitle": "smoothed target q'",
    "smoothing.lossTitle": "loss against the model's confidence",
    "smoothing.marginAxis": "logit margin m of p",
    "smoothing.lossAxis": "H(q', p) (nats)",
    "smoothing.classAxis": "class k (1…{V}; the right class y first)",
    "smoothing.rightValue": "q'(y) = {value}",
    "smoothing.otherValue": "others: ε/V = {value}",
    "smoothing.minimumAt": "minimum at m* = {m}",
    "smoothing.minimumBeyond": "minimum beyond m = {m}",
    "smoothing.noMinimum": "ε = 0: no minimum, m → ∞",
    "smoothing.note":
      "ε = {eps}, V = {V}: the loss is smallest when p = q', i.e. confidence p(y) = {right} at logit margin {m}, where it equals H(q') = {H} nats; a model there has perplexity 1/p(y) = {perplexity} on the true labels, where ε = 0 would allow 1",
    "smoothing.noteOneHot":
      "ε = 0, V = {V}: one-hot target; the loss keeps falling as the margin grows, so training pushes the confidence p(y) towards 1",
    "smoothing.smallestAt": "is smallest at margin {m}",
    "smoothing.keepsFalling": "keeps falling: it has no minimum",
    "smoothing.alt":
      "ε = {eps}, V = {V}: the target gives {right} to the right class and {other} to each of the {others} others; the loss against the logit margin {where}.",
    "smoothing.legendRight": "the right class y",
    "smoothing.legendOthers": "each other class",
    "smoothing.legendLoss": "the loss H(q', p)",
    "smoothing.legendMinimum": "its minimum",

    // chapter 9: efficient attention
    "sparsity.label":
      "Two n × n score matrices, sliding-window and block-sparse: scores used, computed then masked, or never computed",
    "sparsity.task":
      "Move the window w and the block size b, pick a layout, switch to the causal mask. Compare the two lines under each panel: the share of the n² scores computed and the share used. Try b + 2w > n: the key strips then cost more than full attention.",
    "sparsity.window": "window w",
    "sparsity.block": "block b",
    "sparsity.layout": "layout",
    "sparsity.mask": "mask",
    "sparsity.bidirectional": "bidirectional (encoder)",
    "sparsity.causal": "causal (decoder)",
    "sparsity.layout.block_diagonal": "block diagonal",
    "sparsity.layout.local_band": "local band",
    "sparsity.layout.local_global": "local + global",
    "sparsity.layout.local_strided": "local + strided",
    "sparsity.keyAxis": "key position j (0…{last})",
    "sparsity.queryAxis": "query position i",
    "sparsity.windowTitle": "sliding window |i − j| ≤ {w}",
    "sparsity.windowSubtitle": "query blocks of {b}, key strips of {strip}",
    "sparsity.blockTitle": "block-sparse: {layout}",
    "sparsity.blockSubtitle": "{blocks} of {grid}×{grid} blocks of {b}×{b}",
    "sparsity.used": "used {count} = {share} of n²",
    "sparsity.computed": "computed {count} = {share} of n² (padding included)",
    "sparsity.summary":
      "Sliding window: {swComputed} computed for {swUsed} used; block-sparse: {bsComputed} computed for {bsUsed} used.",
    "sparsity.note": "n = {n}: full attention computes all {all} scores. {summary}",
    "sparsity.altCausal": "Causal, n = {n}, window {w}, blocks of {b}, {layout} layout. {summary}",
    "sparsity.altBidirectional": "Bidirectional, n = {n}, window {w}, blocks of {b}, {layout} layout. {summary}",
    "sparsity.legendUsed": "used (in the pattern)",
    "sparsity.legendMasked": "computed, then masked",
    "sparsity.legendSkipped": "never computed",

    // chapter 10: deployment
    "quantization.label":
      "Quantized weights against the float weights of one row, and the model's accuracy against the number of bits",
    "quantization.task":
      "Move the bits b, pick a layer and a row. Each dot is one weight: its float value across, its quantized value up; with fewer bits the staircase gets coarser. Find at how many bits the whole model's exact match starts to fall.",
    "quantization.row": "row c",
    "quantization.bits": "bits b",
    "quantization.nBits": "{b} bits",
    "quantization.floatAxis": "float weight w_cj",
    "quantization.codeAxis": "ŵ_cj = q_cj · s_c",
    "quantization.accuracyTitle": "whole model: exact match",
    "quantization.title": "quantized ŵ against float w ({bits} bits)",
    "quantization.note":
      "{layer}, row {row}: s = {s}, codes −{qmax}…{qmax} ({used} used by this row) · largest |ŵ − w| = {error} ≤ s/2 = {half} · whole model at {bits} bits: {accuracy}% exact match",
    "quantization.alt":
      "Row {row} of {layer} at {bits} bits: {weights} weights fall on {used} of the {levels} levels, step s = {s}, largest error {error}; the whole model quantized to {bits} bits has exact-match accuracy {accuracy}%.",
    "quantization.legendWeight": "one weight of the row (float across, quantized up)",
    "quantization.legendExact": "ŵ = w (no rounding error)",
    "quantization.legendAccuracy": "exact match of the whole model at each b",
    "quantization.legendBits": "the bits picked",

    // chapter 11: modern Transformers
    "patches.label": "An image with its patches tinted by the [CLS] token's attention, and the weights as bars",
    "patches.task":
      "Pick an image, a layer and a head. The tint shows where the [CLS] token looks; the outlines mark the patches the shape touches. Find a head that looks at the shape, and compare its share in the note with the shape's share of the image.",
    "patches.image": "image",
    "patches.barsTitle": "[CLS] weight per patch",
    "patches.patchAxis": "patch (row by row)",
    "patches.title": "image {n}: {label} (predicted {prediction})",
    "patches.subtitle": "layer {layer}, {which}: patches tinted by [CLS] weight",
    "patches.note":
      "[CLS] → patches the shape touches: {onShape}% of its attention (they are {share}% of the patches); {self}% stays on [CLS] itself",
    "patches.alt":
      "Image {n}, a {label}, layer {layer}, {which}: {onShape}% of the [CLS] attention falls on the {count} patches the shape touches; the largest weight, {weight}, is on patch {patch} (row {row}, column {column}).",
    "patches.legendWeight": "the [CLS] token's weight on a patch (tint and bars)",
    "patches.legendLargest": "the largest weight",
    "patches.legendShape": "a patch the shape touches (outline, and mark under its bar)",

    // chapter 1: the RNN bottleneck
    "gradient.label":
      "Gradient norm of the last RNN state with respect to earlier inputs, against the distance, log scale",
    "gradient.task":
      "Move ρ. The bold curve is the RNN at the ρ you picked: for small ρ its gradient falls by orders of magnitude with the distance, for large ρ it grows; the dashed self-attention line stays level, because every input is one step away.",
    "gradient.taskAlone":
      "Move ρ. The bold curve is the RNN at the ρ you picked: for small ρ its gradient falls by orders of magnitude with the distance, for large ρ it grows.",
    "gradient.rho": "spectral radius ρ(W_hh)",
    "gradient.distanceAxis": "distance T − t (steps back)",
    "gradient.normAxis": "‖∂h_T/∂x_t‖ (log scale)",
    "gradient.vanishes": "vanishes",
    "gradient.explodes": "explodes",
    "gradient.level": "stays roughly level",
    "gradient.note":
      "ρ = {rho}: from distance 0 to {last} the gradient norm changes by a factor 10^{factor}, so it {trend}",
    "gradient.alt": "For ρ = {rho} the gradient norm {trend}: it changes by a factor of 10^{factor} over {last} steps",
    "gradient.attention": "; one self-attention layer: 10^{factor}",
    "gradient.legendPicked": "the tanh RNN at the ρ picked",
    "gradient.legendOthers": "the other values of ρ",
    "gradient.legendAttention": "one self-attention layer (path length 1)",
    "timing.label":
      "Measured forward and backward times of each layer against the sequence length, log–log, with bars at the chosen length",
    "timing.task":
      "Move the sequence length n. Compare how each layer's measured time grows: an RNN's loop handles the positions one after another, while self-attention handles them all at once, though its work grows like n².",
    "timing.length": "sequence length n",
    "timing.lengthAxis": "sequence length n (log)",
    "timing.timeAxis": "forward + backward",
    "timing.heading": "measured at n = {n}",
    "timing.note": "n = {n}: fastest {fast} ({fastTime}), slowest {slow} ({slowTime}), {apart}× apart",
    "timing.pair": "{layer} {time}",
    "timing.alt": "At n = {n}: {times}; the slowest takes {apart} times the fastest.",
    "timing.legendLength": "the length picked",
  },

  zh: {
    "common.drawing": "{label}。{text}",
    "common.listSeparator": "，",
    "common.clauseSeparator": "；",
    "common.fullStop": "。",
    "common.head": "头",
    "common.headN": "头 {n}",
    "common.meanOfHeads": "各头平均",
    "common.layer": "层",
    "common.layerOf": "{n}（共 {N}）",
    "common.nats": "{x} 纳特",

    "attention.label": "条形：查询对各个键的注意力权重；方格：各个值及其加权和",
    "attention.task":
      "点击一个词，把它设为查询，再移动 τ。观察条形：τ 越小，权重越集中在一个键上；τ 越大，权重越平均地分给所有键；输出这一行随权重而变。",
    "attention.query": "查询",
    "attention.temperature": "温度 τ",
    "attention.values": "值 vⱼ",
    "attention.output": "输出",
    "attention.outputFormula": "= Σⱼ wⱼ vⱼ",
    "attention.title": "“{token}”对各个键的权重（τ = {tau}）",
    "attention.note":
      "最大权重 {largest} · 熵 {entropy} 纳特（均匀分布时为 {uniform}）· τ → 0 时只取一个键，τ → ∞ 时对所有键取平均",
    "attention.pair": "{token} {weight}",
    "attention.alt": "查询“{token}”，温度 {tau}：权重 {weights}；输出向量（{output}）。",
    "attention.legendQuery": "查询",
    "attention.legendWeight": "查询对每个键的权重",
    "attention.legendLargest": "最大权重",
    "attention.legendValues": "值与输出的各个分量",

    "scaling.label": "一个查询对各个键的注意力分数、它们的 softmax 权重，以及熵和梯度范数",
    "scaling.task":
      "先不缩放，把 d_k 调大；再换成 1/√d_k 和 1/d_k。观察最大权重和梯度条：不缩放时，权重趋于独热，梯度消失；1/√d_k 让它们保持稳定；1/d_k 则把权重压向均匀分布。",
    "scaling.scaling": "缩放",
    "scaling.option.none": "不缩放（系数 1）",
    "scaling.option.sqrt": "1/√d_k（论文）",
    "scaling.option.linear": "1/d_k",
    "scaling.factor.none": "1",
    "scaling.factor.sqrt": "(1/√d_k)",
    "scaling.factor.linear": "(1/d_k)",
    "scaling.logitsTitle": "分数 sⱼ = {scale} · q·kⱼ",
    "scaling.logitAxis": "分数值",
    "scaling.curveNote": "曲线：N(0, {sigma}²) · 点：{T} 个分数",
    "scaling.weightsTitle": "权重 p = softmax(s)",
    "scaling.uniform": "虚线：均匀分布 1/{T}",
    "scaling.keyAxis": "键 j（1…{T}）",
    "scaling.gaugeScale": "条形：对数刻度 10⁻⁶ … 10（熵：线性刻度）",
    "scaling.entropyGauge": "熵 H(p) / log T",
    "scaling.scoresGauge": "‖∂p/∂s‖_F（对分数）",
    "scaling.queryGauge": "‖∂p/∂q‖_F（对查询）",
    "scaling.note":
      "d_k = {d}，系数 = {scale}：分数的标准差 {std}（理论值 {theory}）· 最大权重 {largest}（均匀分布 {uniform}）· 熵 {entropy}，最大可达 {most} 纳特",
    "scaling.alt":
      "d_k = {d}，缩放方式 {scaling}：{T} 个分数的标准差为 {std}；最大权重 {largest}，熵 {entropy}，最大可达 {most} 纳特；对分数的梯度范数为 {toScores}，对查询的梯度范数为 {toQuery}。",
    "scaling.legendKeys": "一个键的分数（点）和权重（条）",
    "scaling.legendLargest": "最大权重及其分数",
    "scaling.legendTheory": "理论：分数服从 N(0, c²·d_k)",
    "scaling.legendUniform": "均匀权重 1/T",

    "heads.label": "每个头对一个查询的注意力权重、每个头对输出的贡献，以及它们的和",
    "heads.task": "逐个开关注意力头，并移动查询。看图下方的回答：找出仍能答对的最少的头，再看这些头关注的是哪些键。",
    "heads.kept": "保留的头",
    "heads.keepOne": "至少要保留一个头。",
    "heads.query": "查询位置",
    "heads.position": "{i}（“{token}”）",
    "heads.shares": "每个头对输出的贡献",
    "heads.sum": "Σ 保留",
    "heads.keyAxis": "键的位置（*：标记的键）",
    "heads.outputAxis": "输出的各个维度",
    "heads.title": "查询 {i}（“{token}”）对各个键的权重",
    "heads.off": "头 {n} ✕",
    "heads.all": "全部 {h} 个头",
    "heads.some": "头 {list}",
    "heads.noAnswer": "这里不要求回答（键在后面，或就是前一个词元）",
    "heads.right": "答案 {target}；保留{kept}，模型回答 {answer} ✓（对）",
    "heads.wrong": "答案 {target}；保留{kept}，模型回答 {answer} ✗（错）",
    "heads.note": "查询 {i}：{verdict} · |保留的头的贡献之和| = {norm}",
    "heads.looks": "头 {n} 最关注键 {j}（“{token}”，{weight}）",
    "heads.alt": "查询 {i}（“{token}”），保留{kept}：{looks}。{verdict}。",
    "heads.legendQuery": "查询位置",
    "heads.legendWeight": "保留的头对一个键的权重（越深越大）",
    "heads.legendLargest": "该头的最大权重",
    "heads.legendOff": "关闭的头",
    "heads.legendShares": "每个头对输出的贡献及其和",

    "positional.pos": "位置 pos",
    "positional.dimension": "维度",
    "positional.layout": "排列方式",
    "positional.layout.interleaved": "交错（论文）",
    "positional.layout.concatenated": "拼接",
    "positional.name.interleaved": "交错",
    "positional.name.concatenated": "拼接",
    "positional.legendValue": "PE 的取值",
    "peCurves.label": "曲线：位置编码的一个维度随位置的变化；色条：一个位置上的整个向量",
    "peCurves.task":
      "移动位置和维度。低维度随位置快速振荡，高维度几乎不变；下方的色条是该位置上的整个向量，每个位置的图案都不同。",
    "peCurves.title": "PE(·, {dim}) = {fn}(pos·{omega})，随位置的变化",
    "peCurves.partner": "虚线：与它配对的维度 {partner}",
    "peCurves.stripTitle": "向量 PE({pos})，全部 {d} 个维度",
    "peCurves.note":
      "PE({pos}, {dim}) = {fn}({pos} / {base}^({twoI}/{d})) = {value} · 第 i = {i} 对，波长 2π·{base}^({twoI}/{d}) = {wavelength} 个位置",
    "peCurves.alt":
      "维度 {dim}（第 {i} 对的 {fn}，波长 {wavelength} 个位置）在位置 0 到 {last} 上的取值；在位置 {pos} 处为 {value}。色条：PE({pos}) 的 {d} 个值。",
    "peCurves.legendCurve": "所选维度随位置的取值",
    "peCurves.legendPartner": "与它配对的正弦或余弦维度",
    "peCurves.legendPos": "所选位置",
    "peCurves.legendDim": "所选维度在向量 PE(pos) 中的位置",
    "peHeatmap.label": "位置编码表的热力图：纵向为位置，横向为维度，蓝色 −1 到红色 +1",
    "peHeatmap.task":
      "移动 d_model 并切换排列方式。左侧的列（拼接排列时为每一半的左侧）沿位置变化最快，右侧的列几乎不变；维度越多，频率分布得越细。",
    "peHeatmap.title": "PE：{L} 个位置 × {d} 个维度",
    "peHeatmap.allVisible": "每一对在这里都走完了可见的一段周期",
    "peHeatmap.slowPairs": "第 {slow}…{last} 对的波长超过 10 × {L} 个位置，看上去几乎不变",
    "peHeatmap.note": "{half} 个频率；波长从 2π ≈ 6.3 到 2π·{base}^({top}/{d}) ≈ {longest} 个位置 · {slow}",
    "peHeatmap.alt": "{L} × {d} 表的热力图，{layout}排列：{fast}沿位置变化最快，{rest}。",
    "peHeatmap.fast.interleaved": "左侧的列",
    "peHeatmap.fast.concatenated": "每一半左侧的列",
    "peHeatmap.restVisible": "每一列都有明显变化",
    "peHeatmap.restConstant": "从第 {slow} 对起的列几乎不变",
    "peRotation.label": "每个频率对一个单位圆：PE(pos) 的点、它按 k·ωᵢ 的旋转，以及落点",
    "peRotation.task":
      "移动 k：每一对按自己的角度 k·ωᵢ 旋转，快的对转得多，慢的对几乎不转。再移动 pos：点会移动，但角度不变，因为 M_k 与 pos 无关。",
    "peRotation.offset": "偏移 k",
    "peRotation.title": "M_{k} 把 PE({pos})（●）的每一对旋转 k·ωᵢ",
    "peRotation.subtitle": "落在 PE({to})（○）上，对任何 pos 都转同样的角度",
    "peRotation.caption": "第 {i} 对：{degrees}°",
    "peRotation.note": "M_{k} 中第 0 对的块：{block}（不含 pos）· 此处最大的 |M_k·PE(pos) − PE(pos+k)|：{worst}",
    "peRotation.alt": "偏移 k = {k}，位置 {pos}：{half} 对分别旋转 {degrees} 度，从 PE({pos}) 到 PE({to})。",
    "peRotation.legendFrom": "PE(pos)，每个圆一对",
    "peRotation.legendTo": "M_k·PE(pos) = PE(pos + k)",
    "peRotation.legendTurn": "旋转 k·ωᵢ",

    "cross.label": "每个输出字符对各个源字符的交叉注意力权重",
    "cross.task":
      "选择一个例子、一层和一个头。每一行是一个输出字符，亮的方格是它读取的源字符。比较不同的例子：无论格式把源字符放在哪里，输出字符都能找到它们吗？",
    "cross.example": "例子",
    "cross.sourceAxis": "源字符（键）→",
    "cross.outputAxis": "输出",
    "cross.title": "交叉注意力，第 {layer} 层，{which}",
    "cross.note": "每个输出字符最关注的源字符：{peaks}",
    "cross.alt":
      "第 {layer} 层、{which}在源“{source}”上的热力图：行是 {rows} 个输出字符，列是 {cols} 个源字符；每个输出字符最关注的源字符依次为 {peaks}。",
    "cross.legendWeight": "输出字符（行）对源字符（列）的权重",

    "schedule.label": "式 (3) 的学习率随训练步数的变化，与论文的基础设置对比",
    "schedule.task":
      "移动 d_model 和预热步数。学习率在预热阶段上升，在 (d_model · warmup)^−0.5 处达到峰值，之后按 1/√step 下降；与论文的基础设置对比。",
    "schedule.warmup": "预热步数",
    "schedule.stepAxis": "训练步数",
    "schedule.rateAxis": "学习率（lrate）",
    "schedule.note":
      "峰值 {peak} = (d_model · warmup)^−0.5，在第 {warmup} 步（论文的基础设置：{paperPeak}）；第 {steps} 步：{end}，为峰值的 {percent}% = √(warmup / step)",
    "schedule.alt":
      "d_model = {d}、warmup = {warmup} 时，学习率线性上升，在第 {warmup} 步达到 {peak}，之后按 1/√step 衰减，到第 {steps} 步为 {end}；论文设置的峰值为 {paperPeak}。",
    "schedule.legendYours": "你选的 d_model 和预热步数",
    "schedule.legendPaper": "论文的基础设置（{d_model}，{warmup}）",
    "schedule.legendPeak": "峰值，在 step = warmup 处",
    "smoothing.label": "标签平滑后的目标分布，以及损失随模型 logit 差距的变化",
    "smoothing.task":
      "移动 ε 和类别数 V。平滑后的目标给正确类别 1 − ε + ε/V，给其他每个类别 ε/V。ε > 0 时，损失在有限的差距处取得最小值；ε = 0 时，损失一直下降，推动模型越来越自信。",
    "smoothing.classes": "类别数 V",
    "smoothing.targetTitle": "平滑后的目标 q'",
    "smoothing.lossTitle": "损失与模型的置信度",
    "smoothing.marginAxis": "p 的 logit 差距 m",
    "smoothing.lossAxis": "H(q', p)（纳特）",
    "smoothing.classAxis": "类别 k（1…{V}；正确类别 y 在最前）",
    "smoothing.rightValue": "q'(y) = {value}",
    "smoothing.otherValue": "其他类别：ε/V = {value}",
    "smoothing.minimumAt": "最小值在 m* = {m}",
    "smoothing.minimumBeyond": "最小值在 m = {m} 之外",
    "smoothing.noMinimum": "ε = 0：没有最小值，m → ∞",
    "smoothing.note":
      "ε = {eps}，V = {V}：p = q' 时损失最小，即置信度 p(y) = {right}、logit 差距为 {m}，此时损失等于 H(q') = {H} 纳特；这样的模型在真实标签上的困惑度为 1/p(y) = {perplexity}，而 ε = 0 时可以降到 1",
    "smoothing.noteOneHot": "ε = 0，V = {V}：独热目标；差距越大损失越小，所以训练会把置信度 p(y) 推向 1",
    "smoothing.smallestAt": "在差距 {m} 处最小",
    "smoothing.keepsFalling": "一直下降，没有最小值",
    "smoothing.alt":
      "ε = {eps}，V = {V}：目标给正确类别 {right}，给其余 {others} 个类别各 {other}；损失随 logit 差距的变化{where}。",
    "smoothing.legendRight": "正确类别 y",
    "smoothing.legendOthers": "其他每个类别",
    "smoothing.legendLoss": "损失 H(q', p)",
    "smoothing.legendMinimum": "它的最小值",

    "sparsity.label": "两个 n × n 分数矩阵（滑动窗口与块稀疏）：用到的分数、计算后被掩蔽的分数和从未计算的分数",
    "sparsity.task":
      "移动窗口 w 和块大小 b，选择一种布局，切换到因果掩码。比较每个面板下方的两行：n² 个分数中计算了多少、用到了多少。试试 b + 2w > n：这时键条带的计算量比完整注意力还大。",
    "sparsity.window": "窗口 w",
    "sparsity.block": "块大小 b",
    "sparsity.layout": "布局",
    "sparsity.mask": "掩码",
    "sparsity.bidirectional": "双向（编码器）",
    "sparsity.causal": "因果（解码器）",
    "sparsity.layout.block_diagonal": "块对角",
    "sparsity.layout.local_band": "局部带状",
    "sparsity.layout.local_global": "局部 + 全局",
    "sparsity.layout.local_strided": "局部 + 跨步",
    "sparsity.keyAxis": "键位置 j（0…{last}）",
    "sparsity.queryAxis": "查询位置 i",
    "sparsity.windowTitle": "滑动窗口 |i − j| ≤ {w}",
    "sparsity.windowSubtitle": "查询块大小 {b}，键条带宽 {strip}",
    "sparsity.blockTitle": "块稀疏：{layout}",
    "sparsity.blockSubtitle": "{grid}×{grid} 个 {b}×{b} 块中的 {blocks} 个",
    "sparsity.used": "用到 {count} = n² 的 {share}",
    "sparsity.computed": "计算 {count} = n² 的 {share}（含填充）",
    "sparsity.summary": "滑动窗口：计算 {swComputed}，用到 {swUsed}；块稀疏：计算 {bsComputed}，用到 {bsUsed}。",
    "sparsity.note": "n = {n}：完整注意力计算全部 {all} 个分数。{summary}",
    "sparsity.altCausal": "因果，n = {n}，窗口 {w}，块大小 {b}，{layout}布局。{summary}",
    "sparsity.altBidirectional": "双向，n = {n}，窗口 {w}，块大小 {b}，{layout}布局。{summary}",
    "sparsity.legendUsed": "用到（在模式内）",
    "sparsity.legendMasked": "计算后被掩蔽",
    "sparsity.legendSkipped": "从未计算",

    "quantization.label": "一行权重的量化值与浮点值对比，以及模型准确率随位数的变化",
    "quantization.task":
      "移动位数 b，选择一层和一行。每个点是一个权重：横轴是浮点值，纵轴是量化值；位数越少，阶梯越粗。找出整个模型的完全匹配率从几位开始下降。",
    "quantization.row": "行 c",
    "quantization.bits": "位数 b",
    "quantization.nBits": "{b} 位",
    "quantization.floatAxis": "浮点权重 w_cj",
    "quantization.codeAxis": "ŵ_cj = q_cj · s_c",
    "quantization.accuracyTitle": "整个模型：完全匹配率",
    "quantization.title": "量化值 ŵ 与浮点值 w（{bits} 位）",
    "quantization.note":
      "{layer}，第 {row} 行：s = {s}，码值 −{qmax}…{qmax}（这一行用了 {used} 个）· 最大 |ŵ − w| = {error} ≤ s/2 = {half} · 整个模型在 {bits} 位时：完全匹配率 {accuracy}%",
    "quantization.alt":
      "{layer} 的第 {row} 行，{bits} 位：{weights} 个权重落在 {levels} 个量化级中的 {used} 个上，步长 s = {s}，最大误差 {error}；量化到 {bits} 位的整个模型完全匹配率为 {accuracy}%。",
    "quantization.legendWeight": "这一行的一个权重（横：浮点值，纵：量化值）",
    "quantization.legendExact": "ŵ = w（没有舍入误差）",
    "quantization.legendAccuracy": "整个模型在各个 b 下的完全匹配率",
    "quantization.legendBits": "所选位数",

    "patches.label": "按 [CLS] 词元的注意力着色的图像块，以及用条形表示的权重",
    "patches.task":
      "选择一张图像、一层和一个头。着色表示 [CLS] 词元看向哪里，框线标出形状覆盖的图像块。找一个看向形状的头，把说明中它的注意力占比与形状在图像中的占比相比较。",
    "patches.image": "图像",
    "patches.barsTitle": "每个图像块的 [CLS] 权重",
    "patches.patchAxis": "图像块（逐行）",
    "patches.title": "图像 {n}：{label}（预测为 {prediction}）",
    "patches.subtitle": "第 {layer} 层，{which}：按 [CLS] 权重着色",
    "patches.note":
      "[CLS] → 形状覆盖的图像块：占其注意力的 {onShape}%（这些块占全部的 {share}%）；{self}% 留在 [CLS] 自身",
    "patches.alt":
      "图像 {n}（{label}），第 {layer} 层，{which}：[CLS] 注意力的 {onShape}% 落在形状覆盖的 {count} 个图像块上；最大权重 {weight} 在第 {patch} 块（第 {row} 行，第 {column} 列）。",
    "patches.legendWeight": "[CLS] 词元对图像块的权重（着色和条形）",
    "patches.legendLargest": "最大权重",
    "patches.legendShape": "形状覆盖的图像块（框线，以及条形下方的标记）",

    "gradient.label": "RNN 最后状态对先前输入的梯度范数随距离的变化（对数刻度）",
    "gradient.task":
      "移动 ρ。粗线是所选 ρ 下的 RNN：ρ 小时，梯度随距离下降好几个数量级；ρ 大时，梯度随距离增长。虚线是自注意力，保持水平，因为每个输入都只隔一步。",
    "gradient.taskAlone": "移动 ρ。粗线是所选 ρ 下的 RNN：ρ 小时，梯度随距离下降好几个数量级；ρ 大时，梯度随距离增长。",
    "gradient.rho": "谱半径 ρ(W_hh)",
    "gradient.distanceAxis": "距离 T − t（往回的步数）",
    "gradient.normAxis": "‖∂h_T/∂x_t‖（对数刻度）",
    "gradient.vanishes": "消失",
    "gradient.explodes": "爆炸",
    "gradient.level": "大致保持水平",
    "gradient.note": "ρ = {rho}：从距离 0 到 {last}，梯度范数变化了 10^{factor} 倍，所以梯度{trend}",
    "gradient.alt": "ρ = {rho} 时梯度范数{trend}：在 {last} 步内变化了 10^{factor} 倍",
    "gradient.attention": "；一层自注意力：10^{factor}",
    "gradient.legendPicked": "所选 ρ 下的 tanh RNN",
    "gradient.legendOthers": "其他 ρ 值",
    "gradient.legendAttention": "一层自注意力（路径长度为 1）",
    "timing.label": "各层前向加反向传播的实测时间随序列长度的变化（双对数坐标），以及所选长度处的条形",
    "timing.task":
      "移动序列长度 n。比较各层的实测时间如何增长：RNN 的循环逐个处理位置，自注意力一次处理所有位置，但它的计算量按 n² 增长。",
    "timing.length": "序列长度 n",
    "timing.lengthAxis": "序列长度 n（对数）",
    "timing.timeAxis": "前向 + 反向",
    "timing.heading": "n = {n} 时的实测值",
    "timing.note": "n = {n}：最快的是 {fast}（{fastTime}），最慢的是 {slow}（{slowTime}），相差 {apart} 倍",
    "timing.pair": "{layer} {time}",
    "timing.alt": "n = {n} 时：{times}；最慢的是最快的 {apart} 倍。",
    "timing.legendLength": "所选长度",
  },
};

/**
 * The language of the page around `el`: "zh" when the nearest element with a lang attribute
 * (or the document) is Chinese (zh, zh-CN, zh_CN, zh-Hans…), else "en". `forced` ("en" or
 * "zh"), when given, wins.
 */
export function language(el, forced = "") {
  if (forced in STRINGS) return forced;
  let node = el && typeof el.closest === "function" ? el.closest("[lang]") : null;
  if (!node && typeof document !== "undefined") node = document.documentElement;
  const tag = node && typeof node.getAttribute === "function" ? node.getAttribute("lang") || "" : "";
  return /^zh([-_]|$)/i.test(tag) ? "zh" : "en";
}

/** The string `key` in language `lang` (English where that table lacks it), {name} filled in. */
export function translate(lang, key, values = {}) {
  const text = (STRINGS[lang] ?? STRINGS.en)[key] ?? STRINGS.en[key];
  if (text === undefined) throw new Error(`strings.js has no string ${key}`);
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

/**
 * t(key, values): the explorer's words, in the language of the page around `el`, or the one
 * the widget's `language` trait names ("en" or "zh"; "" follows the page).
 */
export function translator(el, model = null) {
  const forced = model && typeof model.get === "function" ? model.get("language") || "" : "";
  const lang = language(el, forced);
  return (key, values) => translate(lang, key, values);
}
