// Run the page's date check (viz/js/date_rule.js) in node, for the test that it answers as
// the package's parse_date. stdin: {"module": "/path/to/date_rule.js", "rule": {...},
// "texts": ["..."]}; stdout: one answer per text, as JSON: {text, format, iso, note} or
// {problem, message}.
import { pathToFileURL } from "node:url";

let text = "";
for await (const chunk of process.stdin) text += chunk;
const request = JSON.parse(text);
const { checkDate } = await import(pathToFileURL(request.module).href);
process.stdout.write(JSON.stringify(request.texts.map((t) => checkDate(request.rule, t))));
