#!/usr/bin/env python3
"""DeepChess and Deep Pink on a GPU: the trainer of `deepred train` (src/train/deepchess.rs,
src/train/deeppink.rs) written for plain PyTorch, for the machines where the Rust build cannot
link a CUDA libtorch (a lent GPU machine has PyTorch but no Rust toolchain).

Same inputs and outputs as `deepred train`: `deepred dataset` files (DRDSET01, src/train/data.rs;
also gzip-compressed, `.gz`), the same nets (tensor names, layer sizes, activations), the same
losses (DeepChess: cross-entropy on cross-game pairs, optionally with sibling pairs and colour
mirroring; Deep Pink: the triplet loss with kappa), AdamW, the best epoch by validation accuracy
kept, and net files the engine loads (safetensors with `deepred-nn` metadata). Everything that
needs the rules of chess stays in Rust: sibling pairs of equal material come pre-filtered
(`deepred dataset deeppink --datagen ... --equal-material`), and Deep Pink's centipawn scale is
fitted afterwards by `deepred nn calibrate`.

The whole data set lives on the device as 66-byte boards; feature rows are made per batch on the
device (a scatter), so an epoch of millions of pairs takes seconds on a GPU.

Usage:
  train_gpu.py deepchess --data POS.bin [POS2.bin ...] [--siblings TRIP.bin] [--init NET] --out NET
  train_gpu.py deeppink  --data TRIP.bin [TRIP2.bin ...] [--init NET] --out NET
  train_gpu.py outputs   --net NET --data SET [--count N]      (the net's outputs, for tests)
(`--help` lists the options; the defaults are `deepred train`'s). Runs on the CPU without CUDA.
"""

import argparse
import array
import csv
import gzip
import json
import math
import struct
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

MAGIC = b"DRDSET01"
BOARD = 66
RECORD = {1: 72, 2: 204}  # deepchess, deeppink
KIND = {1: "deepchess", 2: "deeppink"}
POS2VEC = [773, 600, 400, 200, 100]
CMP = [200, 400, 200, 100, 2]


# ---------------------------------------------------------------- data sets (src/train/data.rs)
def read_dataset(path):
    """(kind byte, records as a uint8 array [n, record length])."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 16 or raw[:8] != MAGIC:
        sys.exit(f"error: '{path}' is not a deepred data set (no DRDSET01 header)")
    kind = raw[8]
    if kind not in RECORD:
        sys.exit(f"error: '{path}': unknown data set kind {kind}")
    (count,) = struct.unpack("<I", raw[12:16])
    if len(raw) - 16 != count * RECORD[kind]:
        sys.exit(f"error: '{path}': {len(raw) - 16} bytes of records, the header says {count} records of {RECORD[kind]}")
    return kind, torch.frombuffer(bytearray(raw[16:]), dtype=torch.uint8).reshape(count, RECORD[kind])


def read_all(paths, want):
    parts = []
    for p in paths:
        kind, recs = read_dataset(p)
        if kind != want:
            sys.exit(f"error: '{p}' is a {KIND[kind]} data set, {KIND[want]} wanted")
        parts.append(recs)
    return torch.cat(parts)


# ---------------------------------------------------------------- features (src/nn/features.rs)
SQ = torch.arange(64)


def deepchess_features(b):
    """deepchess773 rows (float) of boards b [n, 66] (uint8, on the device)."""
    n = b.shape[0]
    v = b[:, :64].long()
    occ = v > 0
    idx = torch.where(occ, (v - 1) // 6 * 384 + (v - 1) % 6 * 64 + SQ.to(b.device), 773)
    x = torch.zeros(n, 774, device=b.device)
    x.scatter_(1, idx, 1.0)
    x[:, 768] = (b[:, 64] == 0).float()
    c = b[:, 65].long()
    for i in range(4):
        x[:, 769 + i] = ((c >> i) & 1).float()
    return x[:, :773]


def deeppink_features(b):
    """deeppink768 rows of boards b [n, 66], from the side to move's view."""
    n = b.shape[0]
    v = b[:, :64].long()
    occ = v > 0
    black_to_move = (b[:, 64] == 1).long().unsqueeze(1)
    piece_black = (v > 6).long()
    own = (piece_black != black_to_move).long()  # 1: the opponent's piece
    sq = SQ.to(b.device).unsqueeze(0) ^ (56 * black_to_move)
    idx = torch.where(occ, own * 384 + (v - 1) % 6 * 64 + sq, 768)
    x = torch.zeros(n, 769, device=b.device)
    x.scatter_(1, idx, 1.0)
    return x[:, :768]


def mirror_boards(b):
    """Colour-mirrored boards (ranks flipped, colours, side to move and castling swapped)."""
    sq = b[:, :64].reshape(-1, 8, 8).flip(1).reshape(-1, 64)
    sq = torch.where(sq == 0, sq, torch.where(sq > 6, sq - 6, sq + 6))
    side = 1 - b[:, 64:65]
    c = b[:, 65:66]
    castle = ((c & 3) << 2) | ((c >> 2) & 3)
    return torch.cat([sq, side, castle], 1)


# ---------------------------------------------------------------- nets (src/nn/random.rs layout)
class DeepChess(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos2vec = nn.ModuleList(nn.Linear(POS2VEC[k], POS2VEC[k + 1]) for k in range(4))
        self.cmp = nn.ModuleList(nn.Linear(CMP[k], CMP[k + 1]) for k in range(4))
        self.ae_decoder = nn.ModuleList(nn.Linear(POS2VEC[k + 1], POS2VEC[k]) for k in range(4))

    def embed(self, x, layers=4):
        for l in self.pos2vec[:layers]:
            x = F.relu(l(x))
        return x

    def forward(self, a, b, dropout=0.0):
        h = torch.cat([self.embed(a), self.embed(b)], 1)
        for i, l in enumerate(self.cmp):
            h = l(h)
            if i < 3:
                h = F.dropout(F.relu(h), dropout, self.training)
        return h

    def layout(self):
        return [(f"pos2vec.{k}", POS2VEC[k], POS2VEC[k + 1]) for k in range(4)] + [
            (f"cmp.{k}", CMP[k], CMP[k + 1]) for k in range(4)
        ]

    def architecture(self):
        return "-".join(map(str, POS2VEC)) + "/" + "-".join(map(str, CMP))


class DeepPink(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.sizes = [768] + hidden + [1]
        self.layers = nn.ModuleList(nn.Linear(self.sizes[k], self.sizes[k + 1]) for k in range(len(self.sizes) - 1))

    def forward(self, x):
        for i, l in enumerate(self.layers):
            x = l(x)
            if i + 1 < len(self.layers):
                x = F.relu(x)
        return x.squeeze(-1)

    def layout(self):
        return [(f"layers.{k}", self.sizes[k], self.sizes[k + 1]) for k in range(len(self.sizes) - 1)]

    def architecture(self):
        return "-".join(map(str, self.sizes))


# ---------------------------------------------------------------- net files (safetensors)
# The format is a length, a JSON header and raw little-endian data; reading and writing it here
# keeps the trainer's needs at PyTorch (the venv of scripts/torch-venv.sh has no
# `safetensors` package).
def load_net(path):
    with open(path, "rb") as f:
        raw = f.read()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + hlen])
    meta = header.pop("__metadata__", {})
    out = {}
    for name, t in header.items():
        if t["dtype"] != "F32":
            sys.exit(f"error: '{path}': tensor {name} is {t['dtype']}, F32 wanted")
        s, e = t["data_offsets"]
        a = array.array("f", raw[8 + hlen + s : 8 + hlen + e])  # little-endian machines
        out[name] = torch.tensor(a, dtype=torch.float32).reshape(t["shape"])
    return meta, out


def save_net(path, net, kind, extra):
    tensors, offset, blobs = {}, 0, []
    for prefix, _, _ in net.layout():
        for part in ("weight", "bias"):
            name = f"{prefix}.{part}"
            t = getattr(net.get_submodule(prefix), part).detach().float().cpu()
            b = array.array("f", t.flatten().tolist()).tobytes()  # little-endian machines
            tensors[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(b)]}
            blobs.append(b)
            offset += len(b)
    meta = {
        "format": "deepred-nn",
        "kind": kind,
        "architecture": net.architecture(),
        "features": "deepchess773" if kind == "deepchess" else "deeppink768",
    }
    meta.update(extra)
    header = json.dumps({"__metadata__": meta, **tensors}, separators=(",", ":")).encode()
    header += b" " * (-len(header) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        for b in blobs:
            f.write(b)
    import os

    os.replace(tmp, path)


def load_init(net, path, partial):
    _, tensors = load_net(path)
    state = net.state_dict()
    for name, t in tensors.items():
        if name not in state:
            if partial:
                continue
            sys.exit(f"error: --init '{path}': tensor {name} is not in this net")
        if tuple(state[name].shape) != tuple(t.shape):
            sys.exit(f"error: --init '{path}': tensor {name} has shape {list(t.shape)}, {list(state[name].shape)} wanted")
        state[name].copy_(t)


# ---------------------------------------------------------------- training
class Log:
    def __init__(self, path):
        self.f = open(path, "w", newline="") if path else None
        if self.f:
            self.w = csv.writer(self.f)
            self.w.writerow(["stage", "epoch", "train_loss", "train_acc", "val_loss", "val_acc", "lr", "seconds", "note"])

    def row(self, *r):
        print(" ".join(str(x) for x in r), flush=True)
        if self.f:
            self.w.writerow(r)
            self.f.flush()


def training_note(a, epoch, best_of):
    return (
        f"scripts/train_gpu.py {a.kind}: epoch {epoch} (best of {best_of}) on {a.device_name}, batch {a.batch}, "
        f"lr {a.lr} decay {a.lr_decay}, weight decay {a.weight_decay}, dropout {a.dropout}, mirror {a.mirror}, "
        f"seed {a.seed}, data {' '.join(a.data)}"
        + (f", sibling pairs {a.siblings} ({a.sibling_pairs} an epoch)" if getattr(a, "siblings", None) else "")
        + (f", from {a.init}" if a.init else "")
    )


def adamw(params, a, dev):
    # One fused kernel for the whole step on CUDA: these nets are small, launches dominate.
    return torch.optim.AdamW(params, lr=a.lr, weight_decay=a.weight_decay, fused=dev.type == "cuda")


def out_of_time(a, epoch):
    if a.max_seconds and time.time() - a.started > a.max_seconds:
        print(f"stopped after epoch {epoch}: --max-seconds {a.max_seconds}", flush=True)
        return True
    return False


def batches(total, batch):
    for i in range(0, total, batch):
        yield i, min(batch, total - i)


def train_deepchess(a, dev, log):
    recs = read_all(a.data, 1).to(dev)
    boards = recs[:, :BOARD].contiguous()
    result, split = recs[:, BOARD].long(), recs[:, BOARD + 1].long()
    if a.mirror:
        # A mirrored White win is a Black win.
        boards = torch.cat([boards, mirror_boards(boards)])
        result = torch.cat([result, 3 - result])
        # Mirrors of validation positions are used nowhere (split 3).
        split = torch.cat([split, torch.where(split == 1, 3, split)])
    rows = lambda sel: torch.nonzero(sel).squeeze(1)
    tw, tb = rows((split == 0) & (result == 1)), rows((split == 0) & (result == 2))
    vw, vb = rows((split == 1) & (result == 1)), rows((split == 1) & (result == 2))
    if min(len(tw), len(tb), len(vw), len(vb)) == 0:
        sys.exit(f"error: the data needs positions of White wins and Black wins in both splits (train {len(tw)}+{len(tb)}, validation {len(vw)}+{len(vb)})")
    print(f"DeepChess: {len(tw) + len(tb)} train positions (mirrors included), {len(vw) + len(vb)} validation positions", flush=True)
    sib_train = sib_val = None
    if a.siblings:
        t = read_all([a.siblings], 2).to(dev)
        base = boards.shape[0]
        # Rows base + 2i: q (after the searched best move), base + 2i + 1: r (after another move).
        qr = torch.stack([t[:, BOARD : 2 * BOARD], t[:, 2 * BOARD : 3 * BOARD]], 1).reshape(-1, BOARD)
        boards = torch.cat([boards, qr])
        q_rows = base + 2 * torch.arange(t.shape[0], device=dev)
        q_white = t[:, 64] == 0  # q is the better for White when White moves at p
        tsplit = t[:, 3 * BOARD]
        sib_train = (q_rows[tsplit == 0], q_white[tsplit == 0])
        sib_val = (q_rows[tsplit == 1], q_white[tsplit == 1])
        print(f"sibling pairs: {len(sib_train[0])} train, {len(sib_val[0])} validation", flush=True)
    net = DeepChess().to(dev)
    if a.init:
        load_init(net, a.init, partial=True)
    g = torch.Generator(device=dev)
    g.manual_seed(a.seed)
    pick = lambda r, n: r[torch.randint(len(r), (n,), device=dev, generator=g)]
    feats = lambda idx: deepchess_features(boards[idx])

    def cross_pairs(w, b, n):
        """n pairs: (first rows, second rows, label 0 when the first is the White-won one)."""
        x, y = pick(w, n), pick(b, n)
        swap = torch.randint(2, (n,), device=dev, generator=g)
        return torch.where(swap == 1, y, x), torch.where(swap == 1, x, y), swap

    def sibling_pairs(s, n):
        at = torch.randint(len(s[0]), (n,), device=dev, generator=g)
        q, qw = s[0][at], s[1][at]
        swap = torch.randint(2, (n,), device=dev, generator=g)
        first = torch.where(swap == 1, q + 1, q)
        second = torch.where(swap == 1, q, q + 1)
        # The first is the better for White: q when White moves at p, r when Black does.
        return first, second, (qw == (swap == 1)).long()

    # Stage 1: stacked autoencoders (not with --init).
    train_rows = torch.cat([tw, tb])
    if not a.init:
        for layer in range(4):
            opt = torch.optim.AdamW(list(net.pos2vec[layer].parameters()) + list(net.ae_decoder[layer].parameters()), lr=a.lr, weight_decay=a.weight_decay)
            for epoch in range(1, a.ae_epochs + 1):
                t0, total = time.time(), torch.zeros((), device=dev)
                perm = train_rows[torch.randperm(len(train_rows), device=dev, generator=g)]
                for i, k in batches(len(perm), a.batch):
                    with torch.no_grad():
                        inp = net.embed(feats(perm[i : i + k]), layer)
                    recon = net.ae_decoder[layer](F.relu(net.pos2vec[layer](inp)))
                    loss = F.mse_loss(recon, inp)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    total += loss.detach() * k
                log.row(f"ae{layer}", epoch, f"{total.item() / len(perm):.5f}", "", "", "", a.lr, f"{time.time() - t0:.1f}", "")
    # Stage 2: the siamese network end to end, pairs re-drawn every epoch.
    val_n = min(len(vw), len(vb)) * 4
    val_n = max(1, min(val_n, 200_000))
    va, vb2, vy = cross_pairs(vw, vb, val_n)
    sv = sibling_pairs(sib_val, min(len(sib_val[0]), 200_000)) if sib_val is not None and len(sib_val[0]) else None
    opt = adamw(net.parameters(), a, dev)
    pairs = a.pairs or min(len(tw), len(tb))
    best, lr = -1.0, a.lr

    def accuracy(fa, fb, y):
        net.eval()
        right, loss = 0, 0.0
        with torch.no_grad():
            for i, k in batches(len(y), 16384):
                z = net(feats(fa[i : i + k]), feats(fb[i : i + k]))
                loss += F.cross_entropy(z, y[i : i + k], reduction="sum").item()
                right += (z.argmax(1) == y[i : i + k]).sum().item()
        net.train()
        return loss / len(y), right / len(y)

    for epoch in range(1, a.epochs + 1):
        t0 = time.time()
        for p in opt.param_groups:
            p["lr"] = lr
        ea, eb, ey = cross_pairs(tw, tb, pairs)
        if sib_train is not None:
            sa, sb, sy = sibling_pairs(sib_train, a.sibling_pairs or len(sib_train[0]))
            ea, eb, ey = torch.cat([ea, sa]), torch.cat([eb, sb]), torch.cat([ey, sy])
            perm = torch.randperm(len(ey), device=dev, generator=g)
            ea, eb, ey = ea[perm], eb[perm], ey[perm]
        loss_sum = torch.zeros((), device=dev)
        right = torch.zeros((), device=dev)
        for i, k in batches(len(ey), a.batch):
            z = net(feats(ea[i : i + k]), feats(eb[i : i + k]), a.dropout)
            y = ey[i : i + k]
            loss = F.cross_entropy(z, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss_sum += loss.detach() * k
            right += (z.argmax(1) == y).sum()
        vl, vacc = accuracy(va, vb2, vy)
        note = f"cross-game {100 * vacc:.2f}%"
        score = vacc
        if sv is not None:
            sl, sacc = accuracy(*sv)
            note += f", sibling {100 * sacc:.2f}%"
            score, vl = (vacc + sacc) / 2, (vl + sl) / 2
        n = len(ey)
        log.row("main", epoch, f"{loss_sum.item() / n:.5f}", f"{right.item() / n:.5f}", f"{vl:.5f}", f"{score:.5f}", f"{lr:.6g}", f"{time.time() - t0:.1f}", note)
        if a.save_every and epoch % a.save_every == 0:
            save_net(f"{a.out}.epoch{epoch}", net, "deepchess", {"games": a.games_note, "validation_accuracy": f"{note} (held-out pairs, epoch {epoch})", "training": training_note(a, epoch, a.epochs)})
        if score > best:
            best = score
            save_net(
                a.out,
                net,
                "deepchess",
                {
                    "games": a.games_note,
                    "validation_accuracy": f"{100 * score:.2f}% (held-out pairs, epoch {epoch}; {note})",
                    "training": training_note(a, epoch, a.epochs),
                },
            )
        lr *= a.lr_decay
        if out_of_time(a, epoch):
            break
    print(f"best validation accuracy {100 * best:.2f}%: {a.out}", flush=True)


def train_deeppink(a, dev, log):
    recs = read_all(a.data, 2).to(dev)
    trip = recs[:, : 3 * BOARD].reshape(-1, 3, BOARD).contiguous()
    split = recs[:, 3 * BOARD]
    tr, va = torch.nonzero(split == 0).squeeze(1), torch.nonzero(split == 1).squeeze(1)
    if len(tr) == 0 or len(va) == 0:
        sys.exit(f"error: the data needs triplets in both splits (train {len(tr)}, validation {len(va)})")
    print(f"Deep Pink: {len(tr)} train triplets, {len(va)} validation triplets", flush=True)
    net = DeepPink(a.hidden).to(dev)
    if a.init:
        load_init(net, a.init, partial=False)
    g = torch.Generator(device=dev)
    g.manual_seed(a.seed)
    opt = adamw(net.parameters(), a, dev)

    def fpqr(ids):
        t = trip[ids]
        f = net(deeppink_features(t.reshape(-1, BOARD))).reshape(-1, 3)
        return f[:, 0], f[:, 1], f[:, 2]

    def loss_of(fp, fq, fr):
        order = -F.logsigmoid(fr - fq).mean()
        s = fp + fq
        return order + a.kappa * -(F.logsigmoid(s) + F.logsigmoid(-s)).mean()

    best, lr = -1.0, a.lr
    for epoch in range(1, a.epochs + 1):
        t0 = time.time()
        for p in opt.param_groups:
            p["lr"] = lr
        perm = tr[torch.randperm(len(tr), device=dev, generator=g)]
        loss_sum = torch.zeros((), device=dev)
        right = torch.zeros((), device=dev)
        for i, k in batches(len(perm), a.batch):
            fp, fq, fr = fpqr(perm[i : i + k])
            loss = loss_of(fp, fq, fr)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss_sum += loss.detach() * k
            right += (fq < fr).sum()
        net.eval()
        vl, vr = 0.0, 0
        with torch.no_grad():
            for i, k in batches(len(va), 16384):
                fp, fq, fr = fpqr(va[i : i + k])
                vl += loss_of(fp, fq, fr).item() * k
                vr += (fq < fr).sum().item()
        net.train()
        vl, vacc = vl / len(va), vr / len(va)
        log.row("main", epoch, f"{loss_sum.item() / len(perm):.5f}", f"{right.item() / len(perm):.5f}", f"{vl:.5f}", f"{vacc:.5f}", f"{lr:.6g}", f"{time.time() - t0:.1f}", "")
        if vacc > best:
            best = vacc
            save_net(
                a.out,
                net,
                "deeppink",
                {
                    "games": a.games_note,
                    "validation_accuracy": f"{100 * vacc:.2f}% (held-out triplets, epoch {epoch})",
                    # Fitted against the pst evaluation afterwards: deepred nn calibrate.
                    "cp_scale": "100",
                    "training": training_note(a, epoch, a.epochs),
                },
            )
        lr *= a.lr_decay
        if out_of_time(a, epoch):
            break
    print(f"best validation accuracy {100 * best:.2f}%: {a.out} (now run: deepred nn calibrate --net {a.out} --dataset {a.data[0]})", flush=True)


def outputs(a):
    """The net's outputs on the first records of a data set, one line each, for the test that
    holds this trainer's features and net files to the engine's (tests/torch.rs): DeepChess,
    the logits of (board i, board i+1) and of their colour mirrors; Deep Pink, f of p, q and r."""
    meta, tensors = load_net(a.net)
    if meta.get("kind") == "deepchess":
        net = DeepChess()
        load_init(net, a.net, partial=True)
        b = read_all(a.data, 1)[: a.count + 1, :BOARD]
        m = mirror_boards(b)
        with torch.no_grad():
            z = net(deepchess_features(b[:-1]), deepchess_features(b[1:]))
            zm = net(deepchess_features(m[:-1]), deepchess_features(m[1:]))
        for r, rm in zip(z.tolist(), zm.tolist()):
            print(" ".join(f"{v:.7g}" for v in r + rm))
    else:
        hidden = [tensors[f"layers.{k}.weight"].shape[0] for k in range(len(tensors) // 2 - 1)]
        net = DeepPink(hidden)
        load_init(net, a.net, partial=False)
        t = read_all(a.data, 2)[: a.count, : 3 * BOARD].reshape(-1, BOARD)
        with torch.no_grad():
            f = net(deeppink_features(t)).reshape(-1, 3)
        for r in f.tolist():
            print(" ".join(f"{v:.7g}" for v in r))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "outputs":
        p = argparse.ArgumentParser(prog="train_gpu.py outputs")
        p.add_argument("outputs")
        p.add_argument("--net", required=True)
        p.add_argument("--data", nargs="+", required=True)
        p.add_argument("--count", type=int, default=50)
        return outputs(p.parse_args())
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["deepchess", "deeppink"])
    p.add_argument("--data", nargs="+", required=True, help="deepred dataset files (.gz allowed)")
    p.add_argument("--out", required=True)
    p.add_argument("--init", help="start from this net (DeepChess: no autoencoder stage)")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--ae-epochs", type=int, default=3)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=0.001)
    p.add_argument("--lr-decay", type=float, default=0.95)
    p.add_argument("--pairs", type=int, default=0, help="DeepChess: cross-game pairs an epoch (0: the smaller side's positions)")
    p.add_argument("--siblings", help="DeepChess: sibling pairs from this Deep Pink data set (made with --equal-material)")
    p.add_argument("--sibling-pairs", type=int, default=0, help="DeepChess: sibling pairs an epoch (0: all)")
    p.add_argument("--kappa", type=float, default=1.0, help="Deep Pink: weight of f(p) + f(q) = 0")
    p.add_argument("--hidden", default="512,256", help="Deep Pink: hidden layer sizes")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--dropout", type=float, default=0.0)
    p.add_argument("--mirror", action="store_true", help="DeepChess: also the colour-mirrored positions")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--csv", help="per-epoch log")
    p.add_argument("--max-seconds", type=float, default=0, help="stop after the epoch that passes this much time (0: no limit)")
    p.add_argument("--save-every", type=int, default=0, help="DeepChess: also write OUT.epochN every N epochs")
    p.add_argument("--games-note", default="", help="what the data is (net metadata 'games')")
    a = p.parse_args()
    a.started = time.time()
    a.hidden = [int(h) for h in a.hidden.split(",") if h]
    dev = torch.device(a.device)
    a.device_name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "CPU"
    torch.manual_seed(a.seed)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    log = Log(a.csv)
    (train_deepchess if a.kind == "deepchess" else train_deeppink)(a, dev, log)


if __name__ == "__main__":
    main()
