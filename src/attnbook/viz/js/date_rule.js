// The date model's input check, run in the page: the same answers as the package's
// attnbook.data.dates (parse_date and date_prefix_status), from the rule the export writes
// into the manifest (input.rule: the package's own layouts and patterns, year range,
// two-digit-year pivot, month and weekday names), so that a date the package refuses is
// refused here, before the model is asked, and a date still being typed is told from one
// that cannot become a date. Nothing here names a year, a month or a format: all come from
// the rule. Nor does anything here word a message: a problem comes back as a key of the
// translator's string tables (translator_strings.js) and its values, which the English
// table words as the package does. tests/test_web.py checks the two agree, string for string.

/** Days in `month` (1–12) of `year`, in the proleptic Gregorian calendar (as Python's datetime). */
function dateDaysInMonth(year, month) {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0); // day 0 of the next month: the last day of this one
  return d.getUTCDate();
}

/** Monday = 0 … Sunday = 6, as Python's date.weekday(). */
function dateWeekday(year, month, day) {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return (d.getUTCDay() + 6) % 7;
}

const datePad = (n, width) => String(n).padStart(width, "0");

const dateLeap = (y) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** A problem of the input: thrown while reading it, returned as {problem, key, params}. */
class DateProblem extends Error {
  constructor(key, params) {
    super(key);
    this.key = key;
    this.params = params;
  }
}

/**
 * What the page needs of a rule, made once per rule: each format's pattern and layout, and
 * the names of each name field by their lower-case spelling ({value, written}).
 */
const DATE_RULES = new WeakMap();

function dateParts(rule) {
  if (!DATE_RULES.has(rule)) {
    const fieldPattern = (field) => new RegExp(`^(?:${rule.fields[field]})$`);
    const named = (names, value) =>
      new Map(names.map((written, i) => [written.toLowerCase(), { value: value(i), written }]));
    DATE_RULES.set(rule, {
      formats: rule.formats.map((f) => ({ ...f, regex: new RegExp(`^(?:${f.pattern})$`) })),
      names: {
        month_name: named(rule.months, (i) => i + 1),
        mon: named(
          rule.months.map((m) => m.slice(0, 3)),
          (i) => i + 1,
        ),
        weekday: named(rule.weekdays, (i) => i),
      },
      fieldPattern,
      candidates: new Map(),
    });
  }
  return DATE_RULES.get(rule);
}

function dateYear(rule, f) {
  if (f.yy !== undefined) {
    if (f.yy.length !== 2) throw new DateProblem("translator.date.yy", { format: rule.two_digit_format, value: f.yy });
    return (Number(f.yy) >= rule.pivot ? 1900 : 2000) + Number(f.yy);
  }
  const y = Number(f.year);
  if (f.year.length !== 4 || y < rule.first_year || y > rule.last_year) {
    throw new DateProblem("translator.date.year", { year: f.year, first: rule.first_year, last: rule.last_year });
  }
  return y;
}

function dateMonth(parts, f) {
  if (f.month !== undefined) {
    const m = Number(f.month);
    if (m < 1 || m > 12) throw new DateProblem("translator.date.month", { month: f.month });
    return m;
  }
  const field = f.month_name !== undefined ? "month_name" : "mon";
  const names = parts.names[field];
  const found = names.get(f[field].toLowerCase());
  if (!found)
    throw new DateProblem("translator.date.month_name", {
      name: f[field],
      names: [...names.values()].map((n) => n.written),
    });
  return found.value;
}

function dateDigits(rule, format, f) {
  const twoDigits = rule.two_digit_fields.includes(format);
  for (const name of ["day", "month"]) {
    const value = f[name];
    if (value === undefined) continue;
    if (twoDigits && value.length !== 2) throw new DateProblem(`translator.date.two_${name}`, { format, value });
    if (!twoDigits && (value.length > 2 || value.startsWith("0"))) {
      throw new DateProblem(`translator.date.plain_${name}`, { format, value });
    }
  }
}

/** The text of the fields in the layout, each name spelt as the formats write it. */
function dateNormalised(parts, layout, f) {
  return layout.map((t) => (parts.names[t] ? parts.names[t].get(f[t].toLowerCase()).written : (f[t] ?? t))).join("");
}

/**
 * What the date string `text` says under `rule` (the manifest's input.rule): {text (trimmed,
 * names in the format's letter case: what the model is given), format, iso, note}, note being
 * {key, params} for a weekday that does not match the date (else null); or {problem, key,
 * params} saying why the model cannot read it. As parse_date.
 */
export function checkDate(rule, text) {
  const stripped = text.trim();
  if (!stripped) return { problem: "empty", key: "translator.date.empty", params: { example: rule.formats[0].name } };
  const parts = dateParts(rule);
  try {
    for (const { name: format, regex, layout } of parts.formats) {
      const match = regex.exec(stripped);
      if (!match) continue;
      const f = Object.fromEntries(Object.entries(match.groups).filter(([, v]) => v !== undefined));
      const y = dateYear(rule, f);
      const m = dateMonth(parts, f);
      const last = dateDaysInMonth(y, m);
      const d = Number(f.day);
      if (d < 1 || d > last) {
        throw new DateProblem("translator.date.day", {
          day: f.day,
          month: m,
          month_name: rule.months[m - 1],
          year: y,
          last,
        });
      }
      dateDigits(rule, format, f);
      const iso = `${datePad(y, 4)}-${datePad(m, 2)}-${datePad(d, 2)}`;
      let note = null;
      if (f.weekday !== undefined) {
        const given = parts.names.weekday.get(f.weekday.toLowerCase());
        if (!given) throw new DateProblem("translator.date.weekday", { name: f.weekday, names: rule.weekdays });
        const actual = dateWeekday(y, m, d);
        if (given.value !== actual) {
          const params = { iso, actual: rule.weekdays[actual], actual_i: actual, given: given.written };
          note = { key: "translator.date.note", params: { ...params, given_i: given.value } };
        }
      }
      return { text: dateNormalised(parts, layout, f), format, iso, note };
    }
  } catch (error) {
    if (error instanceof DateProblem) return { problem: "date", key: error.key, params: error.params };
    throw error;
  }
  const n = Array.from(stripped).length;
  if (n > rule.max_chars) return { problem: "long", key: "translator.date.long", params: { n, max: rule.max_chars } };
  return { problem: "format", key: "translator.date.format", params: { formats: rule.formats.map((x) => x.name) } };
}

// ------------------------------------------------------------------ typing, key by key

/**
 * The texts the format may hold in `field` (lower case), for reading a text key by key:
 * `full`, a whole text → the value it gives; `started`, a start of one (shorter) → the values
 * it may still give; `lengths`, the lengths of the whole texts; `fixes`, what the values are
 * ("day", "month", "year"; "" for a weekday, which fixes nothing).
 */
function dateFieldIndex(rule, parts, format, field) {
  const key = `${format}\u0000${field}`;
  if (parts.candidates.has(key)) return parts.candidates.get(key);
  const two = rule.two_digit_fields.includes(format);
  const texts = new Map();
  if (field === "day" || field === "month") {
    for (let v = 1; v <= (field === "day" ? 31 : 12); v++) texts.set(two ? datePad(v, 2) : String(v), v);
  } else if (field === "year") {
    for (let y = rule.first_year; y <= rule.last_year; y++) texts.set(String(y), y);
  } else if (field === "yy") {
    for (let y = 1900 + rule.pivot; y <= 2000 + rule.pivot - 1; y++) texts.set(datePad(y % 100, 2), y);
  } else {
    const pattern = parts.fieldPattern(field);
    for (const [lower, { value, written }] of parts.names[field]) if (pattern.test(written)) texts.set(lower, value);
  }
  const started = new Map();
  for (const [text, value] of texts) {
    for (let n = 1; n < text.length; n++) {
      const start = text.slice(0, n);
      if (!started.has(start)) started.set(start, new Set());
      started.get(start).add(value);
    }
  }
  const fixes = { yy: "year", month_name: "month", mon: "month", weekday: "" }[field] ?? field;
  const lengths = [...new Set([...texts.keys()].map((t) => t.length))].sort((a, b) => a - b);
  const index = { fixes, full: texts, started, lengths };
  parts.candidates.set(key, index);
  return index;
}

/** Whether some date the format writes has its day, month and year among `fixed` (a field not in it may be anything). */
function datePossible(rule, format, fixed) {
  const two = format === rule.two_digit_format;
  const [first, last] = two ? [1900 + rule.pivot, 2000 + rule.pivot - 1] : [rule.first_year, rule.last_year];
  let leap = false;
  if (fixed.year) leap = [...fixed.year].some(dateLeap);
  else for (let y = first; y <= last && !leap; y++) leap = dateLeap(y);
  const leastDay = fixed.day ? Math.min(...fixed.day) : 1;
  for (let month = 1; month <= 12; month++) {
    if (fixed.month && !fixed.month.has(month)) continue;
    const days = month === 2 && leap ? 29 : dateDaysInMonth(2001, month);
    if (leastDay <= days) return true;
  }
  return false;
}

/** Whether the lower-case `text` is the start of some date the format writes (any weekday: a wrong one is only a note). */
function dateCouldBecome(rule, parts, format, layout, text) {
  const walk = (i, pos, fixed) => {
    const rest = text.slice(pos);
    if (!rest) return datePossible(rule, format, fixed);
    if (i === layout.length) return false; // longer than the format
    const token = layout[i];
    if (!Object.hasOwn(rule.fields, token)) {
      if (rest.startsWith(token)) return walk(i + 1, pos + token.length, fixed);
      return token.startsWith(rest) && datePossible(rule, format, fixed);
    }
    const index = dateFieldIndex(rule, parts, format, token);
    const narrowed = (values) => (index.fixes ? { ...fixed, [index.fixes]: values } : fixed);
    for (const n of index.lengths) {
      // the text holds the whole field ...
      const value = rest.length >= n ? index.full.get(rest.slice(0, n)) : undefined;
      if (value !== undefined && walk(i + 1, pos + n, narrowed(new Set([value])))) return true;
    }
    const values = index.started.get(rest); // ... or stops inside it
    return values !== undefined && datePossible(rule, format, narrowed(values));
  };
  return walk(0, 0, {});
}

/**
 * How far `text` is from a date the model reads, for a reader typing it key by key: "date"
 * when checkDate reads it, "incomplete" when it does not but some date the model reads starts
 * with it (so more keys may make it one; an empty text too), "invalid" when no key can. As
 * date_prefix_status: white space around ignored, names in any letter case.
 */
export function dateStatus(rule, text) {
  if (!checkDate(rule, text).problem) return "date";
  const stripped = text.trim().toLowerCase();
  if (Array.from(stripped).length > rule.max_chars) return "invalid";
  const parts = dateParts(rule);
  const could = parts.formats.some(({ name, layout }) => dateCouldBecome(rule, parts, name, layout, stripped));
  return could ? "incomplete" : "invalid";
}
