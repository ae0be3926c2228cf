#!/usr/bin/env node
// torch-ir-wasm: the native `torchir` CLI's commands and flags, running on the
// WASM build in Node (info / visualize / pie / run / verify).
// The engine does the work with torchir's own code (loading and validation,
// verify, the float64-truth comparison, the unknown weight-key check and its
// message). What is JS here is this program's front end: argument parsing and
// usage text run before any engine exists (--threads picks which WASM build to
// instantiate; --help and usage errors load none), Node file I/O, exit codes,
// and the report text (lib/report.js: a public function of a report object,
// which must work where no engine is loaded; cli.test.mjs compares it with
// torchir's).
import { readFile, writeFile } from 'node:fs/promises';
import { loadIR, loadLM, TorchIrError, WeightLoadError } from '../index.js';
import { parseSafetensors, writeSafetensors } from '../lib/safetensors.js';
import { formatReport, shapeText } from '../lib/report.js';
import { errnoText } from '../lib/source.js';
import type { Model } from '../lib/model.js';
import type { Limits } from '../lib/limits.js';
import type { WeightDtype } from '../lib/model_types.js';
import type { OutputTensor, TensorData } from '../lib/tensor_types.js';

/** A command's usage lines, its options that take a value, and its flags. */
interface CommandSpec {
  usage: string;
  values: string[];
  flags: string[];
  any?: boolean;
}

/** A parsed command line: positional arguments and options (flags map to ''). */
interface Args {
  positional: string[];
  options: Map<string, string>;
  has(k: string): boolean;
  get(k: string, def?: string): string;
  num(k: string, def: number): number;
}

// Each command's usage lines and the options it takes (value options, then
// flags without a value). The native torchir's commands and flags.
const LIMITS = ['--max-tensor-bytes', '--max-arena-bytes', '--max-run-work'];
const LOAD = ['--weights', '--constants', '--threads', '--weight-dtype', ...LIMITS];
const COMMANDS: Record<string, CommandSpec> = {
  info: { usage: 'info IR [--json] [-o FILE]', values: ['-o'], flags: ['--json'] },
  visualize: { usage: 'visualize IR [--max-nodes N] [--no-weights] [-o FILE]', values: ['--max-nodes', '-o'], flags: ['--no-weights'] },
  pie: { usage: 'pie IR [--top N] [-o FILE]', values: ['--top', '-o'], flags: [] },
  run: {
    usage: 'run IR --weights W [--constants C] --inputs IO [-o OUT.safetensors] [--profile] [--repeat N]\n' +
      '      [--threads N] [--weight-dtype D] [--strict-weights] [LIMITS]',
    values: [...LOAD, '--inputs', '-o', '--repeat'],
    flags: ['--profile', '--strict-weights'],
  },
  verify: {
    usage: 'verify IR --weights W [--constants C] --io IO [--rtol R] [--atol A] [--threads N]\n' +
      '      [--weight-dtype D] [--strict-weights] [--reference64 T] [LIMITS]\n' +
      '      (--reference64: float64 outputs output.<i>; also reports our and the reference\'s max error\n' +
      '      against them, and whether an rtol/atol failure is only reassociation)',
    values: [...LOAD, '--io', '--rtol', '--atol', '--backend', '--reference64'],
    flags: ['--strict-weights'],
  },
  generate: {
    usage: 'generate PREFILL DECODE --kv-mapping K --weights W [--constants C] --prompt-ids 1,2,3\n' +
      '      [--max-new-tokens N] [--temperature T] [--top-k K] [--top-p P] [--seed S] [--stop 2,3]\n' +
      '      [--threads N] [--weight-dtype D] [--no-donate] [--strict-weights] [LIMITS]\n' +
      '      (new ids on the last stdout line; timing on stderr)',
    values: [...LOAD, '--kv-mapping', '--prompt-ids', '--max-new-tokens', '--temperature', '--top-k', '--top-p',
      '--seed', '--stop'],
    flags: ['--no-donate', '--strict-weights'],
  },
};

const USAGE =
  'usage: torch-ir-wasm <command> ...\n' +
  Object.values(COMMANDS).map((c) => `  ${c.usage}\n`).join('') +
  '  torch-ir-wasm --version | --help\n' +
  'IO files are .safetensors with input.<graph_input_name> and output.<i> tensors.\n' +
  '--threads 1 uses the single-threaded build; default: all cores on the threaded build.\n' +
  '--weight-dtype float32|float16|bfloat16: how linear/matmul weights are stored (default float32).\n' +
  '--strict-weights: weights/constants keys that match nothing in the IR are an error (default: a warning).\n' +
  'LIMITS: --max-tensor-bytes N, --max-arena-bytes N, --max-run-work N (suffixes K/M/G/T; 0: default).\n' +
  'Exit status: 0 success, 1 error (verify: outputs differ), 2 usage error.\n';

// A bad command line: printed with the command's usage, exit 2.
class UsageError extends Error {}
class CliError extends Error {
  override get name() {
    return 'Error';
  }
}

function parseArgs(argv: string[], spec: CommandSpec): Args {
  const a = { positional: [] as string[], options: new Map<string, string>() } as Args;
  for (let i = 0; i < argv.length; ++i) {
    const s = argv[i];
    if (s.length > 1 && s[0] === '-') {
      if (spec.flags.includes(s)) a.options.set(s, '');
      else if (!spec.values.includes(s)) throw new UsageError(`unknown option ${s}`);
      else if (i + 1 >= argv.length) throw new UsageError(`option ${s} expects a value`);
      else a.options.set(s, argv[++i]!);
    } else {
      a.positional.push(s);
    }
  }
  a.has = (k) => a.options.has(k);
  a.get = (k, def = '') => (a.options.has(k) ? a.options.get(k)! : def);
  a.num = (k, def) => {
    if (!a.options.has(k)) return def;
    const v = a.options.get(k)!;
    const d = v.trim() === '' ? NaN : Number(v);
    if (Number.isNaN(d) && v.trim().toLowerCase() !== 'nan') throw new UsageError(`option ${k} expects a number, got '${v}'`);
    return d;
  };
  return a;
}

// "4096", "512M", "2G" (K/M/G/T = 2^10..2^40, optional B), as the native CLI reads them.
function parseSize(text: string, option: string): number {
  const m = /^(\d+)(?:([kmgt])b?)?$/i.exec(text);
  const shift = m?.[2] ? ({ k: 10, m: 20, g: 30, t: 40 } as Record<string, number>)[m[2].toLowerCase()]! : 0;
  const v = m ? Number(m[1]) * 2 ** shift : NaN;
  if (!m) throw new UsageError(`${option} expects a non-negative integer with an optional K/M/G/T suffix, got '${text}'`);
  if (!Number.isSafeInteger(v)) throw new UsageError(`${option}: '${text}' is too large`);
  return v;
}

// The options every loading command shares, as loadIR/loadLM options.
function loadOptions(a: Args) {
  const limits: Limits = {};
  const keys: Record<string, keyof Limits> = { '--max-tensor-bytes': 'maxTensorBytes', '--max-arena-bytes': 'maxArenaBytes', '--max-run-work': 'maxRunWork' };
  for (const [opt, key] of Object.entries(keys)) if (a.has(opt)) limits[key] = parseSize(a.get(opt), opt);
  const weightDtype = a.get('--weight-dtype', 'float32');
  if (!['float32', 'float16', 'bfloat16'].includes(weightDtype)) {
    throw new UsageError(`--weight-dtype must be float32, float16 or bfloat16, got '${weightDtype}'`);
  }
  const threads = a.has('--threads') ? a.num('--threads', 0) : undefined;
  if (threads !== undefined && threads < 0) throw new UsageError('--threads must be positive');
  return {
    weights: required(a, '--weights'),
    constants: a.get('--constants') || undefined,
    threads,
    weightDtype: weightDtype as WeightDtype,
    limits,
    strictWeights: a.has('--strict-weights'),
  };
}

const irPath = (a: Args): string => {
  if (!a.positional.length) throw new UsageError('missing IR file argument');
  return a.positional[0]!;
};
const required = (a: Args, opt: string): string => {
  if (!a.has(opt)) throw new UsageError(`missing required option ${opt}`);
  return a.get(opt);
};

async function writeOut(path: string, data: string | Uint8Array): Promise<void> {
  try {
    await writeFile(path, data);
  } catch (e) {
    throw new CliError(`cannot write '${path}': ${errnoText(e)}`, { cause: e });
  }
}

async function writeText(text: string, path: string): Promise<void> {
  if (!path) process.stdout.write(text + '\n');
  else await writeOut(path, text + '\n');
}

async function openModel(a: Args): Promise<Model> {
  return loadIR(irPath(a), { ...loadOptions(a), profile: a.has('--profile') });
}

// The fixture io file: input.<name> / output.<i>.
async function readIo(path: string): Promise<Map<string, TensorData>> {
  let bytes;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw new WeightLoadError(`cannot open '${path}': ${errnoText(e)}`);
  }
  return parseSafetensors(bytes, path);
}

function ioInputs(model: Model, io: Map<string, TensorData>, origin: string): TensorData[] {
  return model.inputs.map((m) => {
    const t = io.get(`input.${m.name}`);
    if (!t) throw new WeightLoadError(`${origin}: no tensor 'input.${m.name}' for graph input '${m.name}'`);
    return t;
  });
}

function ioOutputs(model: Model, io: Map<string, TensorData>, origin: string): TensorData[] {
  return model.outputs.map((_m, i) => {
    const t = io.get(`output.${i}`);
    if (!t) throw new WeightLoadError(`${origin}: no tensor 'output.${i}' (expected output ${i})`);
    return t;
  });
}

const commands: Record<string, (a: Args) => Promise<number>> = {
  async info(a) {
    const m = await loadIR(irPath(a), { compile: false });
    await writeText(m.info({ json: a.has('--json') }), a.get('-o'));
    return 0;
  },
  async visualize(a) {
    const m = await loadIR(irPath(a), { compile: false });
    await writeText(m.toMermaid({ maxNodes: a.num('--max-nodes', 30), includeWeights: !a.has('--no-weights') }), a.get('-o'));
    return 0;
  },
  async pie(a) {
    const m = await loadIR(irPath(a), { compile: false });
    await writeText(m.opDistributionPie({ topN: a.num('--top', 10) }), a.get('-o'));
    return 0;
  },
  async run(a) {
    const ioPath = required(a, '--inputs');
    const repeat = a.num('--repeat', 1);
    if (!(repeat >= 1)) throw new UsageError('--repeat must be at least 1');
    const model = await openModel(a);
    const inputs = ioInputs(model, await readIo(ioPath), ioPath);
    const times: number[] = [];
    let outputs: OutputTensor[] = [];
    for (let r = 0; r < repeat; ++r) {
      const t0 = performance.now();
      outputs = await model.execute(inputs);
      times.push(performance.now() - t0);
    }
    outputs.forEach((o, i) => console.log(`output ${i}: ${shapeText(o.shape)} ${o.dtype}`));
    const median = [...times].sort((x, y) => x - y)[Math.floor(times.length / 2)];
    console.log(repeat > 1
      ? `run time: ${median!.toFixed(3)} ms (median of ${repeat} runs; first ${times[0]!.toFixed(3)} ms)`
      : `run time: ${times[0]!.toFixed(3)} ms`);
    if (a.has('--profile')) {
      for (const t of model.profile()) console.log(`  ${t.node.padEnd(40)} ${t.opType.padEnd(40)} ${t.ms.toFixed(3).padStart(9)} ms`);
    }
    if (a.has('-o')) await writeOut(a.get('-o'), writeSafetensors(outputs.map((o, i) => ({ ...o, name: `output.${i}` }))));
    return 0;
  },
  async verify(a) {
    const ioPath = required(a, '--io');
    if (a.has('--backend') && !['native', 'libtorch'].includes(a.get('--backend'))) {
      throw new UsageError(`unknown backend '${a.get('--backend')}' (native|libtorch)`);
    }
    const backend = a.get('--backend', 'native');
    if (backend !== 'native') {
      throw new CliError("backend 'libtorch' needs the native build (torchir verify --backend libtorch)");
    }
    const model = await openModel(a);
    const io = await readIo(ioPath);
    const truthPath = a.get('--reference64');
    const reference64 = truthPath ? ioOutputs(model, await readIo(truthPath), truthPath) : undefined;
    const r = await model.verify(ioInputs(model, io, ioPath), ioOutputs(model, io, ioPath), {
      rtol: a.num('--rtol', 1e-5),
      atol: a.num('--atol', 1e-5),
      reference64,
    });
    process.stdout.write(formatReport(r));
    return r.isValid ? 0 : 1;
  },
  async generate(a) {
    if (a.positional.length !== 2) throw new UsageError('generate needs two IR files: PREFILL DECODE');
    required(a, '--prompt-ids');
    const ids = (opt: string) => a.get(opt).split(',').map((t) => {
      if (!/^\s*-?\d+\s*$/.test(t)) throw new UsageError(`${opt}: '${t}' is not an integer token id (expected e.g. 1,2,3)`);
      return Number(t);
    });
    const lm = await loadLM({
      prefill: a.positional[0]!,
      decode: a.positional[1]!,
      kvMapping: required(a, '--kv-mapping'),
      ...loadOptions(a),
      donate: !a.has('--no-donate'),
    });
    const prompt = ids('--prompt-ids');
    const out = await lm.generate(prompt, {
      maxNewTokens: a.num('--max-new-tokens', 32),
      temperature: a.num('--temperature', 0),
      topK: a.num('--top-k', 0),
      topP: a.num('--top-p', 1),
      seed: a.num('--seed', 0),
      stop: a.has('--stop') ? ids('--stop') : [],
    });
    const s = lm.stats!;
    process.stderr.write(`prefill: ${s.promptTokens} tokens (padded to ${lm.info.prefillLen}) in ${s.prefillMs.toFixed(2)} ms; ` +
      `decode: ${s.decodeSteps} steps in ${s.decodeMs.toFixed(2)} ms (${s.decodeTokensPerSecond.toFixed(1)} tokens/s); ` +
      `cache ${s.cacheBytes} bytes, ${s.cacheBytesCopiedPerStep} copied per step\n`);
    process.stdout.write(out.join(' ') + '\n');
    lm.dispose();
    return 0;
  },
  async parity() {
    throw new CliError("'parity' needs the native build with LibTorch (torchir parity)");
  },
  async ops() {
    throw new CliError("'ops' is only in the native CLI (torchir ops)");
  },
};

async function version() {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length < 1 || argv[0] === '-h' || argv[0] === '--help') {
    process.stdout.write(USAGE);
    return argv.length < 1 ? 2 : 0;
  }
  if (argv[0] === '--version') {
    process.stdout.write(`torch-ir-wasm ${await version()}\n`);
    return 0;
  }
  const cmd = argv[0];
  if (!Object.hasOwn(commands, cmd)) {
    process.stderr.write(`torch-ir-wasm: unknown command '${cmd}'\n${USAGE}`);
    return 2;
  }
  try {
    // parity/ops only explain that they are native-only, whatever the flags.
    const spec = COMMANDS[cmd] ?? { usage: '', values: [], flags: [], any: true };
    const a = spec.any ? { positional: [] } as unknown as Args : parseArgs(argv.slice(1), spec);
    return await commands[cmd]!(a);
  } catch (e: any) {
    if (e instanceof UsageError) {
      process.stderr.write(`torch-ir-wasm: usage error: ${e.message}\n` +
        `usage: torch-ir-wasm ${COMMANDS[cmd]!.usage}\n(torch-ir-wasm --help lists every command and option)\n`);
      return 2;
    }
    if (e instanceof TorchIrError || e instanceof CliError) {
      const kind = e.name === 'TorchIrError' ? 'Error' : e.name;
      process.stderr.write(`torch-ir-wasm: ${kind}: ${e.message}\n`);
    } else {
      process.stderr.write(`torch-ir-wasm: error: ${e?.stack || e}\n`);
    }
    return 1;
  }
}

// `torch-ir-wasm ... | head`: a closed pipe ends the output quietly.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main(process.argv.slice(2));
