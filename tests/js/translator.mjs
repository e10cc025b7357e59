// Run the in-browser Transformer (viz/js/transformer.js) in node, for the parity tests.
// stdin: {"module": "/path/to/transformer.js", "manifest": "/path/to/manifest.json",
//         "cases": [{"text": "...", "target": [ids] (optional), "attention": bool}], "max_len": 12,
//         "beam_size": 4, "alpha": 0.6}
// stdout: one result per case, as JSON: the source ids (or the input check's problem, worded by
// the English string table of translator_strings.js, next to transformer.js), greedy
// and beam search (ids, text, log-probability, each step's logits) and, for a case with a
// target, the teacher-forced logits after each of its tokens; with "attention", the encoder's
// self-attention and each greedy step's self- and cross-attention too.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

let text = "";
for await (const chunk of process.stdin) text += chunk;
const request = JSON.parse(text);
const T = await import(pathToFileURL(request.module).href);
const { translatorText } = await import(pathToFileURL(join(dirname(request.module), "translator_strings.js")).href);
const manifest = JSON.parse(readFileSync(request.manifest, "utf-8"));
const net = T.loadModel(manifest, readFileSync(join(dirname(request.manifest), manifest.weights.file)));

const decoded = (result, attention) => ({
  ids: result.ids,
  text: result.text,
  logProb: result.logProb,
  score: result.score ?? null,
  finished: result.finished,
  logits: result.steps.map((s) => Array.from(s.logits)),
  self: attention ? result.steps.map((s) => Array.from(s.self)) : null,
  cross: attention ? result.steps.map((s) => Array.from(s.cross)) : null,
});

const results = request.cases.map(({ text: source, target, attention }) => {
  const checked = T.checkSource(net, source);
  if (!checked.ids) return { problem: checked.problem, message: translatorText("en", checked.key, checked.params) };
  const enc = T.encode(net, checked.ids);
  return {
    ids: checked.ids,
    encoder: attention ? enc.attention.map((w) => Array.from(w)) : null,
    greedy: decoded(T.greedy(net, enc, request.max_len), attention),
    beam: decoded(T.beamSearch(net, enc, request.max_len, request.beam_size, request.alpha), false),
    forced: target ? T.forward(net, checked.ids, target) : null,
  };
});
process.stdout.write(JSON.stringify(results));
