// Small helpers shared by the LLM demo page (examples/llm/) and the graph
// viewer's Generate panel (web/src/generate-panel.js): a byte-level tokenizer
// (for models without a tokenizer.json),
// prompt parsing (token ids or text), telling a prefill IR, a decode IR and a
// KV mapping apart, and the generation stats as rows. No dependencies.
//
// The byte tokenizer: text -> its UTF-8 bytes as ids 0..255 (valid for any
// vocabulary of at least 256 ids) and back, for the random-weight test model,
// whose vocabulary has no tokenizer behind it. A model with a tokenizer.json
// gives it to loadLM ({ tokenizer }) and generates text.

const utf8 = new TextEncoder();

/** Text -> token ids 0..255 (its UTF-8 bytes). */
export function encodeBytes(text) {
  return Array.from(utf8.encode(text));
}

// C0 controls other than tab and newline as their Unicode control pictures (U+2400..), DEL as U+2421.
const visible = (s) => s.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => (c === '\u007f' ? '\u2421' : String.fromCharCode(0x2400 + c.charCodeAt(0))));

/** Token ids -> display text: runs of ids < 256 decoded as UTF-8 bytes, larger ids as ⟨id⟩. */
export function decodeBytes(ids) {
  let out = '';
  let run = [];
  const flush = () => {
    if (run.length) out += visible(new TextDecoder().decode(new Uint8Array(run)));
    run = [];
  };
  for (const id of ids) {
    if (id >= 0 && id < 256) run.push(id);
    else {
      flush();
      out += `\u27e8${id}\u27e9`;
    }
  }
  flush();
  return out;
}

const ID_LIST = /^[\s,]*\d+(?:[\s,]+\d+)*[\s,]*$/;

/**
 * A prompt box's text -> {ids, kind: 'ids' | 'text'}. mode 'auto' reads a list of
 * comma/space-separated integers as token ids and anything else as text; 'ids' and
 * 'text' force one reading. encode: the model's tokenizer (text -> ids); without
 * one, the byte tokenizer. Throws an Error with a message for the page on bad input.
 */
export function parsePrompt(text, { mode = 'auto', vocabSize = Infinity, encode = null } = {}) {
  if (!text || !text.trim()) throw new Error('the prompt is empty: type token ids (e.g. 939, 10, 323) or text');
  if (mode === 'ids' || (mode === 'auto' && ID_LIST.test(text))) {
    const ids = [];
    for (const part of text.split(/[\s,]+/).filter(Boolean)) {
      if (!/^\d+$/.test(part)) throw new Error(`prompt: '${part}' is not a token id (a non-negative integer)`);
      const id = Number(part);
      if (id >= vocabSize) throw new Error(`prompt: token id ${id} is outside the vocabulary [0, ${vocabSize})`);
      ids.push(id);
    }
    return { ids, kind: 'ids' };
  }
  if (encode) return { ids: encode(text), kind: 'text' };
  if (vocabSize < 256) throw new Error(`the byte tokenizer needs a vocabulary of at least 256 ids (this model has ${vocabSize}): type token ids`);
  return { ids: encodeBytes(text), kind: 'text' };
}

/**
 * What a parsed JSON file is for generation: 'kv' (a KV mapping: {num_layers,
 * layers: [{prefill_key_output, ...}]}), 'decode' (an IR with a cache_position
 * graph input), 'prefill' (another IR), or null.
 */
export function lmRole(obj) {
  if (!obj || typeof obj !== 'object') return null;
  if (Number.isInteger(obj.num_layers) && Array.isArray(obj.layers) && obj.layers.length && obj.layers.every((l) => l && typeof l === 'object' && 'prefill_key_output' in l)) return 'kv';
  if (Array.isArray(obj.nodes) && Array.isArray(obj.graph_inputs)) return obj.graph_inputs.some((g) => g && g.name === 'cache_position') ? 'decode' : 'prefill';
  return null;
}

/**
 * Sorts opened files into a generation set. files: [{name, json}] (json: the
 * parsed object, or null when it did not parse). Returns {prefill, decode, kv}
 * (the entries; undefined when absent) and `problems`: messages for what is
 * missing or ambiguous.
 */
export function sortLMFiles(files) {
  const by = { prefill: [], decode: [], kv: [] };
  for (const f of files) {
    const role = lmRole(f.json);
    if (role) by[role].push(f);
  }
  const problems = [];
  for (const [role, what] of [['prefill', 'a prefill IR (no cache_position input)'], ['decode', 'a decode IR (with a cache_position input)'], ['kv', 'a KV mapping ({num_layers, layers: [...]})']]) {
    if (!by[role].length) problems.push(`missing ${what}`);
    else if (by[role].length > 1) problems.push(`more than one ${role === 'kv' ? 'KV mapping' : role + ' IR'}: ${by[role].map((f) => f.name).join(', ')}`);
  }
  return { prefill: by.prefill[0], decode: by.decode[0], kv: by.kv[0], problems };
}

export function fmtBytes(n) {
  if (!(n >= 0)) return '?';
  if (n < 1024) return `${n} B`;
  const u = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${u[i]}`;
}

const rate = (r) => (r >= 100 ? r.toFixed(0) : r.toFixed(1));
const ms = (v) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)) + ' ms';

/**
 * lm.stats and lm.backend (and lm.info) -> [label, value, key] rows for a
 * table; key names the row for tests and styling.
 */
export function statsRows(stats, backend, info) {
  if (!stats) return [];
  return [
    ['prefill', `${rate(stats.prefillTokensPerSecond)} tokens/s \u00b7 ${ms(stats.prefillMs)} for ${info?.prefillLen ?? '?'} slots (${stats.promptTokens}-token prompt)`, 'prefill'],
    ['decode', stats.decodeSteps > 0 ? `${rate(stats.decodeTokensPerSecond)} tokens/s \u00b7 ${stats.decodeSteps} steps in ${ms(stats.decodeMs)}` : 'no decode step (one new token)', 'decode'],
    ['build', `${backend.variant} \u00b7 ${backend.threads} thread${backend.threads === 1 ? '' : 's'}`, 'build'],
    ['KV cache', `${fmtBytes(stats.cacheBytes)} \u00b7 ${fmtBytes(stats.cacheBytesCopiedPerStep)} copied per step${stats.cacheBytesCopiedPerStep === 0 ? ' (updated in place)' : ''}`, 'cache'],
  ];
}
