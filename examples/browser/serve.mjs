#!/usr/bin/env node
// Serves the repository for the browser examples, with the cross-origin isolation headers
// (COOP/COEP) that the threaded WASM build needs (web/tools/static-server.mjs).
//
//   node examples/browser/serve.mjs [--port 8080] [--root DIR] [--no-isolation]
//   open http://localhost:8080/examples/browser/
//
// --no-isolation leaves the headers out: the page then runs the
// single-threaded build.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../web/tools/static-server.mjs';

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, def) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : def;
  };
  const isolate = !args.includes('--no-isolation');
  const { url } = await serve({ port: Number(opt('--port', 8080)), root: opt('--root'), isolate, log: args.includes('--log') });
  console.log(`serving ${opt('--root', 'the repository')} at ${url} (${isolate ? 'cross-origin isolated: threaded build' : 'no COOP/COEP: single-threaded build'})`);
  console.log(`open ${url}examples/browser/`);
}
