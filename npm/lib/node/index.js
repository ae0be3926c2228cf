// Node-only code, reached only through `await import('#node')` (package.json
// "imports"), so the browser entry and bundles never see node: imports.
export * from './worker-mode.js';
