// Node-only code of the package, reached only through `await import('#node')`
// (package.json "imports": {"#node": {"node": ...}}), so the browser entry and
// bundles never see node: imports. Each file adds one line here.
export * from './platform.js';
export * from './cache.js';
export * from './worker-mode.js';
export * from './webgpu.js';
