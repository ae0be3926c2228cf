// The Model methods a ProxyModel forwards to the proxy worker as they are (each
// returns a Promise there): the one list proxy.js and proxy-worker.js read.
// execute and dispose are forwarded too, with their own handling on each side;
// npm/test/hygiene.test.mjs checks that Model and ProxyModel implement them.
// The ProxyModel type (proxy.ts) is derived from this list too.
export const FORWARDED_METHODS = Object.freeze(['verify', 'info', 'toMermaid', 'opDistributionPie', 'profile',
  'setProfiling', 'mutatedBuffers', 'bufferValue', 'resetBuffers', 'arenaBytes', 'placement', 'intermediate'] as const);
export const WORKER_METHODS: ReadonlySet<string> = Object.freeze(new Set<string>([...FORWARDED_METHODS, 'execute', 'dispose']));

/** A Model method a ProxyModel forwards as it is. */
export type ForwardedMethod = typeof FORWARDED_METHODS[number];
