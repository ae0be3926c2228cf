// A tiny static file server for the repository's pages (the viewer, the examples, the browser
// tests). It sends the cross-origin isolation headers (COOP/COEP) that pages need for
// SharedArrayBuffer, i.e. for the threaded WASM build, unless `isolate` is false. Its command
// lines: web/tools/serve.mjs (the viewer), examples/browser/serve.mjs (the examples).
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.mmd': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

/** Starts the server; resolves to {server, url}. */
export function serve({ root, port = 8080, host = '127.0.0.1', isolate = true, log = false } = {}) {
  root = resolve(root ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..')); // the repository
  const server = createServer((req, res) => {
    const headers = {};
    if (isolate) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403, headers).end('forbidden');
      return;
    }
    let st;
    try {
      st = statSync(file);
      if (st.isDirectory()) {
        if (!path.endsWith('/')) {
          res.writeHead(301, { ...headers, Location: path + '/' }).end();
          return;
        }
        file = join(file, 'index.html');
        st = statSync(file);
      }
    } catch {
      res.writeHead(404, headers).end('not found');
      if (log) console.log(`404 ${req.url}`);
      return;
    }
    res.writeHead(200, {
      ...headers,
      'Content-Type': MIME[extname(file)] || 'application/octet-stream',
      'Content-Length': st.size,
      'Cache-Control': 'no-cache',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
    if (log) console.log(`200 ${req.url}`);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok({ server, url: `http://${host}:${server.address().port}/` }));
  });
}
