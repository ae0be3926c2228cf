// The Model methods a ProxyModel forwards to the proxy worker as they are (each
// returns a Promise there): the one list proxy.js and proxy-worker.js read.
// execute and dispose are forwarded too, with their own handling on each side;
// npm/test/hygiene.test.mjs checks index.d.ts's ProxyModel against this list.
export const FORWARDED_METHODS = Object.freeze(['verify', 'info', 'toMermaid', 'opDistributionPie', 'profile',
  'setProfiling', 'mutatedBuffers', 'bufferValue', 'resetBuffers', 'arenaBytes', 'placement']);
export const WORKER_METHODS = Object.freeze(new Set([...FORWARDED_METHODS, 'execute', 'dispose']));
