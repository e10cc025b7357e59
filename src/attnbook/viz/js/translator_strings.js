// Every word the translator explorer shows or says, one table per language: labels, buttons,
// the drawing's legend and text alternative, accessible names, and the messages about the
// reader's input (the English ones are the package's own words: attnbook.data.dates and the
// vocabulary check; tests/test_web.py checks that they agree, string for string). The page's
// language picks the table (translatorLanguage: the lang of the nearest element that has one;
// zh, zh-CN, zh-Hans… → Chinese, anything else → English).
//
// A string may name values: {name} is params.name (an array is listed in the language's way:
// "a, b and c", "a、b和c"); {name:q} quotes it as a message quotes the reader's text; {name:c}
// quotes a character; {name:weekday} is the weekday of that number (Monday = 0), from the
// table's translator.weekday.names. Keys are "translator.<what>", as the other explorers' keys
// in strings.js are "<explorer>.<what>": this table joins theirs as it is (one Object.assign
// per language).

export const TRANSLATOR_STRINGS = {
  en: {
    "translator.list.sep": ", ",
    "translator.list.last": " and ",
    "translator.quote.message": "'{v}'",
    "translator.quote.char": "‘{v}’",
    "translator.weekday.names": "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday",
    // the panel
    "translator.input.date": "Type a date",
    "translator.input.source": "source",
    "translator.task":
      "Type a date, or press an example. Then move the step slider: each output character reads the source characters that give its value (the year's digits, the month's name).",
    "translator.examples": "Try a format:",
    "translator.examples.label": "Examples of the formats the model reads; each one translates when pressed",
    "translator.button": "Run the model in this page ({kb} KB)",
    "translator.button.plain": "Run the model in this page",
    "translator.loading": "Loading the model…",
    "translator.failed": "The model could not be loaded: {reason}",
    "translator.placeholder.failed": "The live translator could not start: {reason}",
    "translator.error.bytes": "the weights file holds {n} bytes, this model {m}",
    "translator.error.sha": "the weights file is another model's (its sha256 differs)",
    "translator.error.http": "{url} answered HTTP {status}",
    "translator.error.noweights": "this explorer holds no weights and names no file to fetch",
    "translator.error.nosite": "its weights are served by the book's site, and this page is not on it",
    "translator.error.name": 'data-model must name a model such as "dates", got "{name}"',
    "translator.error.meta": 'the page names no site folder (<meta name="attnbook-vendor">)',
    "translator.typing": "Keep typing…",
    "translator.cut": "No end after {n} characters: the answer is cut there.",
    "translator.nothing": "(nothing)",
    "translator.logp": "log P = {logp} (P = {p} %)",
    // the controls
    "translator.decoding": "decoding",
    "translator.decoding.greedy": "greedy",
    "translator.decoding.beam": "beam search ({k})",
    "translator.layer": "layer",
    "translator.layer.option": "{i} of {n}",
    "translator.head": "head",
    "translator.head.mean": "mean of heads",
    "translator.head.option": "head {k}",
    "translator.step": "step",
    "translator.step.shown": "{k} of {n}",
    "translator.step.none": "–",
    "translator.step.valuetext": "step {k} of {n}, writes {c:c}",
    "translator.step.valuetext.none": "none",
    // the drawing
    "translator.drawing.label":
      "Cross-attention of each output character over the source characters, computed in the page",
    "translator.title": "cross-attention, layer {l} of {n}, {which}, {kind}",
    "translator.title.narrow": "layer {l} of {n}, {which}, {kind}",
    "translator.caption": "step {k} of {n} writes {c:c} and reads:",
    "translator.axis.output": "output",
    "translator.key.low": "0",
    "translator.key.high": "1 (weight)",
    "translator.drawing.none": "No translation to show.",
    "translator.drawing.empty": "No output.",
    "translator.note": "Step {k} writes {c:c} with P = {p} (next best {c2:c}, P = {p2}); it reads {reads} most.",
    "translator.note.read": "{c:c} ({w})",
    "translator.alt":
      'Heat map of cross-attention, layer {l}, {which}, {kind} decoding of "{src}" into "{out}": rows are the {t} output characters, columns the {s} source characters; the strongest source character per output is {peaks}. {note}',
    "translator.alt.peak": "{o}→{s}",
    "translator.probability.below": "less than {p}",
    // the input, before the model: its characters and length (attnbook.data.vocab) ...
    "translator.source.empty.example": "Type a date such as '{example}'.",
    "translator.source.empty": "Type something to translate.",
    "translator.source.long": "Too long: {n} characters; the model reads at most {max}.",
    "translator.source.unknown.one": "{chars:q} is not in the model's vocabulary.",
    "translator.source.unknown.many": "{chars:q} are not in the model's vocabulary.",
    // ... and the date (attnbook.data.dates.parse_date, in its words)
    "translator.date.empty": "empty input: type a date such as '{example}'",
    "translator.date.yy":
      "the '{format}' format takes a two-digit year, got '{value}' (write four-digit years in another format)",
    "translator.date.year":
      "year {year} is outside the supported range: the model reads four-digit years {first}–{last}",
    "translator.date.month": "month {month} does not exist (months are 1–12)",
    "translator.date.month_name": "'{name}' is not a month; the months are {names}",
    "translator.date.day": "day {day} does not exist: {month_name} {year} has {last} days",
    "translator.date.two_day": "the '{format}' format writes the day with two digits, got '{value}'",
    "translator.date.two_month": "the '{format}' format writes the month with two digits, got '{value}'",
    "translator.date.plain_day":
      "the '{format}' format writes the day as 1–2 digits with no leading zero, got '{value}'",
    "translator.date.plain_month":
      "the '{format}' format writes the month as 1–2 digits with no leading zero, got '{value}'",
    "translator.date.weekday": "'{name}' is not a weekday; the weekdays are {names}",
    "translator.date.long": "input of {n} characters is longer than any date the model reads (at most {max})",
    // the page shows the formats as examples to press, so it points to them instead of listing them
    "translator.date.format": "not a date format the model reads; write it like one of the examples below",
    "translator.date.note": "{iso} is a {actual_i:weekday}, not a {given_i:weekday}",
  },
  zh: {
    "translator.list.sep": "、",
    "translator.list.last": "和",
    "translator.quote.message": "“{v}”",
    "translator.quote.char": "“{v}”",
    "translator.weekday.names": "星期一|星期二|星期三|星期四|星期五|星期六|星期日",
    "translator.input.date": "输入日期",
    "translator.input.source": "源文本",
    "translator.task":
      "输入一个日期，或按下一个示例；再拖动“步”滑块：每个输出字符都关注源文本中给出它的值的那些字符（年份的数字、月份的名称）。",
    "translator.examples": "试试这些格式：",
    "translator.examples.label": "模型能读的日期格式示例，按下即可翻译",
    "translator.button": "在本页运行模型（{kb} KB）",
    "translator.button.plain": "在本页运行模型",
    "translator.loading": "正在加载模型……",
    "translator.failed": "模型加载失败：{reason}",
    "translator.placeholder.failed": "实时翻译器无法启动：{reason}",
    "translator.error.bytes": "权重文件有 {n} 字节，这个模型的是 {m} 字节",
    "translator.error.sha": "权重文件属于另一个模型（sha256 不同）",
    "translator.error.http": "{url} 返回了 HTTP {status}",
    "translator.error.noweights": "这个探索器既不带权重，也没有指明要获取的文件",
    "translator.error.nosite": "它的权重由本书的网站提供，而本页不在该网站上",
    "translator.error.name": "data-model 应指明一个模型，例如“dates”，这里是“{name}”",
    "translator.error.meta": '本页没有指明网站的文件夹（<meta name="attnbook-vendor">）',
    "translator.typing": "请继续输入……",
    "translator.cut": "输出 {n} 个字符后仍未结束：答案在此截断。",
    "translator.nothing": "（空）",
    "translator.logp": "log P = {logp}（P = {p}%）",
    "translator.decoding": "解码",
    "translator.decoding.greedy": "贪心搜索",
    "translator.decoding.beam": "束搜索（{k}）",
    "translator.layer": "层",
    "translator.layer.option": "第 {i} 层，共 {n} 层",
    "translator.head": "头",
    "translator.head.mean": "各头的平均",
    "translator.head.option": "第 {k} 个头",
    "translator.step": "步",
    "translator.step.shown": "第 {k} 步，共 {n} 步",
    "translator.step.none": "–",
    "translator.step.valuetext": "第 {k} 步，共 {n} 步，写出 {c:c}",
    "translator.step.valuetext.none": "无",
    "translator.drawing.label": "每个输出字符对各个源字符的交叉注意力，在页面中计算",
    "translator.title": "交叉注意力，第 {l} 层（共 {n} 层），{which}，{kind}",
    "translator.title.narrow": "第 {l} 层（共 {n} 层），{which}，{kind}",
    "translator.caption": "第 {k} 步（共 {n} 步）写出 {c:c}，读取：",
    "translator.axis.output": "输出",
    "translator.key.low": "0",
    "translator.key.high": "1（权重）",
    "translator.drawing.none": "没有可显示的翻译。",
    "translator.drawing.empty": "没有输出。",
    "translator.note": "第 {k} 步写出 {c:c}，P = {p}（其次是 {c2:c}，P = {p2}）；它最关注 {reads}。",
    "translator.note.read": "{c:c}（{w}）",
    "translator.alt":
      "交叉注意力热图：第 {l} 层，{which}，用{kind}把“{src}”译为“{out}”；行是 {t} 个输出字符，列是 {s} 个源字符；每个输出字符最关注的源字符依次是 {peaks}。{note}",
    "translator.alt.peak": "{o}→{s}",
    "translator.probability.below": "小于 {p}",
    "translator.source.empty.example": "请输入日期，例如“{example}”。",
    "translator.source.empty": "请输入要翻译的文本。",
    "translator.source.long": "太长了：{n} 个字符；模型最多读 {max} 个字符。",
    "translator.source.unknown.one": "{chars:q}不在模型的词表中。",
    "translator.source.unknown.many": "{chars:q}不在模型的词表中。",
    "translator.date.empty": "输入为空：请输入日期，例如“{example}”",
    "translator.date.yy": "“{format}”格式的年份写两位数字，这里是“{value}”（四位数的年份请用其他格式）",
    "translator.date.year": "年份 {year} 超出支持的范围：模型只读 {first}–{last} 年的四位数年份",
    "translator.date.month": "没有 {month} 月（月份是 1–12）",
    "translator.date.month_name": "“{name}”不是月份；月份写作 {names}",
    "translator.date.day": "没有 {day} 日：{year} 年 {month} 月只有 {last} 天",
    "translator.date.two_day": "“{format}”格式的日写两位数字，这里是“{value}”",
    "translator.date.two_month": "“{format}”格式的月写两位数字，这里是“{value}”",
    "translator.date.plain_day": "“{format}”格式的日写 1–2 位数字，不补零，这里是“{value}”",
    "translator.date.plain_month": "“{format}”格式的月写 1–2 位数字，不补零，这里是“{value}”",
    "translator.date.weekday": "“{name}”不是星期几；星期写作 {names}",
    "translator.date.long": "输入有 {n} 个字符，比模型能读的任何日期都长（最多 {max} 个字符）",
    "translator.date.format": "模型读不懂这种日期格式；请仿照下面的示例书写",
    "translator.date.note": "{iso} 是{actual_i:weekday}，不是{given_i:weekday}",
  },
};

/** "zh" on a Chinese page (the lang of the nearest element of `el` that has one: zh, zh-CN, …), else "en". */
export function translatorLanguage(el) {
  const marked = el && typeof el.closest === "function" ? el.closest("[lang]") : null;
  const lang = marked ? marked.lang : "";
  return /^zh\b/i.test(lang) ? "zh" : "en";
}

/** A value of a string as the language writes it (see the top of this file for {name:how}). */
function translatorValue(table, value, how) {
  if (how === "weekday") return table["translator.weekday.names"].split("|")[value];
  const quote = how === "q" ? table["translator.quote.message"] : how === "c" ? table["translator.quote.char"] : null;
  const one = (v) => (quote ? quote.replace("{v}", String(v)) : String(v));
  if (!Array.isArray(value)) return one(value);
  const items = value.map(one);
  if (items.length < 2) return items.join("");
  return (
    items.slice(0, -1).join(table["translator.list.sep"]) + table["translator.list.last"] + items[items.length - 1]
  );
}

/** The string `key` of the language `lang` ("en" or "zh"), its {names} filled from `params`. */
export function translatorText(lang, key, params = {}) {
  const table = TRANSLATOR_STRINGS[lang] || TRANSLATOR_STRINGS.en;
  const template = table[key] ?? TRANSLATOR_STRINGS.en[key];
  if (template === undefined) throw new Error(`the translator has no string ${key}`);
  return template.replace(/\{(\w+)(?::(\w+))?\}/g, (_, name, how) => translatorValue(table, params[name], how));
}

/** A message as a sentence of the language: a capital first letter and a full stop in English, a 。 in Chinese. */
export function translatorSentence(lang, message) {
  if (lang === "zh") return /[。！？]$/.test(message) ? message : `${message}。`;
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
