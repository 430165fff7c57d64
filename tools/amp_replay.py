#!/usr/bin/env python3
"""tools/amp_replay.py DIR... - replays dumped mixed-precision training steps
(`bench --suite train --dtype amp-bf16 --dump DIR`, config.txt `autocast=bf16`)
with PyTorch's own autocast, torch.autocast('cpu', dtype=torch.bfloat16), from
the dumped parameters and batch, and prints how far bench's loss, gradients
and updated parameters are from PyTorch's (relative L2), beside the distance
of an fp32 step from the same parameters (what autocast changes at all).

An independent check of the autocast rules (suites/train/model_amp.c), run by
hand: not part of ci/test (it needs PyTorch: apt-get install python3-torch).
PyTorch's 16-bit ops also round their outputs (and a linear layer's bias) to
bf16, and their gradients flow in bf16; bench's keep them fp32. Exit 0 when
every tensor of bench's step is within half of autocast's distance from fp32.
Measured (cpu-omp, amp-bf16, step 1): the loss is 6x (cnn-b4) and 30x
(mlp-small-b8) closer to autocast's than fp32's is, gpt-b1's is not; the
gradients are 0.92-0.99x autocast's distance from fp32 (bf16 output rounding
dominates them), so the tool exits 1: bench does not yet model that.
The model definitions are check_dump.py's (the sequence models) and the
chain models' layer lists there, read, not repeated.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_dump as cd  # noqa: E402  (its numpy check comes first)

np = cd.np


def chain_module(model):
    """cnn, mlp, mlp-small as torch modules named as bench dumps them."""
    import torch
    from torch import nn
    shapes = {"cnn": {"conv1": (3, 16), "conv2": (16, 32), "fc1": (32 * 7 * 7, 128), "fc2": (128, 10)},
              "mlp": {"fc1": (784, 1024), "fc2": (1024, 1024), "fc3": (1024, 10)},
              "mlp-small": {"fc1": (64, 32), "fc2": (32, 10)}}[model]

    class Chain(nn.Module):
        def __init__(self):
            super().__init__()
            for name, (a, b) in shapes.items():
                setattr(self, name, nn.Conv2d(a, b, 3, padding=1) if name.startswith("conv")
                        else nn.Linear(a, b))

        def forward(self, x):
            for layer in cd.LAYERS[model]:
                if layer == "relu":
                    x = torch.relu(x)
                elif layer == "pool":
                    x = nn.functional.max_pool2d(x, 2)
                elif layer == "flatten":
                    x = x.reshape(x.shape[0], -1)
                else:
                    x = getattr(self, layer)(x)
            return x

    return Chain(), "logits"


def torch_step(cfg, p, x, y, amp):
    """loss, grads, updated parameters (float32 master weights) of one step,
    under torch.autocast('cpu', bfloat16) when amp."""
    import torch
    import torch.nn.functional as F
    torch.set_default_dtype(torch.float32)
    model = cfg["model"]
    net, kind = chain_module(model) if model in cd.LAYERS else cd.torch_module(cfg)
    net = net.float()
    net.load_state_dict({k: torch.from_numpy(v.astype(np.float32)) for k, v in p.items()})
    inp = torch.from_numpy(x if x.dtype == np.int64 else x.astype(np.float32))
    tgt = torch.from_numpy(y).reshape(-1)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
        out = net(inp)
        C = out.shape[-1]
        loss = (F.nll_loss if kind == "logp" else F.cross_entropy)(out.reshape(-1, C), tgt)
    loss.backward()
    named = dict(net.named_parameters())
    g = {k: named[k].grad.detach().float().numpy().copy() for k in p}
    cd.torch_optimizer(cfg, net.parameters()).step()
    return float(loss), g, {k: named[k].detach().float().numpy().copy() for k in p}


def replay(folder):
    cfg = cd.read_config(folder)
    if cfg.get("autocast") != "bf16":
        raise cd.BadDump("config.txt has no autocast=bf16: not an amp-bf16 dump (tools/check_dump.py checks fp32 ones)")
    cd.need_torch(cfg["model"])
    x = cd.load_npy(os.path.join(folder, "input.npy"))
    y = cd.load_npy(os.path.join(folder, "labels.npy"))
    pdir = os.path.join(folder, "param")
    names = sorted(f[:-4] for f in os.listdir(pdir) if f.endswith(".npy"))
    p = {n: cd.load_npy(os.path.join(pdir, n + ".npy")) for n in names}
    amp = torch_step(cfg, p, x, y, True)
    fp32 = torch_step(cfg, p, x, y, False)
    got_loss = float(cd.load_npy(os.path.join(folder, "loss.npy")).reshape(-1)[0])
    ok = True
    worst = 0.0
    print(f"{folder}: {cfg['model']}, {cfg['optimizer']}: loss bench {got_loss:.7g}, "
          f"torch autocast {amp[0]:.7g}, torch fp32 {fp32[0]:.7g}")
    for sub, k in (("grad", 1), ("updated", 2)):
        for n in names:
            got = cd.load_npy(os.path.join(folder, sub, n + ".npy")).astype(np.float64)
            e = cd.rel(got, amp[k][n].astype(np.float64))
            gap = cd.rel(fp32[k][n].astype(np.float64), amp[k][n].astype(np.float64))
            off = not e <= 0.5 * gap if gap > 0 else not e <= 1e-6
            ok &= not off
            worst = max(worst, e / gap if gap > 0 else 0.0)
            print(f"  {sub}/{n:28s} bench vs autocast {e:.2e}   fp32 vs autocast {gap:.2e}"
                  f"{'  FAR' if off else ''}")
    print(f"  worst: bench's distance from autocast = {worst:.2f} x autocast's from fp32")
    return ok


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit("usage: amp_replay.py DIR...")
    ok = True
    for folder in [c for a in sys.argv[1:] for c in cd.cases(a)]:
        try:
            ok &= replay(folder)
        except (cd.BadDump, OSError, KeyError, ValueError) as e:
            print(f"{folder}: FAIL: {e}")
            ok = False
    sys.exit(0 if ok else 1)
