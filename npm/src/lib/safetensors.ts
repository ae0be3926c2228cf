// Minimal .safetensors reader/writer for the CLI and examples (fixture io files:
// input.<name>, output.<i>). Weights themselves are parsed by the WASM engine.
import { DTYPE_ARRAY, numel } from './tensor.js';
import { WeightLoadError } from './errors.js';
import type { DType, OutputTensor, TensorData } from './tensor_types.js';

const ST_TO_IR: Readonly<Record<string, DType>> = {
  F64: 'float64', F32: 'float32', F16: 'float16', BF16: 'bfloat16',
  I64: 'int64', I32: 'int32', I16: 'int16', I8: 'int8', U8: 'uint8', BOOL: 'bool',
};
const IR_TO_ST: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(ST_TO_IR).map(([k, v]) => [v, k]));

/**
 * Parses safetensors bytes into a Map name -> {dtype, shape, data} (data is a
 * typed array copy, see DTYPE_ARRAY). `origin` prefixes error messages.
 * WeightLoadError for a malformed file.
 */
export function parseSafetensors(input: ArrayBuffer | ArrayBufferView, origin: string = 'safetensors'): Map<string, TensorData> {
  const fail = (msg: string): never => {
    throw new WeightLoadError(`${origin}: ${msg}`);
  };
  // A plain Uint8Array view (Node's Buffer.slice would not copy below).
  const bytes = ArrayBuffer.isView(input) ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength) : new Uint8Array(input);
  if (bytes.length < 8) fail('file too small for a safetensors header');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = Number(dv.getBigUint64(0, true));
  if (headerLen > bytes.length - 8) fail(`header length ${headerLen} exceeds file size ${bytes.length}`);
  let header: any;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLen)));
  } catch (e) {
    fail(`bad header JSON: ${(e as Error).message}`);
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) fail('the header is not a JSON object');
  const base = 8 + headerLen;
  const out = new Map<string, TensorData>();
  const isCount = (v: number) => Number.isSafeInteger(v) && v >= 0;
  for (const [name, info] of Object.entries<any>(header)) {
    if (name === '__metadata__') continue;
    // The header is untrusted: check every field's type before using it.
    if (!info || typeof info !== 'object' || Array.isArray(info)) fail(`tensor '${name}': header entry must be an object`);
    const dtype = ST_TO_IR[info.dtype] as DType;
    if (!dtype) fail(`tensor '${name}': unsupported dtype ${info.dtype}`);
    if (!Array.isArray(info.shape) || !info.shape.every(isCount)) fail(`tensor '${name}': shape must be a list of non-negative integers`);
    if (!Array.isArray(info.data_offsets) || info.data_offsets.length !== 2 || !info.data_offsets.every(isCount))
      fail(`tensor '${name}': data_offsets must be two non-negative integers`);
    const [begin, end] = info.data_offsets;
    if (base + end > bytes.length || begin > end) fail(`tensor '${name}': data offsets [${begin}, ${end}] out of range`);
    const Cls = DTYPE_ARRAY[dtype];
    const n = numel(info.shape);
    if ((end - begin) !== n * Cls.BYTES_PER_ELEMENT) fail(`tensor '${name}': ${end - begin} bytes for shape [${info.shape.join(', ')}] ${dtype}`);
    const copy = bytes.slice(base + begin, base + end);
    out.set(name, { dtype, shape: info.shape.slice(), data: new Cls(copy.buffer, 0, n) } as TensorData);
  }
  return out;
}

/** Serializes [{name, dtype, shape, data}] (or a Map name -> tensor) to safetensors bytes. */
export function writeSafetensors(tensors: readonly OutputTensor[] | ReadonlyMap<string, TensorData>): Uint8Array {
  const list: readonly OutputTensor[] = tensors instanceof Map ? [...tensors].map(([name, t]) => ({ name, ...t })) : tensors as readonly OutputTensor[];
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const t of list) {
    const st = IR_TO_ST[t.dtype];
    if (!st) throw new WeightLoadError(`cannot write tensor '${t.name}' to safetensors: dtype ${t.dtype}`);
    header[t.name] = { dtype: st, shape: t.shape, data_offsets: [offset, offset + t.data.byteLength] };
    offset += t.data.byteLength;
  }
  let json = JSON.stringify(header);
  const pad = (8 - (new TextEncoder().encode(json).length % 8)) % 8;
  json += ' '.repeat(pad);
  const hbytes = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + hbytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(hbytes.length), true);
  out.set(hbytes, 8);
  let pos = 8 + hbytes.length;
  for (const t of list) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), pos);
    pos += t.data.byteLength;
  }
  return out;
}

/** Splits a fixture io file into {inputs: {name: tensor}, outputs: [tensor]} (input.<name>, output.<i>). */
export function splitIo(tensors: ReadonlyMap<string, TensorData>): { inputs: Record<string, TensorData>; outputs: TensorData[] } {
  const inputs: Record<string, TensorData> = {};
  const outputs: TensorData[] = [];
  for (const [name, t] of tensors) {
    if (name.startsWith('input.')) inputs[name.slice(6)] = t;
    else if (/^output\.\d+$/.test(name)) outputs[Number(name.slice(7))] = t;
  }
  return { inputs, outputs };
}
