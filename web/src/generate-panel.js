// The Generate panel: when a prefill IR, a decode IR and a KV mapping (and
// weights) are opened together (file picker, drop, or
// ?prefill=&decode=&kv=&weights=), the graph view shows the prefill (or decode)
// graph through the app's open(), and this panel runs text generation on the
// pair (loadLM): prompt (token ids, or text: through the model's tokenizer.json
// when one is opened with the set, ?tokenizer=, else the byte tokenizer shared
// with examples/llm/), streamed text, tokens per second.
import { loadLM, parseIRJson } from '../../npm/index.js';
import { decodeBytes, lmRole, parsePrompt, sortLMFiles, statsRows } from './lm-helpers.js';
import { esc, fmtMs } from './format.js';

const $ = (id) => document.getElementById(id);
const baseName = (s) => String(s).split(/[/\\]/).pop().split('?')[0];
const isIoName = (name) => /(^|[_.-])io([_.-]|$)|input|output/i.test(name);
// A Hugging Face tokenizer.json (its model has a vocabulary), not an IR or a KV mapping.
const isTokenizer = (json) => !!(json && typeof json === 'object' && json.model && typeof json.model === 'object' && json.model.vocab);

const PANEL_HTML = `<div class="gen">
  <div class="gen-col">
    <div id="gen-model" class="muted"></div>
    <textarea id="gen-prompt" rows="3" spellcheck="false" placeholder="token ids (939, 10, 323 ...) or text"></textarea>
    <div class="gen-row">
      <select id="gen-mode" title="How to read the prompt"><option value="auto">auto</option><option value="ids">token ids</option><option value="text">text</option></select>
      <span id="gen-prompt-info" class="muted"></span>
    </div>
    <div class="gen-row">
      <label title="max new tokens">max new <input id="gen-max" type="number" value="32" min="1"></label>
      <label title="0 = greedy">temp <input id="gen-temp" type="number" value="0" min="0" step="0.1"></label>
      <label title="0 = off">top-k <input id="gen-topk" type="number" value="0" min="0"></label>
      <label>top-p <input id="gen-topp" type="number" value="1" min="0" max="1" step="0.05"></label>
      <label>seed <input id="gen-seed" type="number" value="0" min="0"></label>
    </div>
    <div class="gen-row">
      <button id="gen-run" class="primary" disabled>Generate</button><button id="gen-stop" disabled>Stop</button>
      <span class="spacer"></span><span class="muted">graph</span>
      <span class="seg"><button data-graph="prefill">prefill</button><button data-graph="decode">decode</button></span>
    </div>
    <div class="muted gen-note">Text goes through the model's <code>tokenizer.json</code> when it was opened with the
      files (or <code>?tokenizer=</code>); without one, through a byte-level tokenizer (UTF-8 bytes = ids 0&ndash;255; new
      ids &ge; 256 show as &#10216;id&#10217;).</div>
  </div>
  <div class="gen-col">
    <pre id="gen-output"></pre>
    <div class="mono muted gen-ids">new ids: <span id="gen-ids"></span></div>
    <div id="gen-error"></div>
    <table id="gen-stats"></table>
  </div>
</div>`;

export class GeneratePanel {
  /** app: {open(src, {weights, name}), message(text, error), busy(on, text)} from app.js. */
  constructor(app) {
    this.app = app;
    this.set = null; // {prefill, decode, kv: {name, text}, weights: File | null}
    this.lm = null;
    this.loading = null;
    this.keep = 0; // > 0 while this panel itself opens a graph (app.open must not close it)
    this.graph = 'prefill';
    this.running = null;
    Object.assign(this, { ready: false, loadError: null, runs: 0, last: null }); // test hooks
    $('btn-generate').onclick = () => this.set && this.show();
  }

  // ------------------------------------------------------------ opening
  /** From the app's file picker / drop: true when the files were a generation set (handled here). */
  async openFiles(files) {
    const jsonFiles = files.filter((f) => /\.json$/i.test(f.name));
    if (jsonFiles.length < 2) return false;
    const entries = [];
    for (const f of jsonFiles) entries.push(await this.entry(f.name, await f.text()));
    if (!entries.some((e) => lmRole(e.json) === 'kv')) return false; // IRs without a mapping: the usual open
    const st = files.filter((f) => /\.safetensors$/i.test(f.name));
    await this.openEntries(entries.filter((e) => !isTokenizer(e.json)), st.find((f) => !isIoName(f.name)) || st[0] || null,
      entries.find((e) => isTokenizer(e.json)) || null);
    return true;
  }

  /** ?prefill=&decode=&kv=&weights= (URLs). */
  async openUrls(params) {
    this.app.busy(true, 'Fetching\u2026');
    let entries;
    let weights = null;
    let tokenizer = null;
    try {
      const get = async (url) => {
        const res = await fetch(url);
        if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
        return res;
      };
      entries = [];
      for (const k of ['prefill', 'decode', 'kv']) if (params.get(k)) entries.push(await this.entry(baseName(params.get(k)), await (await get(params.get(k))).text()));
      const w = params.get('weights');
      if (w) weights = new File([await (await get(w)).blob()], baseName(w));
      const t = params.get('tokenizer');
      if (t) tokenizer = await this.entry(baseName(t), await (await get(t)).text());
    } catch (e) {
      this.app.message(String(e.message || e), true);
      throw e;
    } finally {
      this.app.busy(false);
    }
    await this.openEntries(entries, weights, tokenizer);
  }

  async entry(name, text) {
    let json = null;
    try {
      json = parseIRJson(text);
    } catch {
      // not JSON: counts as missing
    }
    return { name, text, json };
  }

  async openEntries(entries, weights, tokenizer = null) {
    const s = sortLMFiles(entries);
    if (s.problems.length) {
      const msg = `not a generation set (prefill IR + decode IR + KV mapping): ${s.problems.join('; ')}`;
      this.app.message(msg, true);
      throw new Error(msg);
    }
    this.close();
    this.set = { prefill: s.prefill, decode: s.decode, kv: s.kv, weights, tokenizer };
    await this.showGraph('prefill');
    this.loading = this.loadModel();
  }

  /** Shows the prefill or decode IR in the graph view (the app's open). */
  async showGraph(which) {
    const f = this.set[which];
    this.keep++;
    try {
      await this.app.open(new File([f.text], f.name, { type: 'application/json' }), { weights: this.set.weights });
    } finally {
      this.keep--;
    }
    this.graph = which;
    this.show();
  }

  /** Called by the app's open(): another model closes the panel. */
  onOpen() {
    if (!this.keep) this.close();
  }

  async loadModel() {
    const { prefill, decode, kv, weights, tokenizer } = this.set;
    const t0 = performance.now();
    this.ready = false;
    this.loadError = null;
    try {
      this.lm = await loadLM({ prefill: prefill.text, decode: decode.text, kvMapping: kv.text, weights: weights ?? undefined, tokenizer: tokenizer?.text });
      this.loadMs = performance.now() - t0;
      this.ready = true;
    } catch (e) {
      this.loadError = `${e.name}: ${e.message}`;
      this.app.message(`generation: could not load the model: ${e.message}`, true);
    }
    this.render();
  }

  close() {
    this.running?.abort();
    try {
      this.lm?.dispose();
    } catch {}
    Object.assign(this, { lm: null, set: null, loading: null, ready: false, loadError: null });
    $('btn-generate').hidden = true;
    $('tab-btn-generate').hidden = true;
    const tab = $('tab-generate');
    if (tab.classList.contains('active')) {
      tab.classList.remove('active');
      $('panel').querySelector('[data-tab="summary"]').classList.add('active');
      $('tab-summary').classList.add('active');
    }
    tab.innerHTML = '';
  }

  // ------------------------------------------------------------ panel
  show() {
    if (!this.set) return;
    const tab = $('tab-generate');
    if (!tab.firstChild) this.build(tab);
    $('btn-generate').hidden = false;
    $('tab-btn-generate').hidden = false;
    $('panel').hidden = false;
    for (const b of $('panel').querySelectorAll('[data-tab]')) b.classList.toggle('active', b.dataset.tab === 'generate');
    for (const t of $('panel').querySelectorAll('.tab')) t.classList.toggle('active', t === tab);
    this.render();
  }

  build(tab) {
    tab.innerHTML = PANEL_HTML;
    $('gen-run').onclick = () => this.generate();
    $('gen-stop').onclick = () => this.running?.abort(new DOMException('stopped', 'AbortError'));
    $('gen-prompt').oninput = $('gen-mode').onchange = () => this.promptInfo();
    $('gen-prompt').onkeydown = (ev) => {
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) this.generate();
    };
    for (const b of tab.querySelectorAll('[data-graph]')) b.onclick = () => b.dataset.graph !== this.graph && !this.running && this.showGraph(b.dataset.graph).catch(() => {});
  }

  render() {
    if (!this.set || !$('gen-model')) return;
    const { prefill, decode, kv, weights, tokenizer } = this.set;
    let info = [prefill, decode, kv].map((f) => esc(f.name)).join(' + ') + (weights ? ' + ' + esc(weights.name) : ' <b>(no weights)</b>') +
      (tokenizer ? ' + ' + esc(tokenizer.name) : '');
    if (this.lm) {
      const { prefillLen, maxCacheLen, vocabSize, numLayers } = this.lm.info;
      info += ` \u00b7 ${numLayers} layers, vocab ${vocabSize}, prompt \u2264 ${prefillLen}, cache ${maxCacheLen} \u00b7 loaded in ${fmtMs(this.loadMs)}`;
      $('gen-max').max = String(maxCacheLen);
    } else if (this.loadError) info += ` \u00b7 <span class="error">${esc(this.loadError)}</span>`;
    else info += ' \u00b7 loading\u2026';
    $('gen-model').innerHTML = info;
    for (const b of $('tab-generate').querySelectorAll('[data-graph]')) b.classList.toggle('active', b.dataset.graph === this.graph);
    this.setRunning(!!this.running);
    this.promptInfo();
  }

  setRunning(on) {
    $('gen-run').disabled = on || !this.lm;
    $('gen-stop').disabled = !on;
  }

  readPrompt() {
    const tok = this.lm?.tokenizer;
    return parsePrompt($('gen-prompt').value, { mode: $('gen-mode').value, vocabSize: this.lm ? this.lm.info.vocabSize : Infinity, encode: tok ? (t) => tok.encode(t) : null });
  }

  promptInfo() {
    const el = $('gen-prompt-info');
    el.className = 'muted';
    try {
      const p = this.readPrompt();
      el.textContent = p.kind === 'ids' ? `${p.ids.length} token ids` : this.lm?.tokenizer ? `text: ${p.ids.length} tokens` : `text: ${p.ids.length} bytes = ${p.ids.length} tokens`;
      if (this.lm && p.ids.length > this.lm.info.prefillLen) {
        el.className = 'error';
        el.textContent += ` (too long: at most ${this.lm.info.prefillLen})`;
      }
    } catch (e) {
      el.textContent = $('gen-prompt').value.trim() ? e.message : '';
    }
  }

  // ------------------------------------------------------------ generate
  async generate() {
    if (this.running || !this.set) return;
    if (!this.lm) await this.loading;
    if (!this.lm) return;
    const lm = this.lm;
    const num = (id, int) => {
      const v = Number($(id).value);
      if ($(id).value.trim() === '' || !Number.isFinite(v) || (int && !Number.isInteger(v))) throw new Error(`${$(id).parentElement.textContent.trim()}: '${$(id).value}' is not ${int ? 'an integer' : 'a number'}`);
      return v;
    };
    $('gen-error').textContent = '';
    $('gen-stats').textContent = '';
    let prompt;
    let opts;
    try {
      prompt = this.readPrompt();
      opts = { maxNewTokens: num('gen-max', true), temperature: num('gen-temp'), topK: num('gen-topk', true), topP: num('gen-topp'), seed: num('gen-seed', true) };
    } catch (e) {
      $('gen-error').textContent = e.message;
      this.last = { error: e.message };
      this.runs++;
      return;
    }
    const ids = [];
    const tok = lm.tokenizer;
    let text = tok ? '' : null; // the streamed text (with a tokenizer)
    const ac = new AbortController();
    this.running = ac;
    this.setRunning(true);
    const show = () => {
      const out = $('gen-output');
      const p = document.createElement('span');
      p.className = 'muted';
      p.textContent = tok ? tok.decode(prompt.ids) : decodeBytes(prompt.ids);
      out.replaceChildren(p, text ?? decodeBytes(ids));
      out.scrollTop = out.scrollHeight;
      $('gen-ids').textContent = ids.join(' ');
      $('gen-ids').dataset.count = String(ids.length);
    };
    show();
    let error = null;
    const t0 = performance.now();
    try {
      if (tok) {
        for await (const piece of lm.stream(prompt.ids, { ...opts, signal: ac.signal, onToken: (id) => { ids.push(id); } })) {
          text += piece;
          show();
        }
      } else {
        await lm.generate(prompt.ids, { ...opts, signal: ac.signal, onToken: (id) => { ids.push(id); show(); } });
      }
    } catch (e) {
      if (!ac.signal.aborted) error = `${e.name}: ${e.message}`;
    } finally {
      this.running = null;
      if (this.lm === lm) this.setRunning(false);
    }
    if (this.lm !== lm) return; // closed meanwhile
    const ms = performance.now() - t0;
    $('gen-error').textContent = error || '';
    if (ids.length) {
      const tr = statsRows(lm.stats, lm.backend, lm.info).map(([k, v, key]) => `<tr data-key="${key}"><td class="muted">${esc(k)}</td><td>${esc(v)}</td></tr>`);
      $('gen-stats').innerHTML = tr.join('');
    }
    const s = ids.length ? lm.stats : null;
    if (error) this.app.message(`generation failed: ${error}`, true);
    else this.app.message(`generated ${ids.length} token${ids.length === 1 ? '' : 's'} in ${fmtMs(ms)}${ac.signal.aborted ? ' (stopped)' : ''}${s && s.decodeSteps ? ` \u00b7 decode ${s.decodeTokensPerSecond.toFixed(0)} tokens/s` : ''}`);
    this.last = { ids, text, prompt: prompt.ids, kind: prompt.kind, stopped: ac.signal.aborted, error, stats: s, backend: lm.backend };
    this.runs++;
  }
}
