#!/usr/bin/env node
// torch-ir-wasm: the native `torchir` CLI's commands and flags, running on the
// WASM build in Node (info / visualize / pie / run / verify).
import { readFile, writeFile } from 'node:fs/promises';
import { loadIR, loadLM, TorchIrError, WeightLoadError } from '../index.js';
import { parseSafetensors, writeSafetensors } from '../lib/safetensors.js';
import { formatReport, shapeText } from '../lib/report.js';
import { errnoText } from '../lib/source.js';

const USAGE =
  'usage: torch-ir-wasm <command> ...\n' +
  '  info IR [--json] [-o FILE]\n' +
  '  visualize IR [--max-nodes N] [--no-weights] [-o FILE]\n' +
  '  pie IR [--top N] [-o FILE]\n' +
  '  run IR --weights W [--constants C] --inputs IO [-o OUT.safetensors] [--profile] [--threads N]\n' +
  '  verify IR --weights W [--constants C] --io IO [--rtol R] [--atol A] [--threads N]\n' +
  '  generate PREFILL DECODE --kv-mapping K --weights W [--constants C] --prompt-ids 1,2,3\n' +
  '      [--max-new-tokens N] [--temperature T] [--top-k K] [--top-p P] [--seed S] [--stop 2,3]\n' +
  '      [--threads N] [--no-donate]   (new ids on the last stdout line; timing on stderr)\n' +
  'IO files are .safetensors with input.<graph_input_name> and output.<i> tensors.\n' +
  '--threads 1 uses the single-threaded build; default: all cores on the threaded build.\n';

class UsageError extends Error {}
class CliError extends Error {
  get name() {
    return 'Error';
  }
}

function parseArgs(argv, flags) {
  const a = { positional: [], options: new Map() };
  for (let i = 0; i < argv.length; ++i) {
    const s = argv[i];
    if (s.length > 1 && s[0] === '-') {
      if (flags.includes(s)) a.options.set(s, '');
      else if (i + 1 >= argv.length) throw new CliError(`option ${s} expects a value`);
      else a.options.set(s, argv[++i]);
    } else {
      a.positional.push(s);
    }
  }
  a.has = (k) => a.options.has(k);
  a.get = (k, def = '') => (a.options.has(k) ? a.options.get(k) : def);
  a.num = (k, def) => {
    if (!a.options.has(k)) return def;
    const v = a.options.get(k);
    const d = v.trim() === '' ? NaN : Number(v);
    if (Number.isNaN(d) && v.trim().toLowerCase() !== 'nan') throw new CliError(`option ${k} expects a number, got '${v}'`);
    return d;
  };
  return a;
}

const irPath = (a) => {
  if (!a.positional.length) throw new CliError('missing IR file argument');
  return a.positional[0];
};
const required = (a, opt) => {
  if (!a.has(opt)) throw new CliError(`missing required option ${opt}`);
  return a.get(opt);
};

async function writeText(text, path) {
  if (!path) process.stdout.write(text + '\n');
  else {
    try {
      await writeFile(path, text + '\n');
    } catch (e) {
      throw new CliError(`cannot write '${path}'`, { cause: e });
    }
  }
}

function threadsOption(a) {
  return a.has('--threads') ? a.num('--threads', 0) : undefined;
}

async function openModel(a) {
  return loadIR(irPath(a), {
    weights: required(a, '--weights'),
    constants: a.get('--constants') || undefined,
    threads: threadsOption(a),
    profile: a.has('--profile'),
  });
}

// The fixture io file: input.<name> / output.<i>.
async function readIo(path) {
  let bytes;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw new WeightLoadError(`cannot open '${path}': ${errnoText(e)}`);
  }
  return parseSafetensors(bytes, path);
}

function ioInputs(model, io, origin) {
  return model.inputs.map((m) => {
    const t = io.get(`input.${m.name}`);
    if (!t) throw new WeightLoadError(`${origin}: no tensor 'input.${m.name}' for graph input '${m.name}'`);
    return t;
  });
}

function ioOutputs(model, io, origin) {
  return model.outputs.map((m, i) => {
    const t = io.get(`output.${i}`);
    if (!t) throw new WeightLoadError(`${origin}: no tensor 'output.${i}' (expected output ${i})`);
    return t;
  });
}

const commands = {
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
    const model = await openModel(a);
    const inputs = ioInputs(model, await readIo(ioPath), ioPath);
    const t0 = performance.now();
    const outputs = await model.execute(inputs);
    const ms = performance.now() - t0;
    outputs.forEach((o, i) => console.log(`output ${i}: ${shapeText(o.shape)} ${o.dtype}`));
    console.log(`run time: ${ms.toFixed(3)} ms`);
    if (a.has('--profile')) {
      for (const t of model.profile()) console.log(`  ${t.node.padEnd(40)} ${t.opType.padEnd(40)} ${t.ms.toFixed(3).padStart(9)} ms`);
    }
    if (a.has('-o')) {
      await writeFile(a.get('-o'), writeSafetensors(outputs.map((o, i) => ({ ...o, name: `output.${i}` }))));
    }
    return 0;
  },
  async verify(a) {
    const ioPath = required(a, '--io');
    const backend = a.get('--backend', 'native');
    if (backend !== 'native') {
      throw new CliError(backend === 'libtorch'
        ? "backend 'libtorch' needs the native build (torchir verify --backend libtorch)"
        : `unknown backend '${backend}' (native|libtorch)`);
    }
    const model = await openModel(a);
    const io = await readIo(ioPath);
    const r = await model.verify(ioInputs(model, io, ioPath), ioOutputs(model, io, ioPath), {
      rtol: a.num('--rtol', 1e-5),
      atol: a.num('--atol', 1e-5),
    });
    process.stdout.write(formatReport(r));
    return r.isValid ? 0 : 1;
  },
  async generate(a) {
    if (a.positional.length !== 2) throw new CliError('generate needs two IR files: PREFILL DECODE');
    const ids = (opt) => a.get(opt).split(',').map((t) => {
      if (!/^\s*-?\d+\s*$/.test(t)) throw new CliError(`${opt}: '${t}' is not an integer token id (expected e.g. 1,2,3)`);
      return Number(t);
    });
    const lm = await loadLM({
      prefill: a.positional[0],
      decode: a.positional[1],
      kvMapping: required(a, '--kv-mapping'),
      weights: required(a, '--weights'),
      constants: a.get('--constants') || undefined,
      threads: threadsOption(a),
      donate: !a.has('--no-donate'),
    });
    const prompt = ids(a.has('--prompt-ids') ? '--prompt-ids' : required(a, '--prompt-ids'));
    const out = await lm.generate(prompt, {
      maxNewTokens: a.num('--max-new-tokens', 32),
      temperature: a.num('--temperature', 0),
      topK: a.num('--top-k', 0),
      topP: a.num('--top-p', 1),
      seed: a.num('--seed', 0),
      stop: a.has('--stop') ? ids('--stop') : [],
    });
    const s = lm.stats;
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

async function main(argv) {
  if (argv.length < 1 || argv[0] === '-h' || argv[0] === '--help') {
    process.stdout.write(USAGE);
    return argv.length < 1 ? 2 : 0;
  }
  const cmd = argv[0];
  try {
    const a = parseArgs(argv.slice(1), ['--json', '--no-weights', '--profile', '--no-donate']);
    if (!Object.hasOwn(commands, cmd)) throw new UsageError(`unknown command '${cmd}'`);
    return await commands[cmd](a);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`torch-ir-wasm: ${e.message}\n${USAGE}`);
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
