// Lets tfjs-backend-wasm's threaded build start in Node.js (it is meant for
// pages). Its Emscripten glue starts pthread workers from a blob: URL of the
// worker source and hands them the main script as a Blob; Node's Worker takes
// neither. Here Blobs built from strings remember their text, blob: URLs map
// back to it, the global Worker runs that text as an eval worker, and the
// main-script Blob in the "load" message becomes a temp file the worker's
// importScripts (fs.readFileSync + eval) can read. Require before tfjs loads.
'use strict';
const wt = require('node:worker_threads');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const texts = new Map(); // blob: URL -> source text
const NodeBlob = globalThis.Blob;

class TextBlob extends NodeBlob {
  constructor(parts = [], options) {
    super(parts, options);
    this.text_ = parts.every((p) => typeof p === 'string') ? parts.join('') : null;
  }
}
globalThis.Blob = TextBlob;

const createObjectURL = URL.createObjectURL.bind(URL);
URL.createObjectURL = (blob) => {
  const url = createObjectURL(blob);
  if (blob && blob.text_ != null) texts.set(url, blob.text_);
  return url;
};

// The factory's source refers to the bundle's own top-level names (require$$0
// = require('fs'), ..., commonjsGlobal): declare them again for the worker.
function bundlePrelude() {
  const bundle = fs.readFileSync(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.node.js'), 'utf8');
  return [...bundle.matchAll(/^var (require\$\$\d+) = require\('([^']+)'\);$/gm)]
    .map((m) => `var ${m[1]} = require(${JSON.stringify(m[2])});\n`).join('') + 'var commonjsGlobal = globalThis;\n';
}

let mainScriptFile = null;
function mainScriptPath(text) {
  if (!mainScriptFile) {
    mainScriptFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tfjs-wasm-')), 'main.js');
    fs.writeFileSync(mainScriptFile, bundlePrelude() + text);
    process.on('exit', () => fs.rmSync(path.dirname(mainScriptFile), { recursive: true, force: true }));
  }
  return mainScriptFile;
}

class BlobWorker extends wt.Worker {
  constructor(file, options) {
    const key = String(file);
    if (texts.has(key)) super(texts.get(key), { ...options, eval: true });
    else super(file, options);
    this.unref(); // pthread workers must not keep the process alive
  }

  postMessage(msg, transfer) {
    if (msg && msg.cmd === 'load' && msg.urlOrBlob && msg.urlOrBlob.text_ != null) {
      msg = { ...msg, urlOrBlob: mainScriptPath(msg.urlOrBlob.text_) };
    }
    return super.postMessage(msg, transfer);
  }
}

// Emscripten's Node shell assigns global.Worker = worker_threads.Worker: keep ours.
Object.defineProperty(globalThis, 'Worker', { configurable: true, get: () => BlobWorker, set: () => {} });
