// What `#node` resolves to outside Node (bundles for browsers, workers): the
// same names as lib/node/index.js, each failing with a clear error. The
// browser code paths never call them; reaching one means the package thought
// it ran in Node while it was bundled for something else.
const unavailable = (name: string) => (..._args: unknown[]): never => {
  throw new Error(`torch-ir-wasm: ${name}() needs Node.js, but this copy of the package was resolved for a browser (package.json "imports" #node -> lib/node/unavailable.js)`);
};

export const fileURLToPath = unavailable('fileURLToPath');
export const cpuCount = unavailable('cpuCount');
export const readFileNode = unavailable('readFileNode');
export const openFileNode = unavailable('openFileNode');
export const defaultCacheDir = unavailable('defaultCacheDir');
export const cacheReadNode = unavailable('cacheReadNode');
export const cacheWriteNode = unavailable('cacheWriteNode');
export const cacheDeleteNode = unavailable('cacheDeleteNode');
export const instantiateNode = unavailable('instantiateNode');
export const createEngineWorker = unavailable('createEngineWorker (env.proxy worker-thread mode)');
export const nodeWebGpu = unavailable('nodeWebGpu (dawn.node; in browsers the GPU is navigator.gpu or env.webgpu)');
