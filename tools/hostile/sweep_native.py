#!/usr/bin/env python3
"""Runs every file of the hostile manifest (tools/hostile/generate.py) through the native CLI and
classifies the outcome:

  ok       exit 0
  clean    exit 1 with a tir error ("torchir: IRFormatError: ...", WeightLoadError, ExecutionError)
  other    exit 1 with a non-tir exception ("torchir: error: ...": std::exception leaking through)
  crash    a signal, a sanitizer report, or any other exit status
  hang     still running after --timeout seconds (killed)
  memcap   over the memory cap: RLIMIT_AS (plain build) / ASan hard_rss_limit_mb, bad_alloc,
           ASan allocation-size-too-big / out-of-memory

Prints a table per family and the offenders; exit status 1 when any file is crash/hang/memcap.

    python3 tools/hostile/sweep_native.py [--cli build/asan-cli/torchir] [--jobs 2] [--timeout 10]
        [--mem-mb 4096] [--family dim0d,creation] [--json out.json] [--manifest build/hostile/manifest.jsonl]
"""
import argparse
import concurrent.futures as cf
import json
import os
import resource
import subprocess
import sys
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FAILING = ('crash', 'hang', 'memcap')
CLASSES = ('ok', 'clean', 'other') + FAILING
SANITIZER_MARKS = ('ERROR: AddressSanitizer', 'runtime error:', 'ERROR: LeakSanitizer', 'UndefinedBehaviorSanitizer',
                   'AddressSanitizer:DEADLYSIGNAL')
MEM_MARKS = ('allocation-size-too-big', 'out-of-memory', 'hard rss limit exhausted', 'rss-limit',
             'std::bad_alloc', 'bad_alloc', 'requested allocation size')


def command(cli, e, engine_mb):
    if e['cmd'] == 'info':
        return [cli, 'info', e['ir']]
    # The engine's own caps, below the process cap: a file asking for more must
    # be refused by the engine, not by the allocator.
    caps = ['--max-tensor-bytes', f'{engine_mb}M', '--max-arena-bytes', f'{engine_mb}M'] if engine_mb else []
    return [cli, 'run', e['ir'], '--weights', e['weights'], '--inputs', e['inputs'], *caps]


def classify(rc, out, timed_out):
    if timed_out:
        return 'hang'
    if any(m in out for m in MEM_MARKS):
        return 'memcap'
    if any(m in out for m in SANITIZER_MARKS):
        return 'crash'
    if rc == 0:
        return 'ok'
    if rc == 1:
        last = [l for l in out.splitlines() if l.startswith('torchir: ')]
        if last and last[-1].split(':')[1].strip() in ('IRFormatError', 'WeightLoadError', 'ExecutionError',
                                                        'VerificationError', 'Error'):
            return 'clean'
        return 'other'
    return 'crash'


def run_one(args, e, asan):
    env = dict(os.environ)
    if asan:
        # The RSS cap replaces RLIMIT_AS (ASan reserves terabytes of shadow address space).
        env['ASAN_OPTIONS'] = (f'hard_rss_limit_mb={args.mem_mb}:allocator_may_return_null=0:detect_leaks=0:'
                               f'max_allocation_size_mb={args.mem_mb}:abort_on_error=0:symbolize=1')
        env['UBSAN_OPTIONS'] = 'print_stacktrace=1:halt_on_error=1'
    cap = args.mem_mb * 1024 * 1024

    def limit():
        if not asan:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.setsid()

    t0 = time.monotonic()
    p = subprocess.Popen(command(args.cli, e, args.engine_mb), cwd=REPO, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, preexec_fn=limit)
    timed_out = False
    try:
        out, _ = p.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
    dt = time.monotonic() - t0
    text = out.decode('utf-8', 'replace')
    cls = classify(p.returncode, text, timed_out)
    lines = [l for l in text.splitlines() if l.strip()]
    msg = next((l for l in lines if any(m in l for m in SANITIZER_MARKS + MEM_MARKS)), None) or \
        (next((l for l in reversed(lines) if l.startswith('torchir: ')), None)) or (lines[-1] if lines else '')
    return {'id': e['id'], 'family': e['family'], 'class': cls, 'rc': p.returncode, 'seconds': round(dt, 2),
            'message': msg[:400], 'command': ' '.join(command(os.path.relpath(args.cli, REPO), e, args.engine_mb))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--cli', default=os.path.join(REPO, 'build', 'asan-cli', 'torchir'))
    ap.add_argument('--manifest', default=os.path.join(REPO, 'build', 'hostile', 'manifest.jsonl'))
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--timeout', type=float, default=10)
    ap.add_argument('--mem-mb', type=int, default=4096)
    ap.add_argument('--engine-mb', type=int, default=None,
                    help="--max-tensor-bytes / --max-arena-bytes for 'run' (default: half of --mem-mb; 0: the engine's defaults)")
    ap.add_argument('--family', default='', help='comma-separated families to run (default: all)')
    ap.add_argument('--json', help='write every result here')
    ap.add_argument('--asan', choices=('auto', 'yes', 'no'), default='auto',
                    help='sanitizer build? (auto: the CLI links libasan or has __asan_init)')
    args = ap.parse_args()
    if args.engine_mb is None:
        args.engine_mb = args.mem_mb // 2
    args.cli = os.path.abspath(args.cli)
    asan = args.asan == 'yes' or (args.asan == 'auto' and b'__asan_init' in open(args.cli, 'rb').read())
    fams = set(filter(None, args.family.split(',')))
    entries = [json.loads(l) for l in open(args.manifest)]
    entries = [e for e in entries if not fams or e['family'] in fams]
    print(f'{len(entries)} files, cli {args.cli} ({"ASan+UBSan" if asan else "plain"}), '
          f'timeout {args.timeout}s, memory cap {args.mem_mb} MB, {args.jobs} jobs', flush=True)
    t0 = time.monotonic()
    results = []
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        for n, r in enumerate(pool.map(lambda e: run_one(args, e, asan), entries), 1):
            results.append(r)
            if r['class'] in FAILING:
                print(f'  {r["class"]:6s} {r["id"]}: {r["message"][:160]}', flush=True)
            if n % 200 == 0:
                print(f'  ... {n}/{len(entries)} ({time.monotonic() - t0:.0f} s)', flush=True)
    total = time.monotonic() - t0
    table = {}
    for r in results:
        table.setdefault(r['family'], dict.fromkeys(CLASSES, 0))[r['class']] += 1
    print(f'\n{"family":18s} ' + ' '.join(f'{c:>7s}' for c in CLASSES) + '   total')
    for fam in sorted(table):
        row = table[fam]
        print(f'{fam:18s} ' + ' '.join(f'{row[c]:7d}' for c in CLASSES) + f'  {sum(row.values()):6d}')
    sums = {c: sum(t[c] for t in table.values()) for c in CLASSES}
    print(f'{"TOTAL":18s} ' + ' '.join(f'{sums[c]:7d}' for c in CLASSES) + f'  {len(results):6d}')
    print(f'sweep time {total:.0f} s')
    bad = [r for r in results if r['class'] in FAILING]
    if bad:
        print(f'\n{len(bad)} offenders (reproduce with the command shown):')
        for r in bad:
            print(f'  {r["class"]:6s} {r["command"]}\n         {r["message"][:200]}')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'cli': args.cli, 'asan': asan, 'seconds': round(total, 1), 'table': table,
                       'results': results}, f, indent=1)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
