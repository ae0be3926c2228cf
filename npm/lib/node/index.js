// Node-only code of the package (package.json "imports": {"#node": {"node": ...}}).
// Each file adds one line here.
export * from './platform.js';
