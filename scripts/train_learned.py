#!/usr/bin/env python3
"""The learned value net (src/nn/value.rs) trained with PyTorch, on a CUDA device when there is
one: `deepred train-learned`'s trainer (src/train/value.rs) for a GPU. `deepred learn --trainer
torch` runs it (a copy the binary writes into its work folder); it also runs by hand.

Same inputs and outputs as the CPU trainer: bulletformat records (32 bytes each; `deepred
datagen` files, `deepred experience export --bullet`), the same net ((768 -> H) x 2 -> 1, with
B output buckets by material (bullet's MaterialCount<B>, src/nn/value.rs `output_bucket`), the
accumulator squared-clipped, PyTorch-layout tensors `ft.weight [H, 768]`, `ft.bias`,
`out.weight [B, 2H]`, `out.bias [B]`), the same loss ((sigmoid(out) - target)^2 with target = (1 -
wdl) * sigmoid(score / 400) + wdl * result, the side to move's view), Adam with the learning
rate decayed after each epoch, weights clipped to what the quantised kernels hold (+-1.98), the
same initialisation, and the net file the engine loads, rewritten after every epoch.

Usage:
  train_learned.py --data F.bin [F2.bin ...] --out NET [--hidden 256] [--buckets 1] [--epochs 30] [--batch 8192]
                   [--lr 0.002] [--lr-decay 0.92] [--wdl 0] [--val-fraction 0.05] [--seed 1]
                   [--init NET]
                   [--meta KEY=VALUE ...] [--device cuda|cpu] [--csv LOG]
  train_learned.py outputs --net NET --data F.bin [--count N]   (the net's raw outputs, for tests)
"""

import argparse
import math
import sys
import time

import torch
import torch.nn as nn

from train_gpu import Log, load_init, save_net

RECORD = 32
INPUTS = 768
SCALE = 400.0
CLIP = 1.98


def read_records(paths):
    """The records of bulletformat files as a uint8 tensor [n, 32]."""
    parts = []
    for p in paths:
        with open(p, "rb") as f:
            raw = f.read()
        if len(raw) % RECORD:
            sys.exit(f"error: '{p}': {len(raw)} bytes, not a whole number of {RECORD}-byte records")
        parts.append(torch.frombuffer(bytearray(raw), dtype=torch.uint8).reshape(-1, RECORD))
    data = torch.cat(parts) if parts else torch.empty(0, RECORD, dtype=torch.uint8)
    if len(data) == 0:
        sys.exit("error: no training positions")
    return data


BIT = 2 ** torch.arange(8, dtype=torch.int64)


def views(rec):
    """Dense deeppink768 inputs of records [n, 32] (uint8, on the device): the side to move's
    view and the opponent's (src/chess/bullet.rs `features`). The i-th occupied square, in
    ascending order, holds the i-th 4-bit piece code (colour << 3 | kind)."""
    n, dev = rec.shape[0], rec.device
    occ_bytes = rec[:, :8].long()
    bits = ((occ_bytes.unsqueeze(2) & BIT.to(dev)) > 0).reshape(n, 64)
    pcs = rec[:, 8:24].long()
    nibbles = torch.stack([pcs & 15, pcs >> 4], dim=2).reshape(n, 32)
    rank = (bits.long().cumsum(1) - 1).clamp(0, 31)
    piece = torch.gather(nibbles, 1, rank)
    colour, kind = piece >> 3, (piece & 7).clamp(max=5)
    sq = torch.arange(64, device=dev).expand(n, 64)
    # An empty square points at a spare column, dropped afterwards.
    us_idx = torch.where(bits, colour * 384 + kind * 64 + sq, INPUTS)
    them_idx = torch.where(bits, (1 - colour.clamp(max=1)) * 384 + kind * 64 + (sq ^ 56), INPUTS)
    us = torch.zeros(n, INPUTS + 1, device=dev).scatter_(1, us_idx, 1.0)[:, :INPUTS]
    them = torch.zeros(n, INPUTS + 1, device=dev).scatter_(1, them_idx, 1.0)[:, :INPUTS]
    return us, them


def buckets_of(rec, buckets):
    """The output bucket of each record [n, 32]: (pieces - 2) // (32 // buckets), at most
    buckets - 1 (src/nn/value.rs `output_bucket`)."""
    occ = rec[:, :8].long()
    pieces = ((occ.unsqueeze(2) & BIT.to(rec.device)) > 0).sum(dim=(1, 2))
    return ((pieces - 2).clamp(min=0) // (32 // buckets)).clamp(max=buckets - 1)


def targets(rec, wdl):
    score = (rec[:, 24].long() | (rec[:, 25].long() << 8)).to(torch.int16).float()
    result = rec[:, 26].float() / 2.0
    return (1.0 - wdl) * torch.sigmoid(score / SCALE) + wdl * result


class Learned(nn.Module):
    def __init__(self, hidden, buckets=1):
        super().__init__()
        self.hidden = hidden
        self.buckets = buckets
        self.ft = nn.Linear(INPUTS, hidden)
        self.out = nn.Linear(2 * hidden, buckets)

    def init(self, gen):
        # src/train/value.rs ValueParams::random's bounds, zero biases, the same output row in
        # every bucket.
        b0, b1 = 1.0 / math.sqrt(INPUTS), 1.0 / math.sqrt(2 * self.hidden)
        with torch.no_grad():
            self.ft.weight.uniform_(-b0, b0, generator=gen)
            row = torch.empty(1, 2 * self.hidden).uniform_(-b1, b1, generator=gen)
            self.out.weight.copy_(row.expand(self.buckets, -1))
            self.ft.bias.zero_()
            self.out.bias.zero_()

    def forward(self, us, them, bucket):
        a = torch.cat([self.ft(us), self.ft(them)], dim=1).clamp(0.0, 1.0).pow(2)
        return self.out(a).gather(1, bucket.unsqueeze(1)).squeeze(1)

    def layout(self):
        return [("ft", INPUTS, self.hidden), ("out", 2 * self.hidden, self.buckets)]

    def architecture(self):
        tail = "" if self.buckets == 1 else f"x{self.buckets}"
        return f"(768-{self.hidden})x2-1{tail}"


def run(net, rec):
    """The net's raw outputs for records [n, 32]."""
    return net(*views(rec), buckets_of(rec, net.buckets))


def init_from(net, path):
    """Loads a learned net's weights into `net`, as `load_init` does; a net of one output
    bucket grows into net.buckets, each bucket a copy of its output row (src/train/value.rs)."""
    from train_gpu import load_net

    _, tensors = load_net(path)
    ow, ob = tensors.get("out.weight"), tensors.get("out.bias")
    if ow is not None and ob is not None and ow.shape[0] == 1 and net.buckets > 1:
        tensors["out.weight"] = ow.expand(net.buckets, -1).clone()
        tensors["out.bias"] = ob.expand(net.buckets).clone()
    state = net.state_dict()
    for name, t in tensors.items():
        if name not in state:
            sys.exit(f"error: --init '{path}': tensor {name} is not in this net")
        if tuple(state[name].shape) != tuple(t.shape):
            sys.exit(f"error: --init '{path}': tensor {name} has shape {list(t.shape)}, {list(state[name].shape)} wanted")
        state[name].copy_(t)


def loss_of(net, rec, wdl, batch):
    total = 0.0
    with torch.no_grad():
        for i in range(0, len(rec), batch):
            r = rec[i : i + batch]
            d = torch.sigmoid(run(net, r)) - targets(r, wdl)
            total += float((d * d).sum())
    return total / max(len(rec), 1)


def train(a):
    dev = torch.device(a.device)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "CPU"
    print(f"train_learned.py: {name}", flush=True)
    gen = torch.Generator().manual_seed(a.seed)
    data = read_records(a.data)
    data = data[torch.randperm(len(data), generator=gen)]
    n_val = min(int(len(data) * a.val_fraction), len(data) // 2)
    val, tr = data[:n_val].to(dev), data[n_val:].to(dev)
    if a.buckets not in (1, 2, 4, 8):
        sys.exit(f"error: --buckets {a.buckets}: a learned net has 1, 2, 4 or 8")
    net = Learned(max(a.hidden, 16), a.buckets)
    net.init(gen)
    if a.init:
        # Fine-tuning: the weights of a net of the same size (the CPU trainer's --init); a net
        # of one output bucket grows into --buckets, each a copy of its row.
        init_from(net, a.init)
    net.to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-8)
    meta = dict(kv.split("=", 1) for kv in a.meta)
    log = Log(a.csv)
    lr = a.lr
    for epoch in range(1, a.epochs + 1):
        t0 = time.time()
        for g in opt.param_groups:
            g["lr"] = lr
        order = torch.randperm(len(tr), generator=gen).to(dev)
        total = 0.0
        for i in range(0, len(tr), a.batch):
            r = tr[order[i : i + a.batch]]
            d = torch.sigmoid(run(net, r)) - targets(r, a.wdl)
            loss = (d * d).sum()
            opt.zero_grad(set_to_none=True)
            (loss / len(r)).backward()
            opt.step()
            with torch.no_grad():
                for p in net.parameters():
                    p.clamp_(-CLIP, CLIP)
            total += loss.item()
        val_loss = loss_of(net, val, a.wdl, a.batch) if len(val) else float("nan")
        extra = {
            "positions": str(len(tr)),
            "generation": a.generation,
            "validation_loss": f"{val_loss:.6f}",
            "epochs": str(epoch),
            "wdl": str(a.wdl),
            "trainer": f"scripts/train_learned.py on {name}",
        }
        extra.update(meta)
        save_net(a.out, net, "learned", extra)
        log.row("learned", epoch, f"{total / max(len(tr), 1):.6f}", "", f"{val_loss:.6f}", "", lr, f"{time.time() - t0:.1f}", "")
        lr *= a.lr_decay


def outputs(a):
    """The raw outputs (centipawns / 400) of a net on the first records of a file, one a line,
    for the test that holds this trainer to the engine's (tests/torch.rs)."""
    from train_gpu import load_net

    _, tensors = load_net(a.net)
    net = Learned(tensors["ft.weight"].shape[0], tensors["out.weight"].shape[0])
    load_init(net, a.net, partial=False)
    rec = read_records(a.data)[: a.count]
    with torch.no_grad():
        for v in run(net, rec).tolist():
            print(f"{v:.7g}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "outputs":
        p = argparse.ArgumentParser(prog="train_learned.py outputs")
        p.add_argument("outputs")
        p.add_argument("--net", required=True)
        p.add_argument("--data", nargs="+", required=True)
        p.add_argument("--count", type=int, default=50)
        return outputs(p.parse_args())
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", nargs="+", required=True, help="bulletformat files")
    p.add_argument("--out", required=True)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--buckets", type=int, default=1, help="output buckets by material: 1, 2, 4 or 8")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch", type=int, default=8192)
    p.add_argument("--lr", type=float, default=0.002)
    p.add_argument("--lr-decay", type=float, default=0.92)
    p.add_argument("--wdl", type=float, default=0.0)
    p.add_argument("--val-fraction", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--init", help="start from this learned net's weights (same --hidden and --buckets)")
    p.add_argument("--generation", default="1")
    p.add_argument("--meta", nargs="*", default=[], help="KEY=VALUE metadata for the net file")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--csv", help="per-epoch log")
    a = p.parse_args()
    torch.manual_seed(a.seed)
    train(a)


if __name__ == "__main__":
    main()
