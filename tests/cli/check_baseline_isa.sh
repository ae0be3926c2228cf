#!/usr/bin/env bash
# check_baseline_isa.sh BINARY: the functions of BINARY outside Highway's per-target
# namespaces (N_SSE4, N_AVX2, N_AVX3, ...: kernels/simd_dispatch.h) that use an
# instruction beyond the x86-64 baseline (SSE2): VEX/EVEX (v-prefixed, ymm/zmm/mask
# registers), SSE3/SSSE3/SSE4, BMI/LZCNT/POPCNT. (tzcnt is left out: g++ emits it as
# `rep bsf` for nonzero inputs, which older CPUs execute as bsf with the same result.) Such code would run before, or
# regardless of, Highway's CPU check and die with SIGILL on an older CPU. Exit 1 if any.
set -euo pipefail
bin=$1
objdump -d --no-show-raw-insn -C "$bin" | awk -F'\t' '
  /^[0-9a-f]+ <.*>:$/ { fn = $0; sub(/^[0-9a-f]+ </, "", fn); sub(/>:$/, "", fn)
                       per_target = fn ~ /N_(SSSE3|SSE4|AVX2|AVX3|AVX3_DL)::/; next }
  per_target || NF < 2 { next }
  {
    split($2, w, " "); op = w[1]
    if (op ~ /^(rep|repz|repnz|lock|notrack|bnd)$/) op = w[2]
    bad = (op ~ /^v/ && op !~ /^(verr|verw)$/) || $2 ~ /%[yz]mm|%k[0-7]/ ||
          op ~ /^(addsubp[sd]|haddp[sd]|hsubp[sd]|lddqu|movddup|movs[hl]dup|pshufb|palignr|phadd(w|d|sw)|phsub(w|d|sw)|pabs[bwd]|pmaddubsw|pmulhrsw|psign[bwd]|pblendw|pblendvb|blendp[sd]|blendvp[sd]|dpp[sd]|insertps|extractps|pextr[bdq]|pinsr[bdq]|pmax(sb|sd|ud|uw)|pmin(sb|sd|ud|uw)|pmov[sz]x[bwd][wdq]|pmuldq|pmulld|ptest|round[ps][sd]|packusdw|pcmpeqq|pcmpgtq|movntdqa|mpsadbw|phminposuw|crc32[bwlq]?|popcnt[wlq]?|lzcnt[wlq]?|andn[lq]?|bextr[lq]?|blsi[lq]?|blsmsk[lq]?|blsr[lq]?|bzhi[lq]?|mulx[lq]?|pdep[lq]?|pext[lq]?|rorx[lq]?|sarx[lq]?|shlx[lq]?|shrx[lq]?)$/
    if (bad && !(fn in seen)) { seen[fn] = 1; n++; if (n <= 20) print "beyond baseline: " substr(fn, 1, 160) ": " $2 }
  }
  END { if (n) { print n " function(s) outside the per-target kernels use non-baseline instructions"; exit 1 }
        print "baseline ISA: only the per-target kernels use instructions beyond x86-64" }'
