// Proxy mode from a bundle: env.workerPath points at the proxy worker script,
// and a worker script that cannot be loaded (the browser reports a bare
// Event) rejects the pending load with its URL and the fix, not
// "[object Event]".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { env, loadIR, EngineTrapError } from '../index.js';

const created = [];
class UnloadableWorker {
  constructor(url, options) {
    created.push({ url: String(url), options });
    setTimeout(() => this.onerror?.(new Event('error')), 10); // what a 404 script gives a page
  }
  postMessage() {}
  terminate() {}
}

before(() => {
  globalThis.window = globalThis;
  globalThis.location = { href: pathToFileURL(process.cwd() + '/').href };
  globalThis.Worker = UnloadableWorker;
  env.proxy = true;
});
after(() => {
  env.proxy = false;
  env.workerPath = undefined;
  delete globalThis.window;
  delete globalThis.location;
  delete globalThis.Worker;
});

const IR = '{"nodes": [], "inputs": [], "outputs": []}';

test('env.workerPath is the module worker the proxy starts; its load failure names it', async () => {
  env.workerPath = 'http://127.0.0.1:9/assets/proxy-worker.js';
  await assert.rejects(loadIR(IR), (e) => {
    assert.ok(e instanceof EngineTrapError);
    assert.doesNotMatch(e.message, /\[object Event\]/);
    assert.match(e.message, /worker script env\.workerPath http:\/\/127\.0\.0\.1:9\/assets\/proxy-worker\.js failed to load/);
    return true;
  });
  assert.equal(created.at(-1).url, env.workerPath);
  assert.equal(created.at(-1).options.type, 'module');
});

test('without env.workerPath the package\'s own lib/proxy-worker.js is used; the error says to set env.workerPath', async () => {
  env.workerPath = undefined;
  await assert.rejects(loadIR(IR), (e) => e instanceof EngineTrapError &&
    /worker script torch-ir-wasm's lib\/proxy-worker\.js \(as your bundler emitted it\) failed to load/.test(e.message) && /env\.workerPath/.test(e.message));
  assert.match(created.at(-1).url, /\/lib\/proxy-worker\.js$/);
  assert.deepEqual(created.at(-1).options, { type: 'module', name: 'torch-ir-wasm' });
});
