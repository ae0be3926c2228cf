"""GPT-2 at full width for the zoo (issue 11): GPT-2 small's embedding width and head over
its 50257-token vocabulary, with only two layers to keep test time down.

Registered in tools/zoo.py's ZOO / ZOO_IR_ONLY: model.json committed, weights (~370 MB:
the state_dict holds the tied wte/lm_head matrix under both keys) and io made at test time by
tools/make_fixtures.sh.
"""

import torch.nn as nn

N_EMBD, N_HEAD, VOCAB, N_POSITIONS = 768, 12, 50257, 1024


def gpt2_wide(n_layer=2):
    import zoo  # zoo imports this module

    class GPT2Wide(zoo.GPT2Decoder):
        """zoo.GPT2Decoder (Conv1D/addmm projections, arange positions, causal mask built in
        forward, gelu_new in layer 0 / gelu(tanh) in layer 1, lm_head tied to wte) at GPT-2
        small's width: n_embd 768, 12 heads, vocab 50257, 1024 positions.

        fixture_post_init scales the final LayerNorm's weight by 30 (GPT-2's own logits are of
        order 100): logits reach a few hundred, each the sum of 768 products of that size, the
        large-activation regime where float32 reassociation shows at rtol = atol = 1e-5."""

        def __init__(self):
            super().__init__(vocab=VOCAB, n_embd=N_EMBD, n_head=N_HEAD, n_layer=n_layer)
            self.wpe = nn.Embedding(N_POSITIONS, N_EMBD)

        def fixture_post_init(self):
            self.ln_f.weight.mul_(30.0)

    return GPT2Wide()
