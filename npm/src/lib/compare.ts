// Where does a GPU result first go wrong? compareProviders runs one model on WebGPU and on WASM
// (every node's output kept: keepIntermediates) and, by default, in float64 in this engine too
// (SessionOptions::float64), then walks the IR's nodes in order and names the first whose output
// the GPU got wrong: outside the float64-truth bound (verify/truth.h's judge_node: the GPU's error
// against float64 at most 2x the WASM float32 run's + 1e-6 x scale), or with reference 'wasm'
// (or where the float64 run cannot be made) outside rtol/atol of the WASM run.
import { ExecutionError } from './errors.js';
import { loadIR } from './load_model.js';
import { irMetaFrom, readIrText, loadControls } from './load_sources.js';
import { Model } from './model.js';
import type { Inputs, OutputTensor } from './tensor_types.js';
import type { IRSource, LoadOptions } from './model_types.js';

export interface CompareOptions extends Omit<LoadOptions, 'executionProviders' | 'preferredOutputLocation' | 'keepIntermediates' | 'float64'> {
  /** The inputs, as execute() takes them. */
  inputs: Inputs;
  /**
   * 'float64' (default): judge each node against a float64 run of the same graph; 'wasm': against
   * the WASM float32 run, within rtol / atol.
   */
  reference?: 'float64' | 'wasm';
  /** reference 'wasm': |webgpu - wasm| <= atol + rtol |wasm| per element. Default 1e-4. */
  rtol?: number;
  /** Default 1e-5. */
  atol?: number;
}

/** One node output, judged. */
export interface NodeComparison {
  node: string;
  opType: string;
  /** The output's IR name. */
  output: string;
  /** Where the WebGPU model ran the node. */
  device: 'webgpu' | 'wasm';
  /** false: not compared (not floating, not read back from the GPU, or shapes differ; `note` says why). */
  judged: boolean;
  ok: boolean;
  /** max |webgpu - reference| (float64, or WASM with reference 'wasm'). */
  error: number;
  /** What `error` may be: 2 x the WASM run's error + 1e-6 x scale (float64), or atol + rtol x max |wasm|. */
  bound: number;
  note?: string;
}

/** The first node output outside its bound, with the element that is furthest off. */
export interface FirstMismatch extends NodeComparison {
  /** The element's index (row-major) and position. */
  index: number;
  position: number[];
  /** That element as each run computed it. */
  webgpu: number;
  wasm: number;
  float64?: number;
}

export interface ProviderComparison {
  reference: 'float64' | 'wasm';
  /** Why the float64 run could not be made (the comparison then used the WASM run), if so. */
  float64Error?: string;
  /** Every node output in IR order. */
  nodes: NodeComparison[];
  /** The first node output the GPU got wrong, or null when all are within their bounds. */
  firstMismatch: FirstMismatch | null;
  /** A summary: counts, and the first mismatch with its values. */
  text: string;
}

const FLOATING = new Set(['float32', 'float64', 'float16', 'bfloat16']);

// Row-major position of flat index i in shape.
function position(i: number, shape: readonly number[]): number[] {
  const p = new Array(shape.length).fill(0);
  for (let d = shape.length - 1; d >= 0; d--) {
    p[d] = i % shape[d]!;
    i = Math.floor(i / shape[d]!);
  }
  return p;
}

// The element where |a - b| is largest (NaN counts as infinitely far).
function worst(a: ArrayLike<number>, b: ArrayLike<number>): { index: number; diff: number } {
  let index = 0;
  let diff = -1;
  for (let i = 0; i < a.length; i++) {
    const d = Number.isNaN(a[i]!) !== Number.isNaN(b[i]!) ? Infinity : a[i] === b[i] ? 0 : Math.abs(a[i]! - b[i]!);
    if (d > diff || Number.isNaN(d)) { diff = Number.isNaN(d) ? Infinity : d; index = i; }
  }
  return { index, diff: Math.max(diff, 0) };
}

function bytesOf(t: OutputTensor): { dtype: string; shape: number[]; bytes: Uint8Array } {
  const d = t.data as unknown as ArrayBufferView;
  return { dtype: t.dtype, shape: t.shape, bytes: new Uint8Array(d.buffer, d.byteOffset, d.byteLength) };
}

/**
 * Runs `ir` on WebGPU and on WASM (and in float64) with `options.inputs`, and names the first node
 * whose GPU output is wrong, with its values. options: loadIR's (weights, constants, threads,
 * ...), inputs, reference ('float64' | 'wasm'), rtol / atol. Needs a WebGPU device (env.webgpu);
 * each model keeps every node's output, so it takes some memory and time (docs/webgpu.md).
 */
export async function compareProviders(ir: IRSource, options: CompareOptions): Promise<ProviderComparison> {
  const { inputs, reference = 'float64', rtol = 1e-4, atol = 1e-5, ...load } = options ?? ({} as CompareOptions);
  if (inputs === undefined) throw new TypeError('compareProviders: options.inputs is required');
  if (reference !== 'float64' && reference !== 'wasm') throw new TypeError(`compareProviders: reference must be 'float64' or 'wasm', got ${JSON.stringify(reference)}`);
  const irText = await readIrText(ir, load.onProgress, loadControls(load, 'compareProviders'));
  const models: Model[] = [];
  const open = async (extra: LoadOptions): Promise<Model> => {
    const m = await loadIR(irText, { ...load, ...extra }) as Model;
    models.push(m);
    if (!(m instanceof Model)) {
      throw new ExecutionError('compareProviders runs the models on this thread: set env.proxy = false for it');
    }
    return m;
  };
  try {
    const gpu = await open({ executionProviders: ['webgpu'], keepIntermediates: true });
    if (!gpu.executionProviders.includes('webgpu')) {
      throw new ExecutionError('compareProviders: the model did not load on WebGPU (no device, or no node has a GPU kernel): nothing to compare');
    }
    const wasm = await open({ keepIntermediates: true });
    let f64: Model | null = null;
    let float64Error: string | undefined;
    if (reference === 'float64') {
      try {
        f64 = await open({ keepIntermediates: true, float64: true });
        await f64.execute(inputs);
      } catch (e) {
        float64Error = e instanceof Error ? e.message : String(e);
        f64 = null;
      }
    }
    await gpu.execute(inputs);
    await wasm.execute(inputs);
    const judge = (a: object, b: object, c: object) => gpu._backend.call('judgeNode', () => gpu._backend.module.judgeNode(a, b, c));
    const nodes: NodeComparison[] = [];
    let first: FirstMismatch | null = null;
    for (const n of irMetaFrom(irText)().nodes()) {
      for (const o of n.outputs) {
        const device = gpu._gpuRuns!.ranOnGpu(n.name) ? 'webgpu' : 'wasm';
        const c: NodeComparison = { node: n.name, opType: n.op_type, output: o.name, device, judged: false, ok: true, error: 0, bound: 0 };
        nodes.push(c);
        if (!FLOATING.has(o.dtype)) { c.note = `${o.dtype}: not floating`; continue; }
        const g = gpu.intermediate(o.name);
        const w = wasm.intermediate(o.name);
        if (!g || !w) { c.note = g ? 'no WASM value' : 'a view, or not read back from the GPU'; continue; }
        if (g.data.length !== w.data.length) { c.note = 'sizes differ'; continue; }
        const t = f64?.intermediate(o.name) ?? null;
        const gd = g.data as ArrayLike<number>;
        const wd = w.data as ArrayLike<number>;
        if (t && t.data.length === w.data.length) {
          const r = judge(bytesOf(g), bytesOf(w), bytesOf(t));
          Object.assign(c, { judged: r.judged, ok: r.ok, error: r.device, bound: r.bound, ...(r.note ? { note: r.note } : {}) });
        } else {
          let maxW = 0;
          for (let i = 0; i < wd.length; i++) if (Number.isFinite(wd[i]!)) maxW = Math.max(maxW, Math.abs(wd[i]!));
          let ok = true;
          for (let i = 0; i < gd.length && ok; i++) {
            const d = Math.abs(gd[i]! - wd[i]!);
            ok = gd[i] === wd[i] || d <= atol + rtol * Math.abs(wd[i]!);
          }
          Object.assign(c, { judged: true, ok, error: worst(gd, wd).diff, bound: atol + rtol * maxW });
        }
        if (first || !c.judged || c.ok) continue;
        const td = t ? t.data as ArrayLike<number> : null;
        const { index } = worst(gd, td ?? wd);
        first = { ...c, index, position: position(index, g.shape), webgpu: gd[index]!, wasm: wd[index]!, ...(td ? { float64: td[index]! } : {}) };
      }
    }
    const used = f64 ? 'float64' : 'wasm';
    const judged = nodes.filter((c) => c.judged);
    const fmt = (x: number) => (Number.isFinite(x) ? x.toExponential(3) : String(x));
    const text = [
      `compared ${judged.length} node output(s) of ${nodes.length} (${judged.filter((c) => c.device === 'webgpu').length} made on WebGPU), ` +
        `against ${used === 'float64' ? 'a float64 run (bound: 2 x WASM float32 error + 1e-6 x scale)' : `the WASM run (rtol ${rtol}, atol ${atol})`}` +
        (float64Error ? ` (no float64 run: ${float64Error})` : ''),
      first
        ? `first mismatch: node '${first.node}' (${first.opType}, on ${first.device}), output '${first.output}': error ${fmt(first.error)} > bound ${fmt(first.bound)}; ` +
          `at [${first.position.join(', ')}] WebGPU ${first.webgpu}, WASM ${first.wasm}` + (first.float64 !== undefined ? `, float64 ${first.float64}` : '')
        : 'every judged node output is within its bound',
    ].join('\n');
    return { reference: used, ...(float64Error ? { float64Error } : {}), nodes, firstMismatch: first, text };
  } finally {
    for (const m of models) m.dispose();
  }
}
