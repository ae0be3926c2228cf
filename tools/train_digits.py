#!/usr/bin/env python3
"""Train the handwritten-digits CNN of the main example and export it as pytorch-ir IR.

Data: scikit-learn's load_digits (the UCI optdigits test set: 1797 8x8 images, values 0..16,
Debian package python3-sklearn). Runs in the torch 2.x chroot (training-flavor IR):

    TIR_CHROOT_EXTRA=python3-sklearn bash tools/torch2-chroot.sh    # once
    bash tools/torch2-chroot.sh run -- python3 tools/train_digits.py [--out examples/digits]

Writes into OUT (deterministic: the same files on every run with the same torch):
    model.json              IR, input x [1, 1, 8, 8] float32 (one image: live drawing, latency)
    model_batch.json        the same network for the whole held-out set at once, x [N, 1, 8, 8]
    weights.safetensors     the trained state_dict (both IRs load it)
    io.safetensors          input.x = the first held-out image, output.0 = PyTorch's logits
                            (so examples/node/run.mjs can verify the model like any fixture)
    digits_test.safetensors images [N,1,8,8] float32 (pixel / 16, as in training), labels [N]
                            int64, torch_logits [N,10] float32, torch_pred [N] int64,
                            index [N] int64 (row in load_digits)
    training.json           seed, split, epochs, parameter count, train/test accuracy
"""

import argparse
import collections
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_fixture  # noqa: E402  (the fixture exporter: IR + safetensors writers)

SEED = 0
TEST_FRACTION = 0.2
EPOCHS = 40
BATCH = 32
LR = 3e-3


class DigitsCNN(nn.Module):
    """conv3x3(1->16)-relu-conv3x3(16->32)-relu-maxpool2-flatten-linear(512->10)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


def load_split():
    """Stratified split with a fixed seed: (x_train, y_train, x_test, y_test, test_index)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    d = load_digits()
    index = list(range(len(d.target)))
    train_idx, test_idx = train_test_split(index, test_size=TEST_FRACTION, random_state=SEED,
                                           stratify=d.target)
    images = torch.tensor(d.images, dtype=torch.float32).unsqueeze(1) / 16.0  # [N,1,8,8], 0..1
    labels = torch.tensor(d.target, dtype=torch.int64)
    tr, te = torch.tensor(train_idx), torch.tensor(test_idx)
    return images[tr], labels[tr], images[te], labels[te], te


def shift_batch(x, gen):
    """Random translation by up to one pixel per image (zero fill): drawn digits are never
    centred exactly like the scanned ones, and this costs nothing on the held-out set."""
    n = x.shape[0]
    padded = F.pad(x, (1, 1, 1, 1))
    dy = torch.randint(0, 3, (n,), generator=gen)
    dx = torch.randint(0, 3, (n,), generator=gen)
    out = torch.empty_like(x)
    for i in range(n):
        out[i] = padded[i, :, dy[i]:dy[i] + 8, dx[i]:dx[i] + 8]
    return out


def accuracy(model, x, y):
    with torch.no_grad():
        logits = model(x)
    return (logits.argmax(1) == y).float().mean().item(), logits


def train(x_train, y_train):
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = DigitsCNN()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, EPOCHS)
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(y_train), generator=gen)
        total = 0.0
        for s in range(0, len(order), BATCH):
            b = order[s:s + BATCH]
            loss = F.cross_entropy(model(shift_batch(x_train[b], gen)), y_train[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(b)
        sched.step()
        if epoch % 10 == 9 or epoch == EPOCHS - 1:
            print("epoch %2d  loss %.4f" % (epoch + 1, total / len(order)))
    return model.eval()


def write_ir(model, example, path):
    ir = export_fixture.export_training(model, collections.OrderedDict(x=example))
    with open(path, "w") as f:
        json.dump(ir, f, indent=2)
        f.write("\n")
    return ir


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "examples", "digits"))
    args = ap.parse_args(argv)
    torch.set_num_threads(1)  # same float sums on every machine and run
    torch.use_deterministic_algorithms(True)

    x_train, y_train, x_test, y_test, test_index = load_split()
    model = train(x_train, y_train)
    train_acc, _ = accuracy(model, x_train, y_train)
    test_acc, logits = accuracy(model, x_test, y_test)
    pred = logits.argmax(1)
    n_params = sum(p.numel() for p in model.parameters())
    print("parameters %d; train accuracy %.4f (%d/%d); test accuracy %.4f (%d/%d)"
          % (n_params, train_acc, round(train_acc * len(y_train)), len(y_train),
             test_acc, int((pred == y_test).sum()), len(y_test)))

    out = os.path.normpath(args.out)
    os.makedirs(out, exist_ok=True)
    write_ir(model, x_test[:1], os.path.join(out, "model.json"))
    write_ir(model, x_test, os.path.join(out, "model_batch.json"))
    export_fixture.write_safetensors(os.path.join(out, "weights.safetensors"),
                                     model.state_dict(), {"format": "pt"})
    export_fixture.write_safetensors(os.path.join(out, "io.safetensors"), collections.OrderedDict(
        [("input.x", x_test[:1]), ("output.0", logits[:1])]))
    export_fixture.write_safetensors(os.path.join(out, "digits_test.safetensors"),
                                     collections.OrderedDict([
                                         ("images", x_test), ("labels", y_test),
                                         ("torch_logits", logits), ("torch_pred", pred),
                                         ("index", test_index)]),
                                     {"source": "sklearn.datasets.load_digits",
                                      "scale": "pixel / 16"})
    info = collections.OrderedDict([
        ("dataset", "sklearn.datasets.load_digits (UCI optdigits, 1797 images 8x8, 0..16)"),
        ("split", "train_test_split(test_size=%s, random_state=%d, stratify=labels)"
         % (TEST_FRACTION, SEED)),
        ("input_scale", "pixel / 16"),
        ("model", "DigitsCNN " + DigitsCNN.__doc__.rstrip(".")),
        ("parameters", n_params), ("epochs", EPOCHS), ("batch", BATCH), ("lr", LR),
        ("augmentation", "random shift up to 1 pixel"), ("seed", SEED),
        ("torch", torch.__version__),
        ("train_images", len(y_train)), ("test_images", len(y_test)),
        ("train_accuracy", round(train_acc, 6)), ("test_accuracy", round(test_acc, 6)),
        ("test_correct", int((pred == y_test).sum())),
    ])
    with open(os.path.join(out, "training.json"), "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    print("wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
