// Run the page's date check (viz/js/date_rule.js) in node, for the test that it answers as
// the package's parse_date and date_prefix_status. stdin: {"module": "/path/to/date_rule.js",
// "rule": {...}, "texts": ["..."], "statuses": ["..."]}; stdout: {"answers": one per text,
// {text, format, iso, note} or {problem, key, message}, the messages worded by the English
// string table (translator_strings.js, next to date_rule.js); "statuses": dateStatus of each of
// "statuses"}.
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

let text = "";
for await (const chunk of process.stdin) text += chunk;
const request = JSON.parse(text);
const { checkDate, dateStatus } = await import(pathToFileURL(request.module).href);
const strings = pathToFileURL(join(dirname(request.module), "translator_strings.js")).href;
const { translatorText } = await import(strings);
const words = ({ key, params }) => translatorText("en", key, params);
const answers = request.texts.map((t) => {
  const a = checkDate(request.rule, t);
  if (a.problem) return { problem: a.problem, key: a.key, message: words(a) };
  return { text: a.text, format: a.format, iso: a.iso, note: a.note && words(a.note) };
});
const statuses = (request.statuses || []).map((t) => dateStatus(request.rule, t));
process.stdout.write(JSON.stringify({ answers, statuses }));
