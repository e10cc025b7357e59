// The date model's input check, run in the page: the same answers as the package's
// attnbook.data.dates.parse_date, from the rule the export writes into the manifest
// (input.rule: the package's own patterns, year range, two-digit-year pivot, month and
// weekday names), so that a date the package refuses is refused here with the same words,
// before the model is asked. Nothing here names a year, a month or a format: all come from
// the rule. tests/test_web.py checks the two agree, string for string.

/** Python's repr of a string of letters and digits, as the package's messages quote them. */
const dateQuoted = (s) => `'${s}'`;
const dateListed = (items) => `[${items.map(dateQuoted).join(", ")}]`;

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

function dateYear(rule, f) {
  if (f.yy !== undefined) {
    if (f.yy.length !== 2) {
      throw new RangeError(
        `the ${dateQuoted(rule.two_digit_format)} format takes a two-digit year, got ${dateQuoted(f.yy)} ` +
          "(write four-digit years in another format)",
      );
    }
    return (Number(f.yy) >= rule.pivot ? 1900 : 2000) + Number(f.yy);
  }
  const y = Number(f.year);
  if (f.year.length !== 4 || y < rule.first_year || y > rule.last_year) {
    throw new RangeError(
      `year ${f.year} is outside the supported range: the model reads four-digit years ` +
        `${rule.first_year}–${rule.last_year}`,
    );
  }
  return y;
}

function dateMonth(rule, f) {
  if (f.month !== undefined) {
    const m = Number(f.month);
    if (m < 1 || m > 12) throw new RangeError(`month ${f.month} does not exist (months are 1–12)`);
    return m;
  }
  const name = f.month_name ?? f.mon;
  const names = f.month_name !== undefined ? rule.months : rule.months.map((m) => m.slice(0, 3));
  const i = names.indexOf(name);
  if (i < 0) throw new RangeError(`${dateQuoted(name)} is not a month; expected one of ${dateListed(names)}`);
  return i + 1;
}

function dateDigits(rule, format, f) {
  const twoDigits = rule.two_digit_fields.includes(format);
  for (const name of ["day", "month"]) {
    const value = f[name];
    if (value === undefined) continue;
    if (twoDigits && value.length !== 2) {
      throw new RangeError(
        `the ${dateQuoted(format)} format writes the ${name} with two digits, got ${dateQuoted(value)}`,
      );
    }
    if (!twoDigits && (value.length > 2 || value.startsWith("0"))) {
      throw new RangeError(
        `the ${dateQuoted(format)} format writes the ${name} as 1–2 digits with no leading zero, got ${dateQuoted(value)}`,
      );
    }
  }
}

// Compiled patterns by rule (a rule is read once per page).
const DATE_PATTERNS = new WeakMap();

function datePatterns(rule) {
  if (!DATE_PATTERNS.has(rule)) {
    DATE_PATTERNS.set(
      rule,
      rule.formats.map(({ name, pattern }) => [name, new RegExp(`^(?:${pattern})$`)]),
    );
  }
  return DATE_PATTERNS.get(rule);
}

/**
 * What the date string `text` says under `rule` (the manifest's input.rule): {text (trimmed),
 * format, iso, note} with note naming a weekday that does not match the date (or null), or
 * {problem, message} saying why the model cannot read it, in the package's words.
 */
export function checkDate(rule, text) {
  const stripped = text.trim();
  if (!stripped) return { problem: "empty", message: rule.empty };
  try {
    for (const [format, regex] of datePatterns(rule)) {
      const match = regex.exec(stripped);
      if (!match) continue;
      const f = Object.fromEntries(Object.entries(match.groups).filter(([, v]) => v !== undefined));
      const y = dateYear(rule, f);
      const m = dateMonth(rule, f);
      const last = dateDaysInMonth(y, m);
      const d = Number(f.day);
      if (d < 1 || d > last) {
        throw new RangeError(`day ${f.day} does not exist: ${rule.months[m - 1]} ${y} has ${last} days`);
      }
      dateDigits(rule, format, f);
      const iso = `${datePad(y, 4)}-${datePad(m, 2)}-${datePad(d, 2)}`;
      let note = null;
      if (f.weekday !== undefined) {
        if (!rule.weekdays.includes(f.weekday)) {
          throw new RangeError(
            `${dateQuoted(f.weekday)} is not a weekday; expected one of ${dateListed(rule.weekdays)}`,
          );
        }
        const actual = rule.weekdays[dateWeekday(y, m, d)];
        if (f.weekday !== actual) note = `${iso} is a ${actual}, not a ${f.weekday}`;
      }
      return { text: stripped, format, iso, note };
    }
  } catch (error) {
    if (error instanceof RangeError) return { problem: "date", message: error.message };
    throw error;
  }
  const n = Array.from(stripped).length;
  if (n > rule.max_chars) {
    return {
      problem: "long",
      message: `input of ${n} characters is longer than any date the model reads (at most ${rule.max_chars})`,
    };
  }
  return {
    problem: "format",
    message: `not a date format the model reads; the formats are ${dateListed(rule.formats.map((x) => x.name))}`,
  };
}
