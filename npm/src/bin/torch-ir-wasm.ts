#!/usr/bin/env node
// torch-ir-wasm: the native `torchir` CLI's commands and flags, running on the
// WASM build in Node (info / visualize / pie / run / verify / generate).
// The engine does the work with torchir's own code: the command table, the
// argument parser and the usage text (src/command_line, through
// bindings/embind_cli.cpp), loading and validation, verify and its report
// text, the float64-truth comparison, the unknown weight-key check. What is JS
// here is Node file I/O, exit codes, and the one look at --threads that must
// come before any engine exists (it picks which WASM build to instantiate).
import { readFile, writeFile } from 'node:fs/promises';
import { loadIR, loadLM, TorchIrError, WeightLoadError } from '../index.js';
import { getBackend } from '../lib/backend.js';
import { parseJsonLoose } from '../lib/json.js';
import { parseSafetensors, writeSafetensors } from '../lib/safetensors.js';
import { formatReport, shapeText } from '../lib/report.js';
import { errnoText } from '../lib/source.js';
import type { EmbindObject } from '../lib/backend.js';
import type { Model } from '../lib/model.js';
import type { Limits } from '../lib/limits.js';
import type { WeightDtype } from '../lib/model_types.js';
import type { OutputTensor, TensorData } from '../lib/tensor_types.js';

/**
 * A command line the engine checked (command_line::args_to_json): options with
 * their defaults filled in, typed by kind (flags true, numbers, sizes as
 * numbers, token ids as arrays, text).
 */
interface Args {
  command: string;
  positional: string[];
  options: Record<string, any>;
}

class CliError extends Error {
  override get name() {
    return 'Error';
  }
}

// The build the command line asks for: --threads 1 runs the single-threaded
// one. Only a guess to choose what to load; the engine then checks the value.
function threadsAsked(argv: string[]): number | undefined {
  const i = argv.indexOf('--threads');
  const n = i >= 0 ? Number(argv[i + 1]) : NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

async function engine(threads: number | undefined): Promise<EmbindObject> {
  return (await getBackend({ threads })).module;
}

// The options every loading command shares, as loadIR/loadLM options.
function loadOptions(a: Args) {
  const o = a.options;
  const limits: Limits = {};
  const keys: Record<string, keyof Limits> = { '--max-tensor-bytes': 'maxTensorBytes', '--max-arena-bytes': 'maxArenaBytes', '--max-run-work': 'maxRunWork' };
  for (const [opt, key] of Object.entries(keys)) if (opt in o) limits[key] = o[opt];
  return {
    weights: o['--weights'] as string,
    constants: (o['--constants'] as string | undefined) || undefined,
    threads: o['--threads'] > 0 ? (o['--threads'] as number) : undefined,  // 0 or absent: the package's default
    weightDtype: o['--weight-dtype'] as WeightDtype,
    limits,
    strictWeights: Boolean(o['--strict-weights']),
  };
}

const irPath = (a: Args): string => a.positional[0]!;

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
  return loadIR(irPath(a), { ...loadOptions(a), profile: Boolean(a.options['--profile']) });
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

// The commands torch-ir-wasm runs (the engine refuses the native-only ones, parity and ops).
const commands: Record<string, (a: Args) => Promise<number>> = {
  async info(a) {
    const m = await loadIR(irPath(a), { compile: false });
    await writeText(m.info({ json: Boolean(a.options['--json']) }), a.options['-o'] ?? '');
    return 0;
  },
  async visualize(a) {
    const m = await loadIR(irPath(a), { compile: false });
    const text = m.toMermaid({ maxNodes: a.options['--max-nodes'], includeWeights: !a.options['--no-weights'] });
    await writeText(text, a.options['-o'] ?? '');
    return 0;
  },
  async pie(a) {
    const m = await loadIR(irPath(a), { compile: false });
    await writeText(m.opDistributionPie({ topN: a.options['--top'] }), a.options['-o'] ?? '');
    return 0;
  },
  async run(a) {
    const ioPath: string = a.options['--inputs'];
    const repeat: number = a.options['--repeat'];
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
    if (a.options['--profile']) {
      for (const t of model.profile()) console.log(`  ${t.node.padEnd(40)} ${t.opType.padEnd(40)} ${t.ms.toFixed(3).padStart(9)} ms`);
    }
    if ('-o' in a.options) await writeOut(a.options['-o'], writeSafetensors(outputs.map((o, i) => ({ ...o, name: `output.${i}` }))));
    return 0;
  },
  async verify(a) {
    const ioPath: string = a.options['--io'];
    const model = await openModel(a);
    const io = await readIo(ioPath);
    const truthPath: string | undefined = a.options['--reference64'];
    const reference64 = truthPath ? ioOutputs(model, await readIo(truthPath), truthPath) : undefined;
    const r = await model.verify(ioInputs(model, io, ioPath), ioOutputs(model, io, ioPath), {
      rtol: a.options['--rtol'],
      atol: a.options['--atol'],
      reference64,
    });
    process.stdout.write(formatReport(r));
    return r.isValid ? 0 : 1;
  },
  async generate(a) {
    const o = a.options;
    const text: string | undefined = o['--prompt'];
    if (text !== undefined && o['--prompt-ids'] !== undefined) throw new UsageError('generate: give --prompt or --prompt-ids, not both');
    if (text === undefined && o['--prompt-ids'] === undefined) throw new UsageError('generate needs --prompt-ids 1,2,3, or --prompt TEXT with --tokenizer tokenizer.json');
    if (text !== undefined && o['--tokenizer'] === undefined) throw new UsageError('generate: --prompt TEXT needs --tokenizer tokenizer.json (the model\'s)');
    const lm = await loadLM({
      prefill: a.positional[0]!,
      decode: a.positional[1]!,
      kvMapping: o['--kv-mapping'],
      ...loadOptions(a),
      donate: !o['--no-donate'],
      ...(o['--tokenizer'] !== undefined ? { tokenizer: o['--tokenizer'] } : {}),
    });
    const options = {
      maxNewTokens: o['--max-new-tokens'],
      minNewTokens: o['--min-new-tokens'],
      repetitionPenalty: o['--repetition-penalty'],
      frequencyPenalty: o['--frequency-penalty'],
      presencePenalty: o['--presence-penalty'],
      temperature: o['--temperature'],
      topK: o['--top-k'],
      topP: o['--top-p'],
      seed: o['--seed'],
      // Default: none for ids, the tokenizer's end-of-text tokens for text.
      ...(o['--stop'] !== undefined || text === undefined ? { stop: o['--stop'] ?? [] } : {}),
    };
    if (text !== undefined) {
      // The continuation streams to stdout as it is generated.
      for await (const piece of lm.stream(text, options)) process.stdout.write(piece);
    }
    const out = text === undefined ? await lm.generate(o['--prompt-ids'] as number[], options) : null;
    const s = lm.stats!;
    process.stderr.write(`prefill: ${s.promptTokens} tokens (padded to ${lm.info.prefillLen}) in ${s.prefillMs.toFixed(2)} ms; ` +
      `decode: ${s.decodeSteps} steps in ${s.decodeMs.toFixed(2)} ms (${s.decodeTokensPerSecond.toFixed(1)} tokens/s); ` +
      `cache ${s.cacheBytes} bytes, ${s.cacheBytesCopiedPerStep} copied per step\n`);
    process.stdout.write(out ? out.join(' ') + '\n' : '\n');
    lm.dispose();
    return 0;
  },
};

async function version() {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  return pkg.version;
}

function printError(e: any): void {
  if (e instanceof TorchIrError || e instanceof CliError) {
    const kind = e.name === 'TorchIrError' ? 'Error' : e.name;
    process.stderr.write(`torch-ir-wasm: ${kind}: ${e.message}\n`);
  } else {
    process.stderr.write(`torch-ir-wasm: error: ${e?.stack || e}\n`);
  }
}

// An option combination the command table cannot express (exit 2, as the table's own usage errors).
class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === '--version') {
    process.stdout.write(`torch-ir-wasm ${await version()}\n`);
    return 0;
  }
  try {
    const help = argv.length < 1 || argv[0] === '-h' || argv[0] === '--help';
    const m = await engine(help ? 1 : threadsAsked(argv));
    if (help) {
      process.stdout.write(m.cliUsage());
      return argv.length < 1 ? 2 : 0;
    }
    const cmd = argv[0]!;
    if (!m.cliKnowsCommand(cmd)) {
      process.stderr.write(`torch-ir-wasm: unknown command '${cmd}'\n${m.cliUsage()}`);
      return 2;
    }
    const parsed = parseJsonLoose(m.cliParse(argv));
    if (parsed.kind === 'UsageError') {
      process.stderr.write(`torch-ir-wasm: usage error: ${parsed.message}\n${m.cliUsageHint(cmd)}`);
      return 2;
    }
    if (parsed.kind) throw new CliError(parsed.message);
    try {
      return await commands[parsed.command]!(parsed as Args);
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      process.stderr.write(`torch-ir-wasm: usage error: ${e.message}\n${m.cliUsageHint(cmd)}`);
      return 2;
    }
  } catch (e: any) {
    printError(e);
    return 1;
  }
}

// `torch-ir-wasm ... | head`: a closed pipe ends the output quietly.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main(process.argv.slice(2));
