"""A Stable-Diffusion UNet in miniature for the zoo (registered in tools/zoo.py's ZOO), written
as diffusers writes its blocks: get_timestep_embedding + TimestepEmbedding, ResnetBlock2D,
Transformer2DModel (BasicTransformerBlock with self/cross attention and GEGLU), Downsample2D,
Upsample2D. Attention as diffusers' AttnProcessor2_0 (SDPA) on torch 2.x and AttnProcessor
(baddbmm on an empty tensor with beta=0, softmax, bmm) on torch 1.13.

Runs under torch 1.13 (decomposed flavor, host) and torch 2.x (training flavor, chroot).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_timestep_embedding(timesteps, embedding_dim, flip_sin_to_cos=True,
                           downscale_freq_shift=0.0, scale=1, max_period=10000):
    """diffusers.models.embeddings.get_timestep_embedding."""
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = torch.exp(exponent)
    emb = timesteps[:, None].float() * emb[None, :]
    emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
    return emb


class TimestepEmbedding(nn.Module):
    def __init__(self, in_channels, time_embed_dim):
        super().__init__()
        self.linear_1 = nn.Linear(in_channels, time_embed_dim)
        self.linear_2 = nn.Linear(time_embed_dim, time_embed_dim)

    def forward(self, sample):
        return self.linear_2(F.silu(self.linear_1(sample)))


class ResnetBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels, temb_channels, groups, eps=1e-5):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, in_channels, eps=eps, affine=True)
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=1, padding=1)
        self.time_emb_proj = nn.Linear(temb_channels, out_channels)
        self.norm2 = nn.GroupNorm(groups, out_channels, eps=eps, affine=True)
        self.dropout = nn.Dropout(0.0)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, stride=1, padding=1)
        self.conv_shortcut = (nn.Conv2d(in_channels, out_channels, 1) if in_channels != out_channels
                              else None)
        self.output_scale_factor = 1.0

    def forward(self, input_tensor, temb):
        h = F.silu(self.norm1(input_tensor))
        h = self.conv1(h)
        temb = self.time_emb_proj(F.silu(temb))[:, :, None, None]
        h = h + temb
        h = F.silu(self.norm2(h))
        h = self.conv2(self.dropout(h))
        if self.conv_shortcut is not None:
            input_tensor = self.conv_shortcut(input_tensor)
        return (input_tensor + h) / self.output_scale_factor


class Attention(nn.Module):
    """diffusers Attention (no bias on q/k/v, out proj with bias + dropout)."""

    def __init__(self, query_dim, heads, dim_head, cross_attention_dim=None):
        super().__init__()
        inner = heads * dim_head
        kv_dim = cross_attention_dim if cross_attention_dim is not None else query_dim
        self.heads, self.scale = heads, dim_head ** -0.5
        self.to_q = nn.Linear(query_dim, inner, bias=False)
        self.to_k = nn.Linear(kv_dim, inner, bias=False)
        self.to_v = nn.Linear(kv_dim, inner, bias=False)
        self.to_out = nn.ModuleList([nn.Linear(inner, query_dim), nn.Dropout(0.0)])

    def head_to_batch_dim(self, t):
        b, s, d = t.shape
        t = t.reshape(b, s, self.heads, d // self.heads).permute(0, 2, 1, 3)
        return t.reshape(b * self.heads, s, d // self.heads)

    def batch_to_head_dim(self, t):
        b, s, d = t.shape
        t = t.reshape(b // self.heads, self.heads, s, d).permute(0, 2, 1, 3)
        return t.reshape(b // self.heads, s, d * self.heads)

    def forward(self, h, encoder_hidden_states=None):
        ctx = h if encoder_hidden_states is None else encoder_hidden_states
        q, k, v = self.to_q(h), self.to_k(ctx), self.to_v(ctx)
        if hasattr(F, "scaled_dot_product_attention"):  # AttnProcessor2_0
            b = h.shape[0]
            head_dim = k.shape[-1] // self.heads
            q = q.view(b, -1, self.heads, head_dim).transpose(1, 2)
            k = k.view(b, -1, self.heads, head_dim).transpose(1, 2)
            v = v.view(b, -1, self.heads, head_dim).transpose(1, 2)
            o = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0, is_causal=False)
            o = o.transpose(1, 2).reshape(b, -1, self.heads * head_dim).to(q.dtype)
        else:  # AttnProcessor (get_attention_scores)
            q, k, v = self.head_to_batch_dim(q), self.head_to_batch_dim(k), self.head_to_batch_dim(v)
            empty = torch.empty(q.shape[0], q.shape[1], k.shape[1], dtype=q.dtype)
            scores = torch.baddbmm(empty, q, k.transpose(-1, -2), beta=0, alpha=self.scale)
            probs = scores.softmax(dim=-1).to(q.dtype)
            o = self.batch_to_head_dim(torch.bmm(probs, v))
        return self.to_out[1](self.to_out[0](o))


class GEGLU(nn.Module):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.proj = nn.Linear(dim_in, dim_out * 2)

    def forward(self, h):
        h, gate = self.proj(h).chunk(2, dim=-1)
        return h * F.gelu(gate)


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4):
        super().__init__()
        self.net = nn.ModuleList([GEGLU(dim, dim * mult), nn.Dropout(0.0), nn.Linear(dim * mult, dim)])

    def forward(self, h):
        for m in self.net:
            h = m(h)
        return h


class BasicTransformerBlock(nn.Module):
    def __init__(self, dim, heads, dim_head, cross_attention_dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn1 = Attention(dim, heads, dim_head)
        self.norm2 = nn.LayerNorm(dim)
        self.attn2 = Attention(dim, heads, dim_head, cross_attention_dim)
        self.norm3 = nn.LayerNorm(dim)
        self.ff = FeedForward(dim)

    def forward(self, h, encoder_hidden_states):
        h = self.attn1(self.norm1(h)) + h
        h = self.attn2(self.norm2(h), encoder_hidden_states) + h
        return self.ff(self.norm3(h)) + h


class Transformer2DModel(nn.Module):
    """SD 1.x layout: GroupNorm(eps 1e-6), 1x1 conv proj_in, tokens = permute+reshape,
    transformer blocks, reshape back, 1x1 conv proj_out, residual."""

    def __init__(self, channels, heads, cross_attention_dim, groups):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, eps=1e-6, affine=True)
        self.proj_in = nn.Conv2d(channels, channels, 1)
        self.transformer_blocks = nn.ModuleList(
            [BasicTransformerBlock(channels, heads, channels // heads, cross_attention_dim)])
        self.proj_out = nn.Conv2d(channels, channels, 1)

    def forward(self, hidden_states, encoder_hidden_states):
        b, _, height, width = hidden_states.shape
        residual = hidden_states
        h = self.proj_in(self.norm(hidden_states))
        inner = h.shape[1]
        h = h.permute(0, 2, 3, 1).reshape(b, height * width, inner)
        for block in self.transformer_blocks:
            h = block(h, encoder_hidden_states)
        h = h.reshape(b, height, width, inner).permute(0, 3, 1, 2).contiguous()
        return self.proj_out(h) + residual


class Downsample2D(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, stride=2, padding=1)

    def forward(self, h):
        return self.conv(h)


class Upsample2D(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, h):
        h = F.interpolate(h, scale_factor=2.0, mode="nearest")
        return self.conv(h)


class SDUNetBlock(nn.Module):
    """UNet2DConditionModel cut down to one level: time_proj (sinusoidal, flip_sin_to_cos,
    shift 0) + TimestepEmbedding, conv_in, a CrossAttnDownBlock2D (ResnetBlock2D,
    Transformer2DModel, Downsample2D), a mid ResnetBlock2D (32 -> 48 channels, conv_shortcut),
    an up level (Upsample2D, skip cat, ResnetBlock2D with conv_shortcut, Transformer2DModel),
    conv_norm_out + SiLU + conv_out. GroupNorm with 8 groups. Inputs sample [1,4,16,16],
    timestep int64 [1], encoder_hidden_states [1,8,24]; output the noise prediction
    [1,4,16,16]."""

    def __init__(self, in_channels=4, ch=32, mid=48, cross=24, heads=2, groups=8):
        super().__init__()
        temb = ch * 4
        self.ch = ch
        self.time_embedding = TimestepEmbedding(ch, temb)
        self.conv_in = nn.Conv2d(in_channels, ch, 3, padding=1)
        self.down_resnet = ResnetBlock2D(ch, ch, temb, groups)
        self.down_attn = Transformer2DModel(ch, heads, cross, groups)
        self.downsample = Downsample2D(ch)
        self.mid_resnet = ResnetBlock2D(ch, mid, temb, groups)
        self.upsample = Upsample2D(mid)
        self.up_resnet = ResnetBlock2D(mid + ch, ch, temb, groups)
        self.up_attn = Transformer2DModel(ch, heads, cross, groups)
        self.conv_norm_out = nn.GroupNorm(groups, ch, eps=1e-5)
        self.conv_out = nn.Conv2d(ch, in_channels, 3, padding=1)

    def forward(self, sample, timestep, encoder_hidden_states):
        timesteps = timestep.expand(sample.shape[0])
        t_emb = get_timestep_embedding(timesteps, self.ch).to(dtype=sample.dtype)
        emb = self.time_embedding(t_emb)
        h = self.conv_in(sample)
        skip = self.down_attn(self.down_resnet(h, emb), encoder_hidden_states)
        h = self.mid_resnet(self.downsample(skip), emb)
        h = torch.cat([self.upsample(h), skip], dim=1)
        h = self.up_attn(self.up_resnet(h, emb), encoder_hidden_states)
        return self.conv_out(F.silu(self.conv_norm_out(h)))
