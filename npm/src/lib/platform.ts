// Where the package runs: Node (not a page or worker that happens to have a `process`).
export const isNode: boolean =
  typeof process === 'object' && process !== null && typeof process.versions?.node === 'string' &&
  typeof window === 'undefined';
