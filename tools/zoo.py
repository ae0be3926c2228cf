"""Model zoo for export_fixture.py: small versions of the model families people export.

Every family is shrunk (32x32 / 64x64 images, hidden 32-64, 2 layers) so that its committed
fixture stays small; the big torchvision ones (ZOO_IR_ONLY) are committed as model.json only
and get their weights/io from tools/make_fixtures.sh at test time.

Runs under torch 1.13 (decomposed flavor, host) and torch 2.x (training flavor, chroot).
"""

import collections
import math
import zlib

import torch
import torch.nn as nn
import torch.nn.functional as F

import zoo_gpt2
import zoo_vision


def seeded_generator(seed, key):
    """Per-key generator: the same (seed, key) gives the same values in every torch version."""
    g = torch.Generator()
    g.manual_seed((seed * 1000003 + zlib.crc32(key.encode("utf-8"))) % (2**63))
    return g


def _tv():
    import torchvision

    return torchvision


def _token_ids(vocab, shape):
    return lambda g: torch.randint(0, vocab, shape, generator=g, dtype=torch.int64)


# ---- BERT-style encoder ------------------------------------------------------------------


class BertSelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(0.1)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, h, ext_mask):
        q, k, v = self.split(self.query(h)), self.split(self.key(h)), self.split(self.value(h))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + ext_mask
        probs = self.dropout(F.softmax(scores, dim=-1))
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.shape[0], ctx.shape[1], -1)


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, inter):
        super().__init__()
        self.attention = BertSelfAttention(hidden, heads)
        self.attn_out = nn.Linear(hidden, hidden)
        self.attn_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, inter)
        self.output = nn.Linear(inter, hidden)
        self.out_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, h, ext_mask):
        a = self.attn_norm(self.dropout(self.attn_out(self.attention(h, ext_mask))) + h)
        i = F.gelu(self.intermediate(a))
        return self.out_norm(self.dropout(self.output(i)) + a)


class BertEncoder(nn.Module):
    """HF BertModel in miniature: word/position/token-type embeddings with non-persistent
    position_ids/token_type_ids buffers, additive mask (1 - mask) * finfo.min, exact GELU,
    post-LN layers, tanh pooler. Inputs: input_ids, attention_mask (int64 [1, 8])."""

    def __init__(self, vocab=64, hidden=32, heads=2, inter=64, layers=2, max_pos=16):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(max_pos, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.emb_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(max_pos).expand((1, -1)),
                             persistent=False)
        self.register_buffer("token_type_ids", torch.zeros(1, max_pos, dtype=torch.long),
                             persistent=False)
        self.layers = nn.ModuleList([BertLayer(hidden, heads, inter) for _ in range(layers)])
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, input_ids, attention_mask):
        s = input_ids.shape[1]
        pos = self.position_ids[:, :s]
        tt = self.token_type_ids[:, :s].expand(input_ids.shape[0], s)
        h = (self.word_embeddings(input_ids) + self.token_type_embeddings(tt)
             + self.position_embeddings(pos))
        h = self.emb_norm(h)
        ext = attention_mask[:, None, None, :].to(dtype=h.dtype)
        ext = (1.0 - ext) * torch.finfo(h.dtype).min
        for layer in self.layers:
            h = layer(h, ext)
        return h, torch.tanh(self.pooler(h[:, 0]))


def _bert_mask(g):
    m = torch.ones(1, 8, dtype=torch.int64)
    m[:, 6:] = 0  # two padding positions
    return m


# ---- GPT-2-style causal decoder ----------------------------------------------------------


class Conv1D(nn.Module):
    """HF GPT-2's Conv1D: a linear layer with weight [in, out], computed with addmm."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        shape = x.shape[:-1] + (self.weight.shape[1],)
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).view(shape)


def new_gelu(x):
    """HF gelu_new: tanh GELU written out (pow, tanh)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Block(nn.Module):
    def __init__(self, n_embd, n_head, explicit_gelu):
        super().__init__()
        self.n_head, self.n_embd = n_head, n_embd
        self.ln_1 = nn.LayerNorm(n_embd)
        self.c_attn = Conv1D(n_embd, 3 * n_embd)
        self.attn_proj = Conv1D(n_embd, n_embd)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.c_fc = Conv1D(n_embd, 4 * n_embd)
        self.mlp_proj = Conv1D(4 * n_embd, n_embd)
        self.explicit_gelu = explicit_gelu
        self.drop = nn.Dropout(0.1)

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.n_head, -1).permute(0, 2, 1, 3)

    def forward(self, h, causal):
        q, k, v = self.c_attn(self.ln_1(h)).split(self.n_embd, dim=2)
        q, k, v = self.heads(q), self.heads(k), self.heads(v)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        w = torch.where(causal, w, torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype))
        w = self.drop(F.softmax(w, dim=-1))
        a = torch.matmul(w, v).transpose(1, 2).contiguous()
        a = a.view(a.shape[0], a.shape[1], self.n_embd)
        h = h + self.drop(self.attn_proj(a))
        m = self.c_fc(self.ln_2(h))
        m = new_gelu(m) if self.explicit_gelu else F.gelu(m, approximate="tanh")
        return h + self.drop(self.mlp_proj(m))


class GPT2Decoder(nn.Module):
    """GPT-2 in miniature: int64 token ids, positions from arange, causal mask built in forward
    (tril of ones, where with finfo.min), Conv1D/addmm projections, tanh GELU (layer 0 written
    out like HF gelu_new, layer 1 as gelu(approximate='tanh')), lm_head tied to wte."""

    def __init__(self, vocab=64, n_embd=32, n_head=2, n_layer=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, n_embd)
        self.wpe = nn.Embedding(16, n_embd)
        self.drop = nn.Dropout(0.1)
        self.h = nn.ModuleList([GPT2Block(n_embd, n_head, i == 0) for i in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, input_ids):
        s = input_ids.shape[-1]
        pos = torch.arange(0, s, dtype=torch.long).unsqueeze(0)
        h = self.drop(self.wte(input_ids) + self.wpe(pos))
        causal = torch.tril(torch.ones((s, s), dtype=torch.bool)).view(1, 1, s, s)
        for block in self.h:
            h = block(h, causal)
        return self.lm_head(self.ln_f(h))


# ---- LLaMA/Qwen-style decoder ------------------------------------------------------------


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        var = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(var + self.eps)
        return self.weight * x.to(dtype)


def _rope_inv_freq(dim, theta):
    return 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


class RotaryEmbedding(nn.Module):
    """HF LlamaRotaryEmbedding: no_grad forward, autocast disabled around the math; torch.export
    turns this into wrap_with_set_grad_enabled (body not in the IR). With no_grad=False (rotary
    modules without the decorator) the top-level node is wrap_with_autocast instead."""

    def __init__(self, dim, theta=10000.0, no_grad=True):
        super().__init__()
        self.register_buffer("inv_freq", _rope_inv_freq(dim, theta), persistent=False)
        self.attention_scaling = 1.0
        self.no_grad = no_grad

    def forward(self, x, position_ids):
        if self.no_grad:
            with torch.no_grad():
                return self._cos_sin(x, position_ids)
        return self._cos_sin(x, position_ids)

    def _cos_sin(self, x, position_ids):
        inv = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        pos = position_ids[:, None, :].float()
        with torch.autocast(device_type="cpu", enabled=False):
            freqs = (inv.float() @ pos.float()).transpose(1, 2)
            emb = torch.cat((freqs, freqs), dim=-1)
            cos = emb.cos() * self.attention_scaling
            sin = emb.sin() * self.attention_scaling
        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


def _rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class LlamaAttention(nn.Module):
    def __init__(self, hidden, heads, kv_heads, max_len):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=True)  # Qwen2: q/k/v bias
        self.k_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=True)
        self.v_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=True)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, kv_heads, max_len, self.head_dim))
        self.register_buffer("v_cache", torch.zeros(1, kv_heads, max_len, self.head_dim))

    def repeat_kv(self, x):
        b, n, s, d = x.shape
        rep = self.heads // self.kv_heads
        return x[:, :, None, :, :].expand(b, n, rep, s, d).reshape(b, n * rep, s, d)

    def forward(self, h, cos, sin, cache_position, allowed):
        b, s, _ = h.shape
        q = self.q_proj(h).view(b, s, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(h).view(b, s, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(h).view(b, s, -1, self.head_dim).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        self.k_cache.index_copy_(2, cache_position, k)
        self.v_cache.index_copy_(2, cache_position, v)
        kk, vv = self.repeat_kv(self.k_cache), self.repeat_kv(self.v_cache)
        if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2.0, as HF's sdpa path
            o = F.scaled_dot_product_attention(q, kk, vv, attn_mask=allowed)
        else:  # HF's eager path
            w = torch.matmul(q, kk.transpose(2, 3)) / math.sqrt(self.head_dim)
            w = w.masked_fill(~allowed, torch.finfo(w.dtype).min)
            w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
            o = torch.matmul(w, vv)
        o = o.transpose(1, 2).contiguous().reshape(b, s, -1)
        return self.o_proj(o)


class LlamaMLP(nn.Module):
    def __init__(self, hidden, inter):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, inter, bias=False)
        self.up_proj = nn.Linear(hidden, inter, bias=False)
        self.down_proj = nn.Linear(inter, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, hidden, heads, kv_heads, inter, max_len):
        super().__init__()
        self.input_layernorm = RMSNorm(hidden)
        self.self_attn = LlamaAttention(hidden, heads, kv_heads, max_len)
        self.post_attention_layernorm = RMSNorm(hidden)
        self.mlp = LlamaMLP(hidden, inter)

    def forward(self, h, cos, sin, cache_position, allowed):
        h = h + self.self_attn(self.input_layernorm(h), cos, sin, cache_position, allowed)
        return h + self.mlp(self.post_attention_layernorm(h))


class LlamaDecoder(nn.Module):
    """LLaMA/Qwen2 in miniature: RMSNorm (pow/mean/rsqrt/mul), RoPE from a no_grad/autocast-off
    rotary module (inv_freq non-persistent buffer), GQA (4 query / 2 kv heads), SiLU-gated MLP,
    static KV cache per layer updated with index_copy_ into registered buffers. Inputs:
    input_ids int64 [1, 4], cache_position int64 [4]; output logits [1, 4, 64].
    The qwen2 variant: 1 kv head, lm_head tied to embed_tokens, rotary without no_grad."""

    MAX_LEN = 16

    def __init__(self, vocab=64, hidden=32, heads=4, kv_heads=2, inter=64, layers=2,
                 tied=False, rope_no_grad=True):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(
            [LlamaLayer(hidden, heads, kv_heads, inter, self.MAX_LEN) for _ in range(layers)])
        self.norm = RMSNorm(hidden)
        self.rotary_emb = RotaryEmbedding(hidden // heads, no_grad=rope_no_grad)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        if tied:
            self.lm_head.weight = self.embed_tokens.weight

    def forward(self, input_ids, cache_position):
        h = self.embed_tokens(input_ids)
        position_ids = cache_position.unsqueeze(0)
        cos, sin = self.rotary_emb(h, position_ids)
        key_pos = torch.arange(self.MAX_LEN)
        allowed = key_pos[None, :] <= cache_position[:, None]  # [s, max_len] bool
        for layer in self.layers:
            h = layer(h, cos, sin, cache_position, allowed)
        return self.lm_head(self.norm(h))

    def fixture_post_init(self):
        for layer in self.layers:
            layer.self_attn.k_cache.zero_()
            layer.self_attn.v_cache.zero_()
        self.rotary_emb.inv_freq.copy_(_rope_inv_freq(self.rotary_emb.inv_freq.numel() * 2,
                                                      10000.0))

    def fixture_extra_steps(self):
        """The next 4 tokens (positions 4..7) on the cache filled by step 1."""
        g = seeded_generator(0, "input.input_ids.step2")
        return [collections.OrderedDict(
            [("input_ids", torch.randint(0, 64, (1, 4), generator=g, dtype=torch.int64)),
             ("cache_position", torch.arange(4, 8))])]


# ---- UNet ---------------------------------------------------------------------------------


def _conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    """Two-level UNet: max-pool down, ConvTranspose2d up (level 2), bilinear upsample +
    1x1 conv up (level 1, align_corners=False), skip connections by cat. 1x3x32x32 -> 1x2x32x32."""

    def __init__(self):
        super().__init__()
        self.enc1, self.enc2, self.mid = _conv_block(3, 8), _conv_block(8, 16), _conv_block(16, 32)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(32, 16, kernel_size=2, stride=2)
        self.dec2 = _conv_block(32, 16)
        self.up1 = nn.Conv2d(16, 8, kernel_size=1)
        self.dec1 = _conv_block(16, 8)
        self.head = nn.Conv2d(8, 2, kernel_size=1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        m = self.mid(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        u1 = self.up1(F.interpolate(d2, scale_factor=2.0, mode="bilinear", align_corners=False))
        d1 = self.dec1(torch.cat([u1, e1], dim=1))
        return self.head(d1)


# ---- RNNs ---------------------------------------------------------------------------------


class LSTMModel(nn.Module):
    """2-layer bidirectional batch_first LSTM + linear head on the last step; returns the head
    output and (h_n, c_n). x: 1x6x8."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, -1]), h, c


class GRUModel(nn.Module):
    """2-layer unidirectional batch_first GRU without biases + linear head per step; returns
    the head output and h_n. x: 1x6x8."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 16, num_layers=2, batch_first=True, bias=False)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        out, h = self.gru(x)
        return self.head(out), h


# ---- lifted tensor constants --------------------------------------------------------------


class LiftedConstants(nn.Module):
    """Plain tensor attributes (not parameters/buffers) -> lifted constants: a float32 bias map,
    an int64 permutation (index_select), a bool channel mask (masked_fill), a float64 scale
    (cast in forward); plus torch.tensor(...) built in forward (lift_fresh_copy)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.pos_bias = torch.randn(1, 4, 8, 8, generator=seeded_generator(0, "pos_bias"))
        self.perm = torch.tensor([3, 1, 0, 2])
        self.keep = torch.tensor([True, False, True, True])
        self.scale64 = torch.tensor([0.25, 0.5, 0.75, 1.0], dtype=torch.float64)

    def forward(self, x):
        y = self.conv(x) + self.pos_bias
        y = y.index_select(1, self.perm)
        y = y.masked_fill(~self.keep.view(1, 4, 1, 1), 0.0)
        w = torch.tensor([0.5, 1.5, 2.0, -1.0])
        y = y * w.view(1, 4, 1, 1) * self.scale64.to(torch.float32).view(1, 4, 1, 1)
        return y.sum(dim=(2, 3))


# ---- registry -----------------------------------------------------------------------------

import zoo_diffusion as _zd  # noqa: E402  (they use the helpers above)
import zoo_transformers as _zt  # noqa: E402

# name -> (constructor, example inputs): a shape gives a randn float32 input, a callable(g)
# any other input.
ZOO = collections.OrderedDict([
    ("resnet50", (lambda: _tv().models.resnet50(), [(1, 3, 64, 64)])),
    ("mobilenet_v3_small", (lambda: _tv().models.mobilenet_v3_small(), [(1, 3, 64, 64)])),
    ("efficientnet_b0", (lambda: _tv().models.efficientnet_b0(), [(1, 3, 64, 64)])),
    ("bert_encoder", (lambda: BertEncoder(), [_token_ids(64, (1, 8)), _bert_mask])),
    ("gpt2_decoder", (lambda: GPT2Decoder(), [_token_ids(64, (1, 8))])),
    ("llama_decoder", (lambda: LlamaDecoder(),
                       [_token_ids(64, (1, 4)), lambda g: torch.arange(0, 4)])),
    ("qwen2_decoder", (lambda: LlamaDecoder(kv_heads=1, tied=True, rope_no_grad=False),
                       [_token_ids(64, (1, 4)), lambda g: torch.arange(0, 4)])),
    ("unet", (lambda: UNet(), [(1, 3, 32, 32)])),
    ("lstm", (lambda: LSTMModel(), [(1, 6, 8)])),
    ("gru", (lambda: GRUModel(), [(1, 6, 8)])),
    ("lifted_constants", (lambda: LiftedConstants(), [(1, 3, 8, 8)])),
    ("clip", (lambda: _zt.CLIPModel(), [(2, 3, 32, 32), _zt.clip_input_ids])),
    ("t5", (lambda: _zt.T5Model(), [_token_ids(64, (1, 8)), _token_ids(64, (1, 6))])),
    ("flan_t5", (lambda: _zt.T5Model(gated=True, tied=False),
                 [_token_ids(64, (1, 8)), _token_ids(64, (1, 6))])),
    ("mixtral_moe", (lambda: _zt.MixtralDecoder(), [_token_ids(64, (1, 6))])),
    ("sd_unet_block", (lambda: _zd.SDUNetBlock(),
                       [(1, 4, 16, 16), lambda g: torch.tensor([981]), (1, 8, 24)])),
    ("resnet50_raw", (lambda: _tv().models.resnet50(), [zoo_vision.raw_pixels((1, 3, 64, 64))])),
    ("gpt2_wide", (lambda: zoo_gpt2.gpt2_wide(), [_token_ids(50257, (1, 8))])),
    ("deeplabv3", (lambda: zoo_vision.deeplabv3(), [(1, 3, 64, 64)])),
    ("convnext_tiny", (lambda: _tv().models.convnext_tiny(), [(1, 3, 64, 64)])),
    ("convnext_half", (lambda: zoo_vision.convnext_small_half(),
                       [zoo_vision.half_randn((1, 3, 32, 32))])),
    ("swin", (lambda: zoo_vision.swin_small(), [(1, 3, 32, 32)])),
    ("swin_half", (lambda: zoo_vision.swin_small(half=True), [zoo_vision.half_randn((1, 3, 32, 32))])),
    ("whisper_encoder", __import__("zoo_audio").ZOO_AUDIO["whisper_encoder"]),
    ("elem_probe", (lambda: __import__("zoo_elem").ElemProbe(), [(1, 4, 8)])),
    ("shape_probe", (lambda: __import__("zoo_shape").ShapeProbe(), [(2, 4, 6, 6)])),
] + __import__("zoo_spatial").MODELS + __import__("zoo_datadep").PROBES)

# Families already covered by export_fixture.py's own models, exported by --zoo too.
ZOO_REUSED = ["resnet18", "mobilenet_v2", "vit_tiny"]

# Too big to commit weights: model.json only; make_fixtures.sh generates weights + io.
ZOO_IR_ONLY = {"resnet18", "mobilenet_v2", "resnet50", "mobilenet_v3_small", "efficientnet_b0"}
ZOO_IR_ONLY |= {"resnet50_raw", "gpt2_wide", "deeplabv3", "convnext_tiny"}  # issue 11
