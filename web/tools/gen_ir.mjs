#!/usr/bin/env node
// Synthetic pytorch-ir files for the viewer's scale tests (graph only, no weights):
//   node web/tools/gen_ir.mjs decoder [--layers 24] [--experts 10] [-o FILE]   Mixtral-style MoE decoder (24 layers: 5,000+ nodes)
//   node web/tools/gen_ir.mjs resnet50 [-o FILE]                              ResNet-50 training IR (conv/batch_norm/relu_/add_)
import { writeFileSync } from 'node:fs';

class IRBuilder {
  constructor(name) {
    this.ir = { model_name: name, pytorch_version: '2.14.0', graph_inputs: [], graph_outputs: [], weights: [], weight_name_mapping: {}, nodes: [] };
    this.count = new Map();
  }
  input(name, shape, dtype = 'float32') {
    this.ir.graph_inputs.push({ name, shape, dtype });
    return { name, shape, dtype, producer_node: name, producer_output_idx: 0 };
  }
  weight(key, shape, kind = 'p') {
    const ph = kind + '_' + key.replace(/\./g, '_');
    this.ir.weights.push({ name: key, shape, dtype: 'float32' });
    this.ir.weight_name_mapping[ph] = key;
    return { name: ph, shape, dtype: 'float32' };
  }
  // op('aten.relu.default', [x], outShape, attrs) -> tensor ref (or refs for nOut > 1)
  op(type, inputs, shape, attrs = {}, nOut = 1) {
    const base = type.replace(/^aten\./, '').replace(/\.[^.]*$/, '');
    const k = this.count.get(base) || 0;
    this.count.set(base, k + 1);
    const name = k ? `${base}_${k}` : base;
    const shapes = nOut === 0 ? [] : nOut === 1 ? [shape] : shape;
    const outputs = shapes.map((s, i) => ({ name: nOut === 1 ? name : `${name}_${i}`, shape: s, dtype: 'float32' }));
    this.ir.nodes.push({ name, op_type: type, inputs: inputs.map((t) => ({ ...t })), outputs, attrs });
    const refs = outputs.map((o, i) => ({ name: o.name, shape: o.shape, dtype: o.dtype, producer_node: name, producer_output_idx: i }));
    return nOut === 1 ? refs[0] : refs;
  }
  output(t) {
    this.ir.graph_outputs.push({ name: t.name, shape: t.shape, dtype: t.dtype, producer_node: t.producer_node, producer_output_idx: t.producer_output_idx });
  }
}

export function resnet50() {
  const b = new IRBuilder('ResNet50');
  let x = b.input('x', [1, 3, 224, 224]);
  let hw = 112;
  const conv = (t, key, cin, cout, k, s) => {
    const o = Math.floor((t.shape[2] + 2 * Math.floor(k / 2) - k) / s) + 1;
    return b.op('aten.conv2d.default', [t, b.weight(key + '.weight', [cout, cin, k, k])], [1, cout, o, o], { stride: [s, s], padding: [Math.floor(k / 2), Math.floor(k / 2)] });
  };
  const bn = (t, key) => {
    const c = t.shape[1];
    return b.op('aten.batch_norm.default', [t, b.weight(key + '.weight', [c]), b.weight(key + '.bias', [c]), b.weight(key + '.running_mean', [c], 'b'), b.weight(key + '.running_var', [c], 'b')], t.shape, { training: false, momentum: 0.1, eps: 1e-5, cudnn_enabled: true });
  };
  const relu = (t) => b.op('aten.relu_.default', [t], t.shape);
  x = relu(bn(conv(x, 'conv1', 3, 64, 7, 2), 'bn1'));
  x = b.op('aten.max_pool2d.default', [x], [1, 64, 56, 56], { kernel_size: [3, 3], stride: [2, 2], padding: [1, 1] });
  hw = 56;
  let cin = 64;
  [[3, 64], [4, 128], [6, 256], [3, 512]].forEach(([blocks, width], li) => {
    for (let bi = 0; bi < blocks; ++bi) {
      const p = `layer${li + 1}.${bi}`;
      const s = bi === 0 && li > 0 ? 2 : 1;
      let y = relu(bn(conv(x, p + '.conv1', cin, width, 1, 1), p + '.bn1'));
      y = relu(bn(conv(y, p + '.conv2', width, width, 3, s), p + '.bn2'));
      y = bn(conv(y, p + '.conv3', width, width * 4, 1, 1), p + '.bn3');
      let id = x;
      if (bi === 0) id = bn(conv(x, p + '.downsample.0', cin, width * 4, 1, s), p + '.downsample.1');
      x = relu(b.op('aten.add_.Tensor', [y, id], y.shape));
      cin = width * 4;
    }
  });
  x = b.op('aten.adaptive_avg_pool2d.default', [x], [1, 2048, 1, 1], { output_size: [1, 1] });
  x = b.op('aten.flatten.using_ints', [x], [1, 2048], { start_dim: 1 });
  x = b.op('aten.linear.default', [x, b.weight('fc.weight', [1000, 2048]), b.weight('fc.bias', [1000])], [1, 1000]);
  b.output(x);
  void hw;
  return b.ir;
}

export function decoder({ layers = 24, experts = 8, hidden = 256, heads = 8, kvHeads = 2, seq = 16, vocab = 1000 } = {}) {
  const b = new IRBuilder(`MoEDecoder${layers}`);
  const hd = hidden / heads;
  const ids = b.input('input_ids', [1, seq], 'int64');
  const pos = b.input('position_ids', [1, seq], 'int64');
  const H = [1, seq, hidden];
  let x = b.op('aten.embedding.default', [b.weight('model.embed_tokens.weight', [vocab, hidden]), ids], H);
  const invf = b.weight('model.rotary_emb.inv_freq', [hd / 2], 'b');
  let f = b.op('aten.unsqueeze.default', [invf], [1, hd / 2, 1], { dim: 0 });
  const pf = b.op('aten.unsqueeze.default', [pos], [1, 1, seq], { dim: 1 });
  f = b.op('aten.matmul.default', [f, b.op('aten._to_copy.default', [pf], [1, 1, seq], { dtype: 'torch.float32' })], [1, hd / 2, seq]);
  f = b.op('aten.transpose.int', [f], [1, seq, hd / 2], { dim0: 1, dim1: 2 });
  const emb = b.op('aten.cat.default', [f, f], [1, seq, hd], { dim: -1, _tensor_list_sizes: [2] });
  const cos = b.op('aten.cos.default', [emb], [1, seq, hd]);
  const sin = b.op('aten.sin.default', [emb], [1, seq, hd]);
  const rms = (t, key) => {
    b.op('aten._assert_tensor_metadata.default', [t], null, { dtype: 'torch.float32' }, 0);
    let y = b.op('aten.pow.Tensor_Scalar', [t], t.shape, { exponent: 2 });
    y = b.op('aten.mean.dim', [y], [1, seq, 1], { dim: [-1], keepdim: true });
    y = b.op('aten.add.Tensor', [y], [1, seq, 1], { other: 1e-6 });
    y = b.op('aten.rsqrt.default', [y], [1, seq, 1]);
    y = b.op('aten.mul.Tensor', [t, y], t.shape);
    return b.op('aten.mul.Tensor', [b.weight(key + '.weight', [hidden]), y], t.shape);
  };
  const linear = (t, key, cout) => b.op('aten.linear.default', [t, b.weight(key + '.weight', [cout, t.shape[2]])], [1, seq, cout]);
  const rope = (t, nh) => {
    const s = [1, nh, seq, hd];
    const c = b.op('aten.unsqueeze.default', [cos], [1, 1, seq, hd], { dim: 1 });
    const si = b.op('aten.unsqueeze.default', [sin], [1, 1, seq, hd], { dim: 1 });
    const a = b.op('aten.mul.Tensor', [t, c], s);
    const x1 = b.op('aten.slice.Tensor', [t], [1, nh, seq, hd / 2], { dim: 3, start: 0, end: hd / 2 });
    const x2 = b.op('aten.slice.Tensor', [t], [1, nh, seq, hd / 2], { dim: 3, start: hd / 2, end: 9223372036854775807 });
    const r = b.op('aten.cat.default', [b.op('aten.neg.default', [x2], x2.shape), x1], s, { dim: -1, _tensor_list_sizes: [2] });
    return b.op('aten.add.Tensor', [a, b.op('aten.mul.Tensor', [r, si], s)], s);
  };
  const repeatKv = (t) => {
    const r = heads / kvHeads;
    let y = b.op('aten.unsqueeze.default', [t], [1, kvHeads, 1, seq, hd], { dim: 2 });
    y = b.op('aten.expand.default', [y], [1, kvHeads, r, seq, hd], { size: [1, kvHeads, r, seq, hd] });
    return b.op('aten.reshape.default', [y], [1, heads, seq, hd], { shape: [1, heads, seq, hd] });
  };
  for (let l = 0; l < layers; ++l) {
    const p = `model.layers.${l}`;
    const res = x;
    const h = rms(x, p + '.input_layernorm');
    const proj = (name, nh) => {
      let t = linear(h, `${p}.self_attn.${name}`, nh * hd);
      t = b.op('aten.view.default', [t], [1, seq, nh, hd], { size: [1, seq, nh, hd] });
      return b.op('aten.transpose.int', [t], [1, nh, seq, hd], { dim0: 1, dim1: 2 });
    };
    const q = rope(proj('q_proj', heads), heads);
    const k = repeatKv(rope(proj('k_proj', kvHeads), kvHeads));
    const v = repeatKv(proj('v_proj', kvHeads));
    let a = b.op('aten.scaled_dot_product_attention.default', [q, k, v], [1, heads, seq, hd], { is_causal: true, scale: 1 / Math.sqrt(hd) });
    a = b.op('aten.transpose.int', [a], [1, seq, heads, hd], { dim0: 1, dim1: 2 });
    a = b.op('aten.reshape.default', [a], H, { shape: H });
    a = linear(a, `${p}.self_attn.o_proj`, hidden);
    x = b.op('aten.add.Tensor', [res, a], H);
    const res2 = x;
    const h2 = rms(x, p + '.post_attention_layernorm');
    // Mixture of experts: router, top-2, every expert runs on its routed tokens.
    const flat = b.op('aten.view.default', [h2], [seq, hidden], { size: [seq, hidden] });
    let logits = b.op('aten.linear.default', [flat, b.weight(p + '.block_sparse_moe.gate.weight', [experts, hidden])], [seq, experts]);
    logits = b.op('aten.softmax.int', [logits], [seq, experts], { dim: 1 });
    const [topv, topi] = b.op('aten.topk.default', [logits], [[seq, 2], [seq, 2]], { k: 2, dim: -1 }, 2);
    const norm = b.op('aten.div.Tensor', [topv, b.op('aten.sum.dim_IntList', [topv], [seq, 1], { dim: [-1], keepdim: true })], [seq, 2]);
    const mask = b.op('aten.permute.default', [b.op('aten.one_hot.default', [topi], [seq, 2, experts], { num_classes: experts })], [experts, 2, seq], { dims: [2, 1, 0] });
    let acc = b.op('aten.zeros.default', [], [seq, hidden], { size: [seq, hidden], dtype: 'torch.float32', device: 'meta' });
    for (let e = 0; e < experts; ++e) {
      const ep = `${p}.block_sparse_moe.experts.${e}`;
      const sel = b.op('aten.select.int', [mask], [2, seq], { dim: 0, index: e });
      const [, tok] = b.op('aten.where.default', [sel], [[seq], [seq]], {}, 2);
      const xs = b.op('aten.index.Tensor', [flat, tok], [seq, hidden]);
      const w1 = b.op('aten.linear.default', [xs, b.weight(ep + '.w1.weight', [2 * hidden, hidden])], [seq, 2 * hidden]);
      const w3 = b.op('aten.linear.default', [xs, b.weight(ep + '.w3.weight', [2 * hidden, hidden])], [seq, 2 * hidden]);
      const g = b.op('aten.mul.Tensor', [b.op('aten.silu.default', [w1], w1.shape), w3], w1.shape);
      let y = b.op('aten.linear.default', [g, b.weight(ep + '.w2.weight', [hidden, 2 * hidden])], [seq, hidden]);
      y = b.op('aten.mul.Tensor', [y, b.op('aten.unsqueeze.default', [b.op('aten.index.Tensor', [norm, tok], [seq]) ], [seq, 1], { dim: -1 })], [seq, hidden]);
      acc = b.op('aten.index_add.default', [acc, tok, y], [seq, hidden], { dim: 0 });
    }
    const moe = b.op('aten.view.default', [acc], H, { size: H });
    x = b.op('aten.add.Tensor', [res2, moe], H);
  }
  x = rms(x, 'model.norm');
  x = b.op('aten.linear.default', [x, b.weight('lm_head.weight', [vocab, hidden])], [1, seq, vocab]);
  b.output(x);
  return b.ir;
}

if (process.argv[1] && import.meta.url === new URL(process.argv[1], 'file://').href) {
  const args = process.argv.slice(2);
  const opt = (n, d) => (args.includes(n) ? args[args.indexOf(n) + 1] : d);
  const kind = args[0];
  const ir = kind === 'resnet50' ? resnet50() : kind === 'decoder' ? decoder({ layers: Number(opt('--layers', 24)), experts: Number(opt('--experts', 10)) }) : null;
  if (!ir) {
    console.error('usage: gen_ir.mjs decoder|resnet50 [--layers N] [--experts N] [-o FILE]');
    process.exit(2);
  }
  const text = JSON.stringify(ir);
  const out = opt('-o');
  if (out) writeFileSync(out, text);
  else process.stdout.write(text);
}
