// Runs the layout off the main thread for large views (module worker).
import * as dagre from '../vendor/dagre.esm.js';
import { runLayout } from './layout.js';

self.onmessage = (ev) => {
  const { id, spec } = ev.data;
  try {
    const t0 = performance.now();
    const result = runLayout(dagre, spec);
    self.postMessage({ id, result, ms: performance.now() - t0 });
  } catch (e) {
    self.postMessage({ id, error: String(e && e.stack || e) });
  }
};
