"""More HF-transformers families for the zoo (registered in tools/zoo.py's ZOO): CLIP, T5 and a
Mixtral-style MoE decoder, written as transformers writes them (same op sequence, shrunk sizes)
so the IR holds the ops these families really produce.

Runs under torch 1.13 (decomposed flavor, host) and torch 2.x (training flavor, chroot).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

import zoo

# ---- CLIP (HF CLIPModel) -----------------------------------------------------------------


def quick_gelu(x):
    """HF QuickGELUActivation (CLIP's hidden_act)."""
    return x * torch.sigmoid(1.702 * x)


class CLIPAttention(nn.Module):
    """HF CLIPAttention (eager): q scaled after the projection, heads folded into the batch for
    bmm, additive causal mask on the text side."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.scale = self.head_dim ** -0.5
        self.k_proj = nn.Linear(hidden, hidden)
        self.v_proj = nn.Linear(hidden, hidden)
        self.q_proj = nn.Linear(hidden, hidden)
        self.out_proj = nn.Linear(hidden, hidden)

    def _shape(self, t, s, b):
        return t.view(b, s, self.heads, self.head_dim).transpose(1, 2).contiguous()

    def forward(self, h, causal_mask=None):
        b, s, d = h.size()
        q = self.q_proj(h) * self.scale
        k = self._shape(self.k_proj(h), -1, b)
        v = self._shape(self.v_proj(h), -1, b)
        shape = (b * self.heads, -1, self.head_dim)
        q = self._shape(q, s, b).view(*shape)
        k, v = k.view(*shape), v.view(*shape)
        w = torch.bmm(q, k.transpose(1, 2))
        if causal_mask is not None:
            w = w.view(b, self.heads, s, s) + causal_mask
            w = w.view(b * self.heads, s, s)
        w = F.softmax(w, dim=-1)
        o = torch.bmm(w, v).view(b, self.heads, s, self.head_dim).transpose(1, 2)
        return self.out_proj(o.reshape(b, s, d))


class CLIPEncoderLayer(nn.Module):
    def __init__(self, hidden, heads, inter):
        super().__init__()
        self.self_attn = CLIPAttention(hidden, heads)
        self.layer_norm1 = nn.LayerNorm(hidden, eps=1e-5)
        self.fc1 = nn.Linear(hidden, inter)
        self.fc2 = nn.Linear(inter, hidden)
        self.layer_norm2 = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, h, causal_mask=None):
        h = h + self.self_attn(self.layer_norm1(h), causal_mask)
        return h + self.fc2(quick_gelu(self.fc1(self.layer_norm2(h))))


class CLIPVisionTransformer(nn.Module):
    """Patch conv (no bias), class embedding cat'ed in front, learned positions from a
    non-persistent position_ids buffer, pre_layrnorm, pre-LN layers, post_layernorm on the
    class token."""

    def __init__(self, hidden, heads, inter, layers, image=32, patch=8):
        super().__init__()
        self.class_embedding = nn.Parameter(torch.randn(hidden))
        self.patch_embedding = nn.Conv2d(3, hidden, kernel_size=patch, stride=patch, bias=False)
        n_pos = (image // patch) ** 2 + 1
        self.position_embedding = nn.Embedding(n_pos, hidden)
        self.register_buffer("position_ids", torch.arange(n_pos).expand((1, -1)), persistent=False)
        self.pre_layrnorm = nn.LayerNorm(hidden)
        self.layers = nn.ModuleList([CLIPEncoderLayer(hidden, heads, inter) for _ in range(layers)])
        self.post_layernorm = nn.LayerNorm(hidden)

    def forward(self, pixel_values):
        b = pixel_values.shape[0]
        patch = self.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        cls = self.class_embedding.expand(b, 1, -1)
        h = torch.cat([cls, patch], dim=1) + self.position_embedding(self.position_ids)
        h = self.pre_layrnorm(h)
        for layer in self.layers:
            h = layer(h)
        return self.post_layernorm(h[:, 0, :])


def _clip_causal_mask(b, s, dtype):
    """HF _make_causal_mask: full(finfo.min), masked_fill_ with an arange comparison."""
    mask = torch.full((s, s), torch.finfo(dtype).min)
    cond = torch.arange(mask.size(-1))
    mask.masked_fill_(cond < (cond + 1).view(mask.size(-1), 1), 0)
    return mask.to(dtype)[None, None, :, :].expand(b, 1, s, s)


class CLIPTextTransformer(nn.Module):
    """Token + position embeddings, causal mask, pre-LN layers, final_layer_norm, pooled output
    at the EOS token found with argmax over the (int32) ids, as HF CLIPTextTransformer."""

    def __init__(self, vocab, hidden, heads, inter, layers, max_pos=16):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, hidden)
        self.position_embedding = nn.Embedding(max_pos, hidden)
        self.register_buffer("position_ids", torch.arange(max_pos).expand((1, -1)), persistent=False)
        self.layers = nn.ModuleList([CLIPEncoderLayer(hidden, heads, inter) for _ in range(layers)])
        self.final_layer_norm = nn.LayerNorm(hidden)

    def forward(self, input_ids):
        b, s = input_ids.shape
        h = self.token_embedding(input_ids) + self.position_embedding(self.position_ids[:, :s])
        mask = _clip_causal_mask(b, s, h.dtype)
        for layer in self.layers:
            h = layer(h, mask)
        h = self.final_layer_norm(h)
        eos = input_ids.to(dtype=torch.int).argmax(dim=-1)
        return h[torch.arange(h.shape[0]), eos]


class CLIPModel(nn.Module):
    """HF CLIPModel in miniature: ViT-B/32-like vision tower on 32x32 images (patch 8, class
    token, quick_gelu), causal text tower with EOS pooling, projections without bias, L2-normed
    embeddings, logit_scale.exp(). Inputs pixel_values [2,3,32,32], input_ids int64 [2,8] (EOS =
    vocab-1, the largest id, at different positions, zeros after it). Outputs logits_per_image,
    logits_per_text, text_embeds, image_embeds."""

    def __init__(self, vocab=64, hidden=32, heads=2, inter=64, layers=2, proj=16):
        super().__init__()
        self.text_model = CLIPTextTransformer(vocab, hidden, heads, inter, layers)
        self.vision_model = CLIPVisionTransformer(hidden, heads, inter, layers)
        self.visual_projection = nn.Linear(hidden, proj, bias=False)
        self.text_projection = nn.Linear(hidden, proj, bias=False)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, pixel_values, input_ids):
        image_embeds = self.visual_projection(self.vision_model(pixel_values))
        text_embeds = self.text_projection(self.text_model(input_ids))
        image_embeds = image_embeds / image_embeds.norm(p=2, dim=-1, keepdim=True)
        text_embeds = text_embeds / text_embeds.norm(p=2, dim=-1, keepdim=True)
        logit_scale = self.logit_scale.exp()
        logits_per_text = torch.matmul(text_embeds, image_embeds.t()) * logit_scale
        logits_per_image = logits_per_text.t()
        return logits_per_image, logits_per_text, text_embeds, image_embeds

    def fixture_post_init(self):
        self.logit_scale.fill_(math.log(1 / 0.07))  # CLIP's initial temperature


def clip_input_ids(g):
    ids = torch.randint(1, 63, (2, 8), generator=g, dtype=torch.int64)
    ids[0, 5], ids[0, 6:] = 63, 0  # EOS mid-sequence, padding after it
    ids[1, 7] = 63
    return ids


# ---- T5 (HF T5ForConditionalGeneration) --------------------------------------------------


class T5LayerNorm(nn.Module):
    """RMS norm without mean subtraction or bias, variance in float32."""

    def __init__(self, hidden, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.variance_epsilon = eps

    def forward(self, h):
        variance = h.to(torch.float32).pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * h


def t5_relative_position_bucket(relative_position, bidirectional, num_buckets, max_distance):
    """HF T5Attention._relative_position_bucket (log-spaced buckets past max_exact)."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    ).to(torch.long)
    if_large = torch.min(if_large, torch.full_like(if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, if_large)
    return relative_buckets


class T5Attention(nn.Module):
    def __init__(self, d_model, d_kv, heads, is_decoder, has_bias, num_buckets, max_distance):
        super().__init__()
        self.is_decoder, self.heads, self.d_kv = is_decoder, heads, d_kv
        self.num_buckets, self.max_distance = num_buckets, max_distance
        inner = heads * d_kv
        self.q = nn.Linear(d_model, inner, bias=False)
        self.k = nn.Linear(d_model, inner, bias=False)
        self.v = nn.Linear(d_model, inner, bias=False)
        self.o = nn.Linear(inner, d_model, bias=False)
        if has_bias:
            self.relative_attention_bias = nn.Embedding(num_buckets, heads)
        self.has_bias = has_bias

    def compute_bias(self, q_len, k_len):
        context = torch.arange(q_len, dtype=torch.long)[:, None]
        memory = torch.arange(k_len, dtype=torch.long)[None, :]
        bucket = t5_relative_position_bucket(memory - context, not self.is_decoder,
                                             self.num_buckets, self.max_distance)
        values = self.relative_attention_bias(bucket)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, h, mask, kv=None, position_bias=None):
        b, s = h.shape[:2]
        src = h if kv is None else kv
        k_len = src.shape[1]

        def shape(x):
            return x.view(b, -1, self.heads, self.d_kv).transpose(1, 2)

        q, k, v = shape(self.q(h)), shape(self.k(src)), shape(self.v(src))
        scores = torch.matmul(q, k.transpose(3, 2))  # T5: no 1/sqrt(d) scaling
        if position_bias is None:
            if self.has_bias:
                position_bias = self.compute_bias(s, k_len)
            else:
                position_bias = torch.zeros((1, self.heads, s, k_len), dtype=scores.dtype)
            position_bias = position_bias + mask
        scores = scores + position_bias
        w = F.softmax(scores.float(), dim=-1).type_as(scores)
        o = torch.matmul(w, v).transpose(1, 2).contiguous().view(b, -1, self.heads * self.d_kv)
        return self.o(o), position_bias


class T5DenseGatedActDense(nn.Module):
    """T5 v1.1 / Flan gated-GELU FF (gelu_new = tanh GELU)."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.wi_0 = nn.Linear(d_model, d_ff, bias=False)
        self.wi_1 = nn.Linear(d_model, d_ff, bias=False)
        self.wo = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, h):
        return self.wo(zoo.new_gelu(self.wi_0(h)) * self.wi_1(h))


class T5DenseActDense(nn.Module):
    """Original T5 FF: ReLU."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.wi = nn.Linear(d_model, d_ff, bias=False)
        self.wo = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, h):
        return self.wo(F.relu(self.wi(h)))


class T5Block(nn.Module):
    def __init__(self, cfg, is_decoder, has_bias):
        super().__init__()
        d = cfg["d_model"]
        att = (cfg["d_kv"], cfg["heads"])
        rel = (cfg["num_buckets"], cfg["max_distance"])
        self.self_norm = T5LayerNorm(d)
        self.self_attn = T5Attention(d, *att, is_decoder, has_bias, *rel)
        if is_decoder:
            self.cross_norm = T5LayerNorm(d)
            self.cross_attn = T5Attention(d, *att, True, False, *rel)
        self.ff_norm = T5LayerNorm(d)
        ff = T5DenseGatedActDense if cfg["gated"] else T5DenseActDense
        self.ff = ff(d, cfg["d_ff"])
        self.is_decoder = is_decoder

    def forward(self, h, mask, bias, enc=None, enc_mask=None, enc_bias=None):
        a, bias = self.self_attn(self.self_norm(h), mask, position_bias=bias)
        h = h + a
        if self.is_decoder:
            a, enc_bias = self.cross_attn(self.cross_norm(h), enc_mask, kv=enc, position_bias=enc_bias)
            h = h + a
        return h + self.ff(self.ff_norm(h)), bias, enc_bias


class T5Stack(nn.Module):
    def __init__(self, cfg, is_decoder):
        super().__init__()
        self.block = nn.ModuleList([T5Block(cfg, is_decoder, i == 0) for i in range(cfg["layers"])])
        self.final_layer_norm = T5LayerNorm(cfg["d_model"])
        self.is_decoder = is_decoder

    def forward(self, h, enc=None):
        b, s = h.shape[:2]
        attention_mask = torch.ones(b, s)
        if self.is_decoder:  # HF get_extended_attention_mask, decoder branch
            seq_ids = torch.arange(s)
            causal = seq_ids[None, None, :].repeat(b, s, 1) <= seq_ids[None, :, None]
            causal = causal.to(attention_mask.dtype)
            ext = causal[:, None, :, :] * attention_mask[:, None, None, :]
        else:
            ext = attention_mask[:, None, None, :]
        ext = (1.0 - ext.to(h.dtype)) * torch.finfo(h.dtype).min
        enc_ext = None
        if enc is not None:
            enc_mask = torch.ones(b, enc.shape[1])
            enc_ext = (1.0 - enc_mask[:, None, None, :].to(h.dtype)) * torch.finfo(h.dtype).min
        bias = enc_bias = None
        for block in self.block:
            h, bias, enc_bias = block(h, ext, bias, enc, enc_ext, enc_bias)
        return self.final_layer_norm(h)


class T5Model(nn.Module):
    """HF T5ForConditionalGeneration in miniature: shared embedding, 2+2 layers, d_model 32,
    4 heads of 8, relative position bias in the first layer of each stack (8 buckets, max
    distance 20, so both the exact and the log-spaced buckets occur), T5LayerNorm, unscaled
    attention, ReLU FF, lm_head tied to the shared embedding with the d_model**-0.5 rescale
    (original T5). gated=True, tied=False: T5 v1.1 / Flan-T5 (gated-GELU FF, own lm_head, no
    rescale). Inputs input_ids int64 [1,8], decoder_input_ids int64 [1,6]; outputs logits
    [1,6,64], encoder last hidden state [1,8,32]."""

    def __init__(self, vocab=64, d_model=32, d_kv=8, heads=4, d_ff=64, layers=2, gated=False,
                 tied=True):
        super().__init__()
        cfg = dict(d_model=d_model, d_kv=d_kv, heads=heads, d_ff=d_ff, layers=layers,
                   num_buckets=8, max_distance=20, gated=gated)
        self.model_dim = d_model
        self.shared = nn.Embedding(vocab, d_model)
        self.encoder = T5Stack(cfg, False)
        self.decoder = T5Stack(cfg, True)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)
        self.tie_word_embeddings = tied
        if tied:
            self.lm_head.weight = self.shared.weight

    def forward(self, input_ids, decoder_input_ids):
        enc = self.encoder(self.shared(input_ids))
        dec = self.decoder(self.shared(decoder_input_ids), enc)
        if self.tie_word_embeddings:
            dec = dec * (self.model_dim ** -0.5)
        return self.lm_head(dec), enc


# ---- Mixtral-style MoE decoder -----------------------------------------------------------


class MixtralExpert(nn.Module):
    """HF MixtralBlockSparseTop2MLP: w2(silu(w1 x) * w3 x)."""

    def __init__(self, hidden, ffn):
        super().__init__()
        self.w1 = nn.Linear(hidden, ffn, bias=False)
        self.w2 = nn.Linear(ffn, hidden, bias=False)
        self.w3 = nn.Linear(hidden, ffn, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class MixtralSparseMoeBlock(nn.Module):
    """Router linear -> softmax (float32) -> topk -> renormalise -> experts.

    dense=True (what the committed fixtures use): every expert runs on every token and the
    top-k weights are scattered into a dense [tokens, experts] matrix (one_hot/scatter), so
    all shapes are static. dense=False: HF's loop (one_hot expert mask, torch.where on it,
    index the routed tokens, index_add_ back), whose shapes depend on the routing."""

    def __init__(self, hidden, ffn, n_experts, top_k, dense):
        super().__init__()
        self.num_experts, self.top_k, self.dense = n_experts, top_k, dense
        self.gate = nn.Linear(hidden, n_experts, bias=False)
        self.experts = nn.ModuleList([MixtralExpert(hidden, ffn) for _ in range(n_experts)])

    def forward(self, h):
        b, s, d = h.shape
        h = h.view(-1, d)
        router_logits = self.gate(h)
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.to(h.dtype)
        if self.dense:
            dense_w = torch.zeros_like(router_logits).scatter(1, selected, routing_weights)
            outs = torch.stack([e(h) for e in self.experts], dim=1)  # [T, E, d]
            final = (outs * dense_w[:, :, None]).sum(dim=1)
        else:
            final = torch.zeros((b * s, d), dtype=h.dtype)
            expert_mask = F.one_hot(selected, num_classes=self.num_experts).permute(2, 1, 0)
            for i, expert in enumerate(self.experts):
                idx, top_x = torch.where(expert_mask[i])
                cur = h[None, top_x].reshape(-1, d)
                cur = expert(cur) * routing_weights[top_x, idx, None]
                final.index_add_(0, top_x, cur.to(h.dtype))
        return final.reshape(b, s, d), router_logits


class MixtralAttention(nn.Module):
    """Llama-style attention (GQA 4/2 heads, RoPE, causal), no KV cache."""

    def __init__(self, hidden, heads, kv_heads):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)

    def forward(self, h, cos, sin, mask):
        b, s, _ = h.shape
        q = self.q_proj(h).view(b, s, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(h).view(b, s, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(h).view(b, s, -1, self.head_dim).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = q * cos + zoo._rotate_half(q) * sin
        k = k * cos + zoo._rotate_half(k) * sin
        rep = self.heads // self.kv_heads
        k = k[:, :, None].expand(b, self.kv_heads, rep, s, self.head_dim).reshape(b, -1, s, self.head_dim)
        v = v[:, :, None].expand(b, self.kv_heads, rep, s, self.head_dim).reshape(b, -1, s, self.head_dim)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim) + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(w, v).transpose(1, 2).contiguous().reshape(b, s, -1)
        return self.o_proj(o)


class MixtralDecoder(nn.Module):
    """Mixtral in miniature: embeddings, 1 decoder layer (RMSNorm, RoPE attention, sparse MoE
    block with 4 experts, top-2), final RMSNorm, lm_head. Input input_ids int64 [1,6]; outputs
    logits [1,6,64] and the router logits [6,4]."""

    def __init__(self, vocab=64, hidden=32, heads=4, kv_heads=2, ffn=48, n_experts=4, top_k=2,
                 dense=True):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.input_layernorm = zoo.RMSNorm(hidden, eps=1e-5)
        self.self_attn = MixtralAttention(hidden, heads, kv_heads)
        self.post_attention_layernorm = zoo.RMSNorm(hidden, eps=1e-5)
        self.block_sparse_moe = MixtralSparseMoeBlock(hidden, ffn, n_experts, top_k, dense)
        self.norm = zoo.RMSNorm(hidden, eps=1e-5)
        self.rotary_emb = zoo.RotaryEmbedding(hidden // heads, theta=1e6, no_grad=False)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, input_ids):
        s = input_ids.shape[1]
        h = self.embed_tokens(input_ids)
        position_ids = torch.arange(s).unsqueeze(0)
        cos, sin = self.rotary_emb(h, position_ids)
        mask = torch.full((s, s), torch.finfo(h.dtype).min).triu(1)[None, None]
        r = h
        h = r + self.self_attn(self.input_layernorm(h), cos, sin, mask)
        r = h
        moe, router_logits = self.block_sparse_moe(self.post_attention_layernorm(h))
        h = r + moe
        return self.lm_head(self.norm(h)), router_logits

    def fixture_post_init(self):
        inv = self.rotary_emb.inv_freq
        inv.copy_(zoo._rope_inv_freq(inv.numel() * 2, 1e6))
