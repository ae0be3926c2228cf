"""Audio family for the model zoo (tools/zoo.py): a small Whisper-style encoder with its STFT
log-mel front end in the graph, so that complex tensors and the FFT ops (aten._fft_r2c,
abs/pow on complex, view_as_real, ...) are exercised as real audio models export them.

Runs under torch 1.13 (decomposed flavor, host) and torch 2.x (training flavor, chroot).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def _mel_filters(n_mels, n_freqs, sample_rate):
    """Triangular (HTK-style) mel filterbank [n_mels, n_freqs], as Whisper's mel_filters."""
    def hz_to_mel(f):
        return 2595.0 * math.log10(1.0 + f / 700.0)

    def mel_to_hz(m):
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)

    fmax = sample_rate / 2.0
    mels = torch.linspace(hz_to_mel(0.0), hz_to_mel(fmax), n_mels + 2, dtype=torch.float64)
    hz = torch.tensor([mel_to_hz(float(m)) for m in mels], dtype=torch.float64)
    freqs = torch.linspace(0.0, fmax, n_freqs, dtype=torch.float64)
    fb = torch.zeros(n_mels, n_freqs, dtype=torch.float64)
    for i in range(n_mels):
        lo, c, hi = hz[i], hz[i + 1], hz[i + 2]
        up = (freqs - lo) / (c - lo)
        down = (hi - freqs) / (hi - c)
        fb[i] = torch.clamp(torch.minimum(up, down), min=0.0)
    return fb.to(torch.float32)


def _sinusoids(length, channels, max_timescale=10000):
    """Whisper's sinusoidal position table [length, channels]."""
    inc = math.log(max_timescale) / (channels // 2 - 1)
    inv = torch.exp(-inc * torch.arange(channels // 2, dtype=torch.float32))
    t = torch.arange(length, dtype=torch.float32)[:, None] * inv[None, :]
    return torch.cat([torch.sin(t), torch.cos(t)], dim=1)


class WhisperAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(width, width)
        self.key = nn.Linear(width, width, bias=False)
        self.value = nn.Linear(width, width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        b, t, c = x.shape
        h, d = self.heads, c // self.heads
        q = self.query(x).view(b, t, h, d).permute(0, 2, 1, 3) * d ** -0.25
        k = self.key(x).view(b, t, h, d).permute(0, 2, 3, 1) * d ** -0.25
        v = self.value(x).view(b, t, h, d).permute(0, 2, 1, 3)
        w = F.softmax((q @ k).float(), dim=-1)
        return self.out((w @ v).permute(0, 2, 1, 3).flatten(start_dim=2))


class WhisperBlock(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.attn = WhisperAttention(width, heads)
        self.attn_ln = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
        self.mlp_ln = nn.LayerNorm(width)

    def forward(self, x):
        x = x + self.attn(self.attn_ln(x))
        return x + self.mlp(self.mlp_ln(x))


class WhisperEncoder(nn.Module):
    """Whisper's AudioEncoder in miniature, log-mel front end included: waveform [1, 1600]
    -> stft(n_fft=64, hop=16, hann, center/reflect, complex) -> |X|^2 (last frame dropped)
    -> mel filterbank (buffer) -> log10 of clamp(1e-10) -> max(x, max - 8) -> (x + 4) / 4
    -> conv1d+GELU, conv1d stride 2 +GELU -> + sinusoids -> 2 pre-LN blocks -> ln_post."""

    def __init__(self, n_fft=64, hop=16, n_mels=16, width=32, heads=4, layers=2, samples=1600):
        super().__init__()
        self.n_fft, self.hop, self.n_mels, self.width, self.frames = n_fft, hop, n_mels, width, samples // hop
        self.register_buffer("window", torch.empty(n_fft))
        self.register_buffer("mel_filters", torch.empty(n_mels, n_fft // 2 + 1))
        self.conv1 = nn.Conv1d(n_mels, width, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(width, width, kernel_size=3, stride=2, padding=1)
        self.register_buffer("positional_embedding", torch.empty((self.frames + 1) // 2, width))
        self.blocks = nn.ModuleList(WhisperBlock(width, heads) for _ in range(layers))
        self.ln_post = nn.LayerNorm(width)
        self.fixture_post_init()

    def fixture_post_init(self):
        """The fixed buffers get their real values back after export_fixture's seeded
        re-initialisation: a random "window" and "filterbank" would make the log-mel
        ill-conditioned (mel sums near 0), which no real model has."""
        with torch.no_grad():
            self.window.copy_(torch.hann_window(self.n_fft))
            self.mel_filters.copy_(_mel_filters(self.n_mels, self.n_fft // 2 + 1, 16000))
            self.positional_embedding.copy_(_sinusoids((self.frames + 1) // 2, self.width))

    def log_mel(self, audio):
        stft = torch.stft(audio, self.n_fft, self.hop, window=self.window, return_complex=True)
        magnitudes = stft[..., :-1].abs() ** 2
        mel = self.mel_filters @ magnitudes
        log_spec = torch.log(torch.clamp(mel, min=1e-10)) / math.log(10.0)
        log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
        return (log_spec + 4.0) / 4.0

    def forward(self, audio):
        x = self.log_mel(audio)
        x = F.gelu(self.conv1(x))
        x = F.gelu(self.conv2(x))
        x = x.permute(0, 2, 1)
        x = x + self.positional_embedding
        for block in self.blocks:
            x = block(x)
        return self.ln_post(x)


def _waveform(g):
    t = torch.arange(1600, dtype=torch.float32) / 16000.0
    tone = 0.5 * torch.sin(2 * math.pi * 440.0 * t) + 0.25 * torch.sin(2 * math.pi * 1250.0 * t)
    return (tone + 0.05 * torch.randn(1600, generator=g)).unsqueeze(0)


ZOO_AUDIO = {
    "whisper_encoder": (lambda: WhisperEncoder(), [_waveform]),
}
