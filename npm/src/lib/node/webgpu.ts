// Node: WebGPU through dawn.node (the npm package `webgpu`, an optional peer
// dependency), imported only when a model asks for the 'webgpu' provider and
// env.webgpu gives no GPU. Absent package: null (the model falls back to WASM).
let instance: any = null;

export async function nodeWebGpu(): Promise<any> {
  if (instance) return instance;
  let m;
  try {
    m = await import('webgpu');
  } catch {
    return null;
  }
  // Kept referenced for the process's life: once V8 collects the instance,
  // dawn.node frees state its devices still use and the process dies
  // (docs/webgpu.md, "dawn.node pitfalls").
  instance = m.create([]);
  return instance;
}
