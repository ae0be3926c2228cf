// `#node` outside Node (package.json "imports" default condition): the same
// names as lib/node/index.js, each failing clearly.
function unavailable(name) {
  return () => {
    throw new Error(`torch-ir-wasm: ${name} needs Node.js (this runtime resolved '#node' to lib/node/unavailable.js)`);
  };
}

export const createEngineWorker = unavailable('createEngineWorker (env.proxy worker-thread mode)');
