#!/usr/bin/env python3
"""tools/amp_replay.py DIR... - replays dumped mixed-precision training steps
(`bench --suite train --dtype amp-bf16 --dump DIR`, config.txt `autocast=bf16`)
with PyTorch's own autocast, torch.autocast('cpu', dtype=torch.bfloat16), from
the dumped parameters and batch, and with an fp32 step from the same state,
and prints how far bench's loss and gradients are from autocast's (relative
L2), beside the fp32 step's distance (what autocast changes at all).

An independent check of the autocast rules (suites/train/model_amp.c), run by
hand: not part of ci/test (it needs PyTorch 1.13: apt-get install
python3-torch; run /usr/bin/python3).

The autocast step is PyTorch's with exact bf16 elementwise kernels
(exact_kernels: gelu, softmax, log_softmax and division by a number on a
bf16 tensor computed in fp32, rounded once), because PyTorch 1.13's own CPU
kernels round intermediate results; its own kernels' distance is printed
too. PyTorch 1.13's CPU bf16 GEMM also rounds differently when M or N is
under 16 (56% of a 10x8x32 product's elements differ from the fp32-summed
product rounded once): replay dumps whose batch and layer widths are 16 or
more where a GEMM's M or N is the batch (mlp-small-b16, not -b8).

Criterion (exit 0 when every dump meets it): bench is at most RATIO (0.5) of
the fp32 step's distance from autocast, for the loss and for the gradients
as a whole (the root mean square of every gradient tensor's relative L2
distance), and at most TENSOR_RATIO (0.8) of it for each gradient tensor
(an op left in fp32 leaves its tensors as far as fp32's: a planted
bias_grad in fp32 on mlp-small-b16 is 0.50 as a whole, 1.0 on fc1.bias). Measured (cpu-omp, cpu-blas, cuda/cuda-lib --emulate, step 1):
cnn-b4, mlp-b16, mlp-small-b16: the loss equal and gradients equal to
1e-5 (ratio 0.00); gpt-b1: loss 5e-7 against fp32's 9e-5, gradients 0.32;
rnn-b16 (0.95) and lstm-b16 (0.75) do not agree: PyTorch runs the RNN's
log_softmax in bf16 (its output rounded) where bench's fused softmax_xent is
fp32, and nn.LSTM's CPU cell mixes bf16 gates into fp32 state, which bench's
LSTM cell does not model.
The model definitions are check_dump.py's (the sequence models) and the
chain models' layer lists there, read, not repeated.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_dump as cd  # noqa: E402  (its numpy check comes first)

np = cd.np


# the criterion: bench's distance from autocast at most RATIO of the fp32
# step's for the loss and the gradients as a whole, TENSOR_RATIO for each
# gradient tensor
RATIO, TENSOR_RATIO = 0.5, 0.8


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


class exact_kernels:
    """PyTorch 1.13's CPU bf16 kernels of gelu, softmax (its backward),
    log_softmax and division by a number round intermediate results (of a
    bf16 tensor's gelu, 40% of the elements differ from the fp32 gelu
    rounded once; softmax's backward 12%, log_softmax 13%, division 2%):
    within this block those ops, on a bf16 tensor, are computed in fp32 and
    rounded to bf16 once: the op autocast runs in bf16, computed exactly
    (their backward likewise, through the casts; softmax's from its bf16
    output, as PyTorch's)."""

    def __enter__(self):
        import torch
        import torch.nn.functional as F
        self.saved = (F.gelu, F.log_softmax, torch.Tensor.__truediv__, torch.Tensor.softmax)
        gelu, log_softmax, div, softmax = self.saved
        bf = torch.bfloat16

        class Softmax(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, dim):
                y = softmax(x.float(), dim).to(bf)
                ctx.save_for_backward(y)
                ctx.dim = dim
                return y

            @staticmethod
            def backward(ctx, g):
                y = ctx.saved_tensors[0].float()
                g = g.float()
                return (y * (g - (y * g).sum(ctx.dim, keepdim=True))).to(bf), None

        torch.Tensor.softmax = (lambda x, dim: Softmax.apply(x, dim) if x.dtype == bf
                                else softmax(x, dim))
        F.gelu = lambda x, **k: gelu(x.float(), **k).to(bf) if x.dtype == bf else gelu(x, **k)
        F.log_softmax = (lambda x, *a, **k: log_softmax(x.float(), *a, **k).to(bf)
                         if x.dtype == bf else log_softmax(x, *a, **k))
        torch.Tensor.__truediv__ = (lambda x, o: div(x.float(), o).to(bf)
                                    if x.dtype == bf and isinstance(o, float) else div(x, o))
        return self

    def __exit__(self, *exc):
        import torch
        import torch.nn.functional as F
        F.gelu, F.log_softmax, torch.Tensor.__truediv__, torch.Tensor.softmax = self.saved


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
    """Prints the figures of one dump; True when it agrees (the module's
    criterion)."""
    cfg = cd.read_config(folder)
    if cfg.get("autocast") != "bf16":
        raise cd.BadDump("config.txt has no autocast=bf16: not an amp-bf16 dump (tools/check_dump.py checks fp32 ones)")
    cd.need_torch(cfg["model"])
    x = cd.load_npy(os.path.join(folder, "input.npy"))
    y = cd.load_npy(os.path.join(folder, "labels.npy"))
    pdir = os.path.join(folder, "param")
    names = sorted(f[:-4] for f in os.listdir(pdir) if f.endswith(".npy"))
    p = {n: cd.load_npy(os.path.join(pdir, n + ".npy")) for n in names}
    with exact_kernels():
        amp = torch_step(cfg, p, x, y, True)
    raw = torch_step(cfg, p, x, y, True)
    fp32 = torch_step(cfg, p, x, y, False)
    got_loss = float(cd.load_npy(os.path.join(folder, "loss.npy")).reshape(-1)[0])
    print(f"{folder}: {cfg['model']}, {cfg['optimizer']}: loss bench {got_loss:.7g}, "
          f"autocast {amp[0]:.7g} (its own kernels {raw[0]:.7g}), fp32 {fp32[0]:.7g}")
    le, lg = abs(got_loss - amp[0]), abs(fp32[0] - amp[0])
    es, gs = [], []
    for n in names:
        got = cd.load_npy(os.path.join(folder, "grad", n + ".npy")).astype(np.float64)
        ref = amp[1][n].astype(np.float64)
        es.append(cd.rel(got, ref))
        gs.append(cd.rel(fp32[1][n].astype(np.float64), ref))
        print(f"  grad/{n:28s} bench {es[-1]:.2e}   fp32 {gs[-1]:.2e}   "
              f"(bench vs autocast's own kernels {cd.rel(got, raw[1][n].astype(np.float64)):.2e})")
    e, g = float(np.sqrt(np.mean(np.square(es)))), float(np.sqrt(np.mean(np.square(gs))))
    worst = max(a / b if b else (0.0 if a == 0 else np.inf) for a, b in zip(es, gs))
    ok = le <= RATIO * lg and e <= RATIO * g and worst <= TENSOR_RATIO
    print(f"  distance from autocast, bench / fp32: loss {le:.2e} / {lg:.2e}, gradients (rms of "
          f"the tensors' rel L2) {e:.2e} / {g:.2e} = {e / g if g else 0:.2f}, worst tensor "
          f"{worst:.2f}: {'agrees' if ok else 'FAR'}")
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
