// WGSL kernel library: builds each kernel's source (common.wgsl prelude + its parameter slots from
// kernels.json + the kernel file, elementwise ones generated from elementwise_ops.json), its
// pipeline and bind group layout, and packs its parameter block. It runs no graph: an executor
// (./executor.js, replaying the engine's plan; tests/webgpu/gpu.mjs for the kernel tests) decides
// what to dispatch. The sources are src/kernels/wgsl, inlined by tools/gen_wgsl_sources.mjs.
import { WGSL_FILES } from './wgsl_sources.js';

/**
 * A WebGPU object (GPUDevice, GPUBuffer, GPUComputePassEncoder, ...): the package is
 * compiled without @webgpu/types (which its users would then need too), so untyped.
 */
export type GpuObject = any;

/** A kernel's entry in kernels.json: its file, includes, workgroup, bindings and parameter fields. */
export interface KernelSpec {
  file: string;
  includes?: string[];
  workgroup: number | number[];
  bindings: [string, 'r' | 'rw'][];
  meta: [string, number][];
}

/** An op of elementwise_ops.json. */
export interface ElementwiseOp {
  arity: number;
  kind: 'float' | 'arith' | 'cmp' | 'any';
  expr: string;
  int_expr?: string;
  bools?: number[];
}

/** A kernel parameter: a u32, a list of them, or {f32: x} (x a number or 'inf' / '-inf' / 'nan'). */
export type MetaValue = number | { f32: number | string } | readonly (number | { f32: number | string })[];

const read = (f: string): string => {
  const text = WGSL_FILES[f];
  if (text === undefined) throw new Error(`no WGSL file '${f}' (tools/gen_wgsl_sources.mjs)`);
  return text;
};
// WebGPU's flag values (GPUBufferUsage, GPUShaderStage, GPUMapMode): the same in every
// implementation, and not globals in Node (dawn.node exports them separately).
export const BUFFER_USAGE = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80 };
export const SHADER_STAGE_COMPUTE = 0x4;
export const MAP_MODE_READ = 0x1;
export const KERNELS: Record<string, KernelSpec> = JSON.parse(read('kernels.json'));
export const ELEMENTWISE_OPS: Record<string, ElementwiseOp> = JSON.parse(read('elementwise_ops.json'));
delete KERNELS._doc;
delete ELEMENTWISE_OPS._doc;
const COMMON = read('common.wgsl');
const META_SLOTS = 64;

// GPU dtypes: f32, i32 (int64 narrowed by the executor), bool as u32 (0/1; WGSL has no 8-bit
// storage), f16 where the device has shader-f16.
export const WGSL_TYPE: Readonly<Record<string, string>> = { float32: 'f32', int32: 'i32', bool: 'u32', float16: 'f16' };

export function metaSlots(name: string): Record<string, { at: number; count: number }> {
  const k = KERNELS[name];
  if (!k) throw new Error(`unknown WGSL kernel '${name}'`);
  const slots: Record<string, { at: number; count: number }> = {};
  let at = 0;
  for (const [field, count] of k.meta) { slots[field] = { at, count }; at += count; }
  if (at > META_SLOTS) throw new Error(`kernel '${name}': ${at} parameter slots > ${META_SLOTS}`);
  return slots;
}

// JSON has no inf/nan: the engine's plans write such f32 parameters as these names.
const F32_NAMES: Readonly<Record<string, number>> = { inf: Infinity, '-inf': -Infinity, nan: NaN };

// values: {field: number | number[] | {f32: x}}; unset slots are 0. Floats must be {f32: x}.
export function packMeta(name: string, values: Readonly<Record<string, MetaValue>>): Uint32Array {
  const slots = metaSlots(name);
  const u = new Uint32Array(META_SLOTS);
  const f = new Float32Array(u.buffer);
  for (const [field, v] of Object.entries(values)) {
    const s = slots[field];
    if (!s) throw new Error(`kernel '${name}' has no parameter '${field}'`);
    const list: readonly (number | { f32: number | string })[] = Array.isArray(v) ? v : [v as number];
    if (list.length > s.count) throw new Error(`kernel '${name}': '${field}' takes ${s.count} values, got ${list.length}`);
    list.forEach((x, i) => {
      if (typeof x === 'object') f[s.at + i] = F32_NAMES[x.f32] ?? x.f32 as number;
      else if (!Number.isInteger(x) || x < 0 || x > 0xffffffff) throw new Error(`kernel '${name}': '${field}' = ${x} is not a u32`);
      else u[s.at + i] = x;
    });
  }
  return u;
}

function header(name: string): string {
  const consts = Object.entries(metaSlots(name))
    .map(([field, s]) => `const M_${field.toUpperCase()}: u32 = ${s.at}u;`).join('\n');
  const k = KERNELS[name]!;
  const wg = Array.isArray(k.workgroup) ? k.workgroup : [k.workgroup];
  const wgConsts = `const WG: u32 = ${wg.reduce((a, b) => a * b, 1)}u;`;
  return `${COMMON}\n${consts}\n${wgConsts}\n`;
}

// Each binding's declaration and its element type as `<binding>_T` (kernels that take float16
// load through f32(...) and store through Y_T(...), so one source serves f32 and f16).
function bindingDecls(name: string, types: Readonly<Record<string, string>>): string {
  return KERNELS[name]!.bindings.map(([b, access], i) => {
    const t = types[b] ?? 'f32';
    const acc = access === 'rw' ? 'read_write' : 'read';
    return `alias ${b}_T = ${t};\n@group(0) @binding(${i + 1}) var<storage, ${acc}> ${b}: array<${t}>;`;
  }).join('\n');
}

function fill(text: string, subst: Readonly<Record<string, string>>, name: string): string {
  const out = text.replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
    if (!(key in subst)) throw new Error(`kernel '${name}': no value for {{${key}}}`);
    return subst[key]!;
  });
  return out;
}

const promote = (dtypes: readonly string[]): string => {
  if (dtypes.includes('float16') && !dtypes.includes('float32')) return 'float16';
  if (dtypes.some((d) => d === 'float32' || d === 'float16')) return 'float32';
  return 'int32';
};

// The resolved types of one elementwise op on given input dtypes: {compute, out} (torch's
// promotion among the GPU dtypes; bool inputs of arith ops promote as int32).
export function elementwiseTypes(op: string, inDtypes: readonly string[], outDtype?: string): { compute: string; out: string } {
  const e = ELEMENTWISE_OPS[op];
  if (!e) throw new Error(`unknown elementwise op '${op}'`);
  if (inDtypes.length !== e.arity) throw new Error(`'${op}' takes ${e.arity} inputs, got ${inDtypes.length}`);
  const bools = new Set(e.bools ?? []);
  const valued = inDtypes.filter((_, i) => !bools.has(i));
  let compute = valued.length ? promote(valued) : (outDtype ?? 'float32');
  if (e.kind === 'float' && compute === 'int32') compute = 'float32';
  let out: string;
  if (e.kind === 'cmp') out = 'bool';
  else if (e.kind === 'any') out = outDtype ?? inDtypes[0] ?? 'float32';
  else out = compute;
  // float16 tensors compute in f32 and round once on the store, as the CPU engine does.
  if (compute === 'float16') compute = 'float32';
  if (e.kind === 'any') compute = out;
  return { compute, out };
}

// alias >= 0: that input is the output's own memory (an in-place op): it is read through Y.
export function elementwiseSource(op: string, inDtypes: readonly string[], outDtype?: string, alias = -1): string {
  const e = ELEMENTWISE_OPS[op]!;
  const { compute, out } = elementwiseTypes(op, inDtypes, outDtype);
  const T = WGSL_TYPE[compute];
  const TY = WGSL_TYPE[out];
  const names = ['a', 'b', 'c'];
  const bufs = ['A', 'B', 'C'];
  const offs = ['M_A_OFF', 'M_B_OFF', 'M_C_OFF'];
  const strides = ['M_A_STRIDES', 'M_B_STRIDES', 'M_C_STRIDES'];
  const bools = new Set(e.bools ?? []);
  const types: Record<string, string> = { Y: TY! };
  const loads: string[] = [];
  const walk: string[] = [];
  for (let i = 0; i < e.arity; i++) {
    types[bufs[i]!] = WGSL_TYPE[inDtypes[i]!]!;
    walk.push(`o${i} += q * mu(${strides[i]} + du);`);
    const raw = i === alias ? `Y[o${i}]` : `${bufs[i]}[o${i}]`;
    loads.push(bools.has(i) ? `let ${names[i]} = ${raw} != ${types[bufs[i]]}(0);`
      : `let ${names[i]} = T(${raw});`);
  }
  const expr = (compute === 'int32' && e.int_expr) ? e.int_expr : e.expr;
  const result = e.kind === 'cmp' ? `select(0u, 1u, ${expr})` : e.kind === 'any' ? expr : `TY(${expr})`;
  const decls = KERNELS['elementwise']!.bindings.slice(0, 1 + e.arity).map(([b, access], i) =>
    `@group(0) @binding(${i + 1}) var<storage, ${access === 'rw' ? 'read_write' : 'read'}> ${b}: array<${types[b]}>;`).join('\n');
  const f16 = [T, TY, ...Object.values(types)].includes('f16') ? 'enable f16;\n' : '';
  return f16 + header('elementwise') + fill(read('elementwise.wgsl'), {
    T: T!, TY: TY!, DECLS: decls, NAN_T: T === 'f32' || T === 'f16' ? 'is_nan_f(f32(v))' : 'false',
    OFFS: [0, 1, 2].slice(0, e.arity).map((i) => `var o${i} = mu(${offs[i]});`).join(' '),
    WALK: walk.join(' '), LOADS: loads.join('\n  '), RESULT: result,
  }, 'elementwise');
}

// The full WGSL text of a (non-elementwise) kernel; types maps binding names to WGSL types
// (default f32), subst fills the kernel's own {{KEY}} placeholders. A kernel with a fused
// epilogue (epilogue.wgsl) gets its {{EPI_ACT}} from subst.EPI_OP: that elementwise op's
// expression, so a fused activation computes what the op alone does; identity without it.
export function kernelSource(name: string,
  { types = {}, subst = {} }: { types?: Readonly<Record<string, string>>; subst?: Readonly<Record<string, string>> } = {}): string {
  const k = KERNELS[name];
  if (!k) throw new Error(`unknown WGSL kernel '${name}'`);
  const f16 = Object.values(types).includes('f16') ? 'enable f16;\n' : '';
  const text = [...(k.includes ?? []), k.file].map(read).join('\n');
  return f16 + header(name) + fill(text, { DECLS: bindingDecls(name, types), EPI_ACT: epilogueAct(subst.EPI_OP), ...subst }, name);
}

function epilogueAct(op: string | undefined): string {
  if (op === undefined) return 'a';
  const e = ELEMENTWISE_OPS[op];
  if (!e || e.arity !== 1 || e.kind !== 'float') throw new Error(`'${op}' is not a float unary op of elementwise_ops.json`);
  return e.expr;
}

// Workgroup counts for `n` workgroups, folded into y beyond the per-dimension limit.
export function grid(n: number, maxDim = 65535): [number, number, number] {
  if (n <= maxDim) return [n, 1, 1];
  return [maxDim, Math.ceil(n / maxDim), 1];
}

/** A kernel's compiled pipeline, its bind group layout and its number of storage bindings. */
export interface KernelPipeline {
  pipeline: GpuObject;
  bgl: GpuObject;
  module: GpuObject;
  bindings: number;
}

// Pipelines with explicit bind group layouts (so unused bindings never vanish from 'auto'
// layouts), cached by source text.
export class KernelLibrary {
  device: GpuObject;
  cache: Map<string, KernelPipeline>;

  constructor(device: GpuObject) { this.device = device; this.cache = new Map(); }

  pipeline(name: string, source: string): KernelPipeline {
    const key = `${name}\n${source}`;
    let p = this.cache.get(key);
    if (p) return p;
    const d = this.device;
    const nb = name === 'elementwise' ? (source.match(/@binding\(/g)!.length - 1) : KERNELS[name]!.bindings.length;
    const entries: object[] = [{ binding: 0, visibility: SHADER_STAGE_COMPUTE, buffer: { type: 'uniform' } }];
    for (let i = 0; i < nb; i++) {
      const access = KERNELS[name]!.bindings[i]![1];
      entries.push({ binding: i + 1, visibility: SHADER_STAGE_COMPUTE,
        buffer: { type: access === 'rw' ? 'storage' : 'read-only-storage' } });
    }
    const bgl = d.createBindGroupLayout({ entries });
    const module = d.createShaderModule({ code: source });
    const pipeline = d.createComputePipeline({
      layout: d.createPipelineLayout({ bindGroupLayouts: [bgl] }),
      compute: { module, entryPoint: 'main' },
    });
    p = { pipeline, bgl, module, bindings: nb };
    this.cache.set(key, p);
    return p;
  }

  // Records one dispatch into `pass`: buffers in the kernel's binding order (after the
  // parameter block), meta as packMeta's values.
  dispatch(pass: GpuObject, name: string, source: string, meta: Readonly<Record<string, MetaValue>>, buffers: readonly GpuObject[],
    workgroups: [number, number, number]): GpuObject {
    const p = this.pipeline(name, source);
    const d = this.device;
    const u = packMeta(name, meta);
    const ub = d.createBuffer({ size: u.byteLength, usage: BUFFER_USAGE.UNIFORM | BUFFER_USAGE.COPY_DST });
    d.queue.writeBuffer(ub, 0, u);
    if (buffers.length !== p.bindings) throw new Error(`kernel '${name}' takes ${p.bindings} buffers, got ${buffers.length}`);
    const entries = [{ binding: 0, resource: { buffer: ub } },
      ...buffers.map((b: GpuObject, i: number) => ({ binding: i + 1, resource: { buffer: b } }))];
    pass.setPipeline(p.pipeline);
    pass.setBindGroup(0, d.createBindGroup({ layout: p.bgl, entries }));
    pass.dispatchWorkgroups(...workgroups);
    return ub;
  }
}
