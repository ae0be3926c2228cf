// What loadIR and loadLM are given, read: the IR text (path, URL, Blob, bytes, object), the
// weights/constants sources as engine operations, the IR's lazily parsed tensor facts, and the
// load controls (signal, fetchOptions).
import { IRFormatError, WeightLoadError, check } from './errors.js';
import { parseJsonLoose, stringifyIr } from './json.js';
import { asUint8, errnoText, isBlob, isBytesLike, isLocation, readLocation } from './source.js';
import { toShape, toTensor, type TensorMeta } from './tensor.js';
import type { LoadControls } from './source.js';
import type { EmbindObject } from './backend.js';
import type { StreamedWeights } from './webgpu/streaming.js';
import { bytesFile, openWeightFile } from './weight_file.js';
import type { WeightFile } from './weight_file.js';
import type { IRSource, Progress, TensorSource } from './model_types.js';

/**
 * One glue call of a weights/constants source: a whole file's bytes, a file opened for ranged
 * reads (`lazy`: a WebGPU model's weights, streamed when they are safetensors), or one tensor.
 */
export interface TensorOp {
  file?: Uint8Array;
  lazy?: WeightFile;
  origin?: string;
  tensor?: { name: string; dtype: string; shape: number[]; bytes: Uint8Array };
}

/** An IR's lazily parsed facts (irMetaFrom): a weight's or constant's dtype and shape. */
export type IrMeta = () => {
  tensor(name: string): TensorMeta | undefined;
  /** The IR's nodes in order: name, op type and output metas (none when the text does not parse). */
  nodes(): IrNode[];
};

/** A node of the IR as the package reads it (intermediates, the provider comparison). */
export interface IrNode {
  name: string;
  op_type: string;
  outputs: { name: string; shape: number[]; dtype: string }[];
}

type OnProgress = ((event: Progress) => void) | undefined;

const decoder = new TextDecoder();

// IR argument -> JSON text (also used by lm.js). load: {signal, fetchOptions}
// for paths and URLs (an abort rejects with the signal's reason, unwrapped).
export async function readIrText(ir: IRSource, onProgress: OnProgress, load?: LoadControls): Promise<string> {
  if (typeof ir === 'string' && /^\s*[{[]/.test(ir)) return ir;
  if (isLocation(ir) || isBlob(ir)) {
    let got: { bytes: Uint8Array };
    try {
      got = await readLocation(ir, onProgress, load);
    } catch (e) {
      load?.signal?.throwIfAborted();
      throw new IRFormatError(`${String(ir)}: cannot open IR file: ${errnoText(e)}`, { cause: e });
    }
    return decoder.decode(got.bytes);
  }
  if (isBytesLike(ir)) return decoder.decode(asUint8(ir));
  if (ir && typeof ir === 'object') {
    try {
      return stringifyIr(ir);
    } catch (e) { // e.g. nesting deeper than the JS stack (RangeError)
      throw new IRFormatError(`ir: cannot serialize the IR object: ${(e as Error).message}`, { cause: e });
    }
  }
  throw new IRFormatError('ir must be a JSON string, a parsed IR object, bytes, or a path/URL');
}

// What IR error messages start with: the path, URL or file name the IR came
// from; "<string>" for JSON text, bytes or an object.
export function irOrigin(ir: unknown): string {
  if (typeof ir === 'string' && /^\s*[{[]/.test(ir)) return '<string>';
  if (isBlob(ir)) return (ir as File).name || 'blob';
  if (isLocation(ir)) return String(ir);
  return '<string>';
}

// weights / constants argument -> list of glue calls to make.
//   bytes | path | URL | Blob        -> {file: bytes, origin}   (lazy: path | URL | Blob -> {lazy, origin})
//   {name: tensor} | Map             -> {tensor: {name, dtype, shape, bytes}}
//   array of any of these            -> concatenated
// lazy: open files for ranged reads instead of reading them (closeTensorFiles closes them).
export async function collectTensors(src: TensorSource | undefined | null, kind: string, irMeta: IrMeta, onProgress: OnProgress,
  load?: LoadControls, lazy = false): Promise<TensorOp[]> {
  if (src === undefined || src === null) return [];
  if (Array.isArray(src)) {
    const lists: TensorOp[] = [];
    for (const s of src) lists.push(...(await collectTensors(s, kind, irMeta, onProgress, load, lazy)));
    return lists;
  }
  if (isBytesLike(src)) return [{ file: asUint8(src), origin: kind }];
  if (isLocation(src) || isBlob(src)) {
    try {
      if (lazy) {
        const file = await openWeightFile(src, onProgress, load);
        return [{ lazy: file, origin: file.origin }];
      }
      const { bytes, origin } = await readLocation(src, onProgress, load);
      return [{ file: bytes, origin }];
    } catch (e) {
      load?.signal?.throwIfAborted();
      throw new WeightLoadError(`cannot open '${String(src)}': ${errnoText(e)}`, { cause: e });
    }
  }
  if (typeof src === 'object') {
    const entries: [string, unknown][] = src instanceof Map ? [...src] : Object.entries(src);
    return entries.map(([name, value]) => {
      const fail = (msg: string): never => {
        throw new WeightLoadError(`${kind} '${name}': ${msg}`);
      };
      const t = toTensor(value, irMeta().tensor(name), fail);
      return { tensor: { name, dtype: t.dtype, shape: t.shape, bytes: t.bytes } };
    });
  }
  throw new WeightLoadError(`${kind} must be bytes, a path/URL, or an object of tensors`);
}

// Hands collected weights/constants to a WasmModel or WasmLM (their shared
// TensorSources base). streamed: a WebGPU model's StreamedWeights (safetensors
// weights files go to the engine as their header; webgpu/streaming.js), or null.
export async function addTensors(handle: EmbindObject, weightOps: readonly TensorOp[], constantOps: readonly TensorOp[],
  streamed: StreamedWeights | null = null): Promise<void> {
  for (const op of weightOps) {
    if (op.tensor) {
      check(handle.addWeightTensor(op.tensor.name, op.tensor.dtype, op.tensor.shape, op.tensor.bytes), 'WeightLoadError');
      continue;
    }
    if (streamed && (await streamed.add(handle, op.lazy ?? bytesFile(op.file!, op.origin ?? 'weights')))) continue;
    check(handle.addWeightsFile(await wholeFile(op), op.origin), 'WeightLoadError');
  }
  for (const op of constantOps) {
    if (op.tensor) check(handle.addConstantTensor(op.tensor.name, op.tensor.dtype, op.tensor.shape, op.tensor.bytes), 'WeightLoadError');
    else check(handle.addConstantsFile(await wholeFile(op), op.origin), 'WeightLoadError');
  }
}

// A file op's bytes, read whole (a lazily opened file that is not streamed: torch.save, or no GPU).
async function wholeFile(op: TensorOp): Promise<Uint8Array> {
  if (op.file) return op.file;
  try {
    return await op.lazy!.read(0, op.lazy!.size);
  } catch (e) {
    throw new WeightLoadError(`cannot read '${op.origin}': ${errnoText(e)}`, { cause: e });
  }
}

/** Closes the files collectTensors opened lazily (errors ignored: the reads are over). */
export async function closeTensorFiles(ops: readonly TensorOp[]): Promise<void> {
  await Promise.all(ops.map((op) => op.lazy?.close().catch(() => {})));
}

// Lazily parsed facts from the IR text that the glue doesn't expose: the
// shape/dtype of weights, buffers and constants by original name (for tensors
// given as plain arrays, read before the engine has the IR). Unknown keys are
// the engine's to find (weight_keys.ts), so most loads never parse this.
export function irMetaFrom(text: string): IrMeta {
  let parsed: any;
  const load = () => {
    if (parsed === undefined) {
      try {
        parsed = parseJsonLoose(text);
      } catch {
        parsed = null;
      }
    }
    return parsed;
  };
  return () => ({
    tensor(name: string): TensorMeta | undefined {
      const ir = load();
      if (!ir) return undefined;
      const w = Array.isArray(ir.weights) ? ir.weights.find((x: { name?: unknown } | null) => x && x.name === name) : undefined;
      if (w) return { dtype: w.dtype, shape: w.shape };
      const c = ir.constants && ir.constants[name];
      if (c) {
        const shape: number[] = [];
        for (let v = c.data; Array.isArray(v); v = v[0]) shape.push(v.length);
        return { dtype: c.dtype, shape };
      }
      return undefined;
    },
    nodes(): IrNode[] {
      const ir = load();
      if (!ir || !Array.isArray(ir.nodes)) return [];
      return ir.nodes.filter((n: unknown) => n && typeof n === 'object').map((n: any) => ({
        name: String(n.name),
        op_type: String(n.op_type),
        outputs: (Array.isArray(n.outputs) ? n.outputs : []).map((o: any) => ({ name: String(o?.name), shape: toShape(o?.shape), dtype: String(o?.dtype) })),
      }));
    },
  });
}

// loadIR's and loadLM's {signal, fetchOptions}, checked: what readLocation takes.
export function loadControls({ signal, fetchOptions }: { signal?: unknown; fetchOptions?: unknown }, where: string): LoadControls {
  const s = signal as AbortSignal | undefined;
  if (signal !== undefined && (typeof s?.aborted !== 'boolean' || typeof s.throwIfAborted !== 'function')) {
    throw new TypeError(`${where}: signal must be an AbortSignal`);
  }
  if (fetchOptions !== undefined && (fetchOptions === null || typeof fetchOptions !== 'object')) {
    throw new TypeError(`${where}: fetchOptions must be an object (a RequestInit: headers, credentials, ...)`);
  }
  return { signal: s, fetchOptions: fetchOptions as RequestInit | undefined };
}
