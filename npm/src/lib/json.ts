// JSON helpers for the tokens Python's json module writes and JSON.parse
// rejects (Infinity, -Infinity, NaN): IR files and the engine's reports use them.

const SENTINEL = '\u0000tir:';

// JSON.parse that also accepts bare Infinity / -Infinity / NaN tokens.
export function parseJsonLoose(text: string): any {
  try {
    return JSON.parse(text);
  } catch (e) {
    if (!/Infinity|NaN/.test(text)) throw e;
  }
  const parts: string[] = [];
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) ++i;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    let token = null;
    if (c === 45 /* - */ && text.startsWith('-Infinity', i)) token = '-Infinity';
    else if (c === 73 /* I */ && text.startsWith('Infinity', i)) token = 'Infinity';
    else if (c === 78 /* N */ && text.startsWith('NaN', i)) token = 'NaN';
    if (token) {
      parts.push(text.slice(last, i), JSON.stringify(SENTINEL + token));
      i += token.length - 1;
      last = i + 1;
    }
  }
  parts.push(text.slice(last));
  return JSON.parse(parts.join(''), (_k, v) =>
    typeof v === 'string' && v.startsWith(SENTINEL) ? Number(v.slice(SENTINEL.length)) : v);
}

// JSON.stringify that writes non-finite numbers as Infinity / -Infinity / NaN
// (as Python does) and BigInts as plain integers, instead of null / throwing.
export function stringifyIr(obj: unknown): string {
  let special = false;
  const text = JSON.stringify(obj, (_k, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) {
      special = true;
      return SENTINEL + String(v);
    }
    if (typeof v === 'bigint') {
      special = true;
      return SENTINEL + v.toString();
    }
    return v;
  });
  if (!special) return text;
  return text.replace(/"\\u0000tir:(-?Infinity|NaN|-?\d+)"/g, '$1');
}
