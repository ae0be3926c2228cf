#!/usr/bin/env node
// Serves the repository with COOP/COEP (cross-origin isolation: the threaded WASM
// build) and prints the viewer's URL. The page loads the engine from ../npm.
//   node web/tools/serve.mjs [--port 8080] [--no-isolation]
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './static-server.mjs';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export async function serveViewer({ port = 0, isolate = true } = {}) {
  const { server, url } = await serve({ root: REPO, port, isolate });
  return { server, url: url + 'web/', origin: url };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--port');
  const { url } = await serveViewer({ port: i >= 0 ? Number(args[i + 1]) : 8080, isolate: !args.includes('--no-isolation') });
  console.log(`torch-ir viewer: ${url}  (${args.includes('--no-isolation') ? 'no COOP/COEP: single-threaded engine' : 'COOP/COEP: threaded engine'})`);
  console.log(`  e.g. ${url}?sample=vit_tiny   or   ${url}?ir=<url>&weights=<url>&io=<url>`);
}
