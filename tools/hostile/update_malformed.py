#!/usr/bin/env python3
"""Records the actual outcome of every tests/malformed case into tests/malformed/manifest.json, from the
native library (tir_unit_tests in record mode, TIR_MALFORMED_RECORD) and through the JS API
(npm/test/malformed.test.mjs in record mode). Review the diff before committing it.

  expect      the native {class, message}: set when the native outcome is a tir error
  js_expect   set only when the JS outcome is a TorchIrError that differs from expect
  pending     the native outcome is not a tir error (a crash, a std::exception, no error at all):
              both suites skip the case
  js_pending  native is fine but JS is not (a trap, a non-TorchIrError, a dead or unusable module):
              the JS suite skips the case

Messages are machine-independent: paths under tests/malformed become {dir}, and the native default
limits (the machine's physical memory) {default_limit} (tir_unit_tests masks them in record mode).

Also lists messages that name no file, tensor or node (no {dir} path and no quoted name).

    python3 tools/hostile/update_malformed.py [--unit-tests build/native/tests/tir_unit_tests] [--no-js]"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DIR = os.path.join(REPO, 'tests', 'malformed')
TIR = {'IRFormatError', 'WeightLoadError', 'ExecutionError', 'VerificationError', 'Error'}


def read_lines(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                out[r['name']] = r
    return out


def record(cmd_for, names, env_extra, timeout):
    """Runs each case in its own process (a crash or hang then costs only that case)."""
    fd, rec = tempfile.mkstemp(suffix='.jsonl')
    os.close(fd)
    env = dict(os.environ, TIR_MALFORMED_RECORD=rec, TIR_MALFORMED_DIR=DIR, **env_extra)
    got, lost = {}, {}
    for n in names:
        # Own process group: on a hang the whole group goes (node --test runs the file in a child).
        p = subprocess.Popen(cmd_for(n), cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
            tail = out.decode('utf-8', 'replace').strip().splitlines()[-1:] or ['']
            why = f'exit {p.returncode}: {tail[0][:200]}'
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            why = f'no answer within {timeout} s'
        got = read_lines(rec)
        if n not in got:
            lost[n] = {'name': n, 'class': 'crash' if 'exit' in why else 'hang', 'message': why}
        print(f'  {n}: {(got.get(n) or lost[n])["class"]}', flush=True)
    os.unlink(rec)
    return {**got, **lost}


def rel_msg(m):
    return m.replace(DIR, '{dir}')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--unit-tests', default=os.path.join(REPO, 'build', 'native', 'tests', 'tir_unit_tests'))
    ap.add_argument('--no-js', action='store_true')
    ap.add_argument('--timeout', type=int, default=20)
    args = ap.parse_args()
    man_path = os.path.join(DIR, 'manifest.json')
    man = json.load(open(man_path))
    names = [c['name'] for c in man['cases']]
    native = record(lambda n: [args.unit_tests, '--gtest_filter=Malformed/MalformedTest.Case/' + n],
                    names, {}, args.timeout)
    js = {}
    if not args.no_js:
        node = ['node', '--test', '--test-concurrency=1', 'npm/test/malformed.test.mjs']
        js = record(lambda n: ['env', f'TIR_MALFORMED_ONLY={n}'] + node,
                    names, {'NODE_PATH': '/usr/share/nodejs'}, args.timeout)
    unnamed, pend, jpend = [], [], []
    for c in man['cases']:
        n = native[c['name']]
        # --no-js keeps the JS outcomes recorded before.
        for k in ('expect', 'pending') + (() if args.no_js else ('js_expect', 'js_pending')):
            c.pop(k, None)
        if n['class'] in TIR:
            c['expect'] = {'class': n['class'], 'message': rel_msg(n['message'])}
            if '{dir}' not in c['expect']['message'] and "'" not in n['message']:
                unnamed.append((c['name'], n['message']))
        else:
            c['pending'] = f"native: {n['class']}: {n['message'][:300]}" if n['message'] else f"native: {n['class']}"
            pend.append(c['name'])
        j = js.get(c['name'])
        if j is not None and 'pending' not in c:
            jm = rel_msg(j['message'])
            if j['class'] not in TIR or not j.get('usable', True):
                c['js_pending'] = f"js: {j['class']}: {jm[:300]}" + ('' if j.get('usable', True) else ' (module unusable)')
                jpend.append(c['name'])
            elif (j['class'], jm) != (c['expect']['class'], c['expect']['message']):
                c['js_expect'] = {'class': j['class'], 'message': jm}
    with open(man_path, 'w') as f:
        json.dump(man, f, indent=1)
        f.write('\n')
    print(f'{len(names)} cases: {len(names) - len(pend)} recorded, {len(pend)} pending natively, '
          f'{len(jpend)} pending in JS, {sum("js_expect" in c for c in man["cases"])} with a JS-specific message')
    for c in man['cases']:
        if 'pending' in c or 'js_pending' in c:
            print(f'  {c["name"]}: {c.get("pending") or c.get("js_pending")}'[:240])
    if unnamed:
        print('\nmessages that name no file, tensor or node:')
        for name, m in unnamed:
            print(f'  {name}: {m[:200]}')


if __name__ == '__main__':
    sys.exit(main())
