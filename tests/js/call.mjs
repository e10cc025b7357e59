// Call named exports of an ES module with JSON arguments, for the parity tests.
// stdin: {"module": "/path/to/module.js", "calls": [["name", [arg, ...]], ...]}
// stdout: the results, one per call, as a JSON array.
import { pathToFileURL } from "node:url";

let text = "";
for await (const chunk of process.stdin) text += chunk;
const { module, calls } = JSON.parse(text);
const exports = await import(pathToFileURL(module).href);
const results = calls.map(([name, args]) => {
  if (typeof exports[name] !== "function") throw new Error(`${module} exports no function ${name}`);
  return exports[name](...args);
});
process.stdout.write(JSON.stringify(results));
