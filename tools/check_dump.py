#!/usr/bin/env python3
"""tools/check_dump.py DIR... - checks `bench --suite train --dump DIR` folders
independently of bench: recomputes the dumped step (forward, mean softmax
cross-entropy, backward, the optimizer's first step) in float64 from param/,
input.npy, labels.npy and config.txt, and compares loss.npy, grad/ and
updated/.
  cnn, mlp, mlp-small: NumPy, as PyTorch defines the modules (Conv2d(3x3,
      padding=1), ReLU, MaxPool2d(2), Linear, CrossEntropyLoss, SGD).
  rnn, lstm, gpt: PyTorch's own modules (nn.Linear, nn.LSTM, nn.Embedding,
      nn.LayerNorm, GELU(approximate='tanh'), the tutorial's RNN, a GPT-2
      block) loaded from the dumped state_dict, autograd, and torch.optim's
      SGD or AdamW; needs PyTorch (apt-get install python3-torch).
AdamW's update is checked as torch.optim.AdamW applied to the dumped
gradients (its first step turns a gradient of rounding noise, such as
attention's key bias, into lr * sign(g)); the gradients against the
recomputed ones. Optional tooling: the suite itself needs no Python. Exit 1 on
a mismatch, 2 (one line naming it and how to install it) without NumPy, or
without PyTorch for a model that needs it.

A dump is input, not trusted: only regular files are read (a FIFO or a device
is refused, never opened for blocking reads), each of bounded size, every .npy
header is checked against its file's size before anything is allocated, every
number must be finite (a NaN loss, gradient or learning rate is a failure, not
a pass), labels must be classes of the model, and a bad case is reported with
the others still checked."""
import math
import os
import stat
import sys

try:
    import numpy as np
except ImportError as e:  # one line, not a traceback: optional tooling says what it needs
    sys.stderr.write(f"check_dump: the Python module '{e.name or 'numpy'}' is missing: "
                     "apt-get install python3-numpy, or pip install numpy\n")
    sys.exit(2)

LAYERS = {
    "cnn": ["conv1", "relu", "pool", "conv2", "relu", "pool", "flatten", "fc1", "relu", "fc2"],
    "mlp": ["fc1", "relu", "fc2", "relu", "fc3"],
    "mlp-small": ["fc1", "relu", "fc2"],
}

MAX_NPY = 1 << 30      # bytes: no dumped tensor of ours is near this
MAX_TEXT = 1 << 16     # config.txt, model.txt, lr.txt
NPY_DTYPES = ("<f4", "<f8", "<i8")


class BadDump(Exception):
    """The case's files are not a dump this tool can check (the message says why)."""


def read_regular(path, limit):
    """The bytes of path, a regular file of at most limit bytes: a FIFO, device or
    folder is refused without blocking (O_NONBLOCK, then fstat)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise BadDump(f"{path}: {e.strerror}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadDump(f"{path}: not a regular file")
        if st.st_size > limit:
            raise BadDump(f"{path}: {st.st_size} bytes, more than the {limit} a dump file may hold")
        chunks, left = [], st.st_size + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 20))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        data = b"".join(chunks)
        if len(data) > limit:
            raise BadDump(f"{path}: grew past {limit} bytes while read")
        return data
    finally:
        os.close(fd)


def load_npy(path):
    """A .npy array, its header checked against the file's size first."""
    import io
    data = read_regular(path, MAX_NPY)
    f = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise BadDump(f"{path}: .npy version {version} is not one bench writes")
    except ValueError as e:
        raise BadDump(f"{path}: not a .npy file: {e}")
    if dtype.str not in NPY_DTYPES or fortran:
        raise BadDump(f"{path}: dtype {dtype.str}{' (Fortran order)' if fortran else ''} is not "
                      f"one bench writes ({', '.join(NPY_DTYPES)})")
    count = 1
    for d in shape:
        count *= int(d)
    body = len(data) - f.tell()
    if count * dtype.itemsize != body:
        raise BadDump(f"{path}: the header claims shape {shape} ({count * dtype.itemsize} bytes), "
                      f"the file holds {body}")
    a = np.frombuffer(data, dtype=dtype, count=count, offset=f.tell()).reshape(shape)
    if a.dtype.kind == "f" and not np.isfinite(a).all():
        raise BadDump(f"{path}: {int((~np.isfinite(a)).sum())} values are NaN or infinite")
    return a


def read_text(path):
    return read_regular(path, MAX_TEXT).decode("utf-8", "replace")


def finite_number(cfg, key):
    """cfg[key] as a finite float, or BadDump naming it."""
    try:
        v = float(cfg[key])
    except (KeyError, ValueError):
        raise BadDump(f"config: {key}='{cfg.get(key, '')}' is not a number")
    if not math.isfinite(v):
        raise BadDump(f"config: {key}={cfg[key]} is not finite")
    return v


def check_labels(y, classes, model):
    if y.size and (y.min() < 0 or y.max() >= classes):
        raise BadDump(f"labels.npy: labels from {int(y.min())} to {int(y.max())}, but {model} has "
                      f"{classes} classes (0..{classes - 1})")


def conv_fwd(x, w, b):
    n, c, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([xp[:, :, r:r + h, s:s + wd] for r in range(3) for s in range(3)], axis=2)
    # cols [n, c, 9, h, w]; w [k, c, 3, 3]
    return np.einsum("ncthw,kct->nkhw", cols, w.reshape(w.shape[0], c, 9)) + b[None, :, None, None], cols


def conv_bwd(cols, w, dy, need_dx):
    k, c = w.shape[0], w.shape[1]
    dw = np.einsum("nkhw,ncthw->kct", dy, cols).reshape(w.shape)
    db = dy.sum(axis=(0, 2, 3))
    dx = None
    if need_dx:
        n, _, h, wd = dy.shape
        dxp = np.zeros((n, c, h + 2, wd + 2))
        wt = w.reshape(k, c, 9)
        for t in range(9):
            r, s = divmod(t, 3)
            dxp[:, :, r:r + h, s:s + wd] += np.einsum("nkhw,kc->nchw", dy, wt[:, :, t])
        dx = dxp[:, :, 1:-1, 1:-1]
    return dw, db, dx


def pool_fwd(x):
    n, c, h, w = x.shape
    win = x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2)
    win = win.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
    arg = win.argmax(axis=-1)   # the first maximum, as PyTorch's CPU kernel
    return np.take_along_axis(win, arg[..., None], -1)[..., 0], arg


def pool_bwd(dy, arg, shape):
    n, c, h, w = shape
    dx = np.zeros(shape)
    oh, ow = arg.shape[2], arg.shape[3]
    r, s = np.divmod(arg, 2)
    ni, ci, pi, qi = np.indices(arg.shape)
    dx[ni, ci, 2 * pi + r, 2 * qi + s] = dy
    return dx


def step(model, p, x, y, lr):
    acts, cache = x.astype(np.float64), []
    for l in LAYERS[model]:
        if l.startswith("conv"):
            out, cols = conv_fwd(acts, p[l + ".weight"], p[l + ".bias"])
            cache.append((l, cols))
        elif l.startswith("fc"):
            cache.append((l, acts))
            out = acts @ p[l + ".weight"].T + p[l + ".bias"]
        elif l == "relu":
            out = np.maximum(acts, 0)
            cache.append((l, out))
        elif l == "pool":
            out, arg = pool_fwd(acts)
            cache.append((l, (arg, acts.shape)))
        else:
            cache.append((l, acts.shape))
            out = acts.reshape(acts.shape[0], -1)
        acts = out
    z = acts - acts.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    B = x.shape[0]
    loss = -logp[np.arange(B), y].mean()
    d = np.exp(logp)
    d[np.arange(B), y] -= 1
    d /= B
    g = {}
    for i in range(len(cache) - 1, -1, -1):
        l, c = cache[i]
        if l.startswith("fc"):
            g[l + ".weight"], g[l + ".bias"] = d.T @ c, d.sum(axis=0)
            d = d @ p[l + ".weight"]
        elif l.startswith("conv"):
            g[l + ".weight"], g[l + ".bias"], d = conv_bwd(c, p[l + ".weight"], d, i > 0)
        elif l == "relu":
            d = d * (c > 0)
        elif l == "pool":
            d = pool_bwd(d, c[0], c[1])
        else:
            d = d.reshape(c)
    return loss, g, {k: p[k] - lr * g[k] for k in p}


def rel(a, b):
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def read_config(folder):
    """config.txt as a dict (older dumps have only model.txt and lr.txt)."""
    cfg = {"model": read_text(os.path.join(folder, "model.txt")).strip(),
           "lr": read_text(os.path.join(folder, "lr.txt")).strip(), "optimizer": "sgd"}
    path = os.path.join(folder, "config.txt")
    if os.path.lexists(path):
        for line in read_text(path).splitlines():
            if "=" in line:
                k, v = line.strip().split("=", 1)
                cfg[k] = v
    return cfg


def need_torch(model):
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.stderr.write(f"check_dump: model {model} needs the Python module 'torch': "
                         "apt-get install python3-torch, or pip install torch\n")
        sys.exit(2)


def torch_module(cfg):
    """The model as PyTorch modules, parameters named as bench dumps them."""
    import torch
    from torch import nn
    import torch.nn.functional as F
    model, C = cfg["model"], int(cfg["classes"])
    if model == "rnn":
        I, H = int(cfg["input"]), int(cfg["hidden"])

        class RNN(nn.Module):   # the tutorial's, unrolled from a zero hidden state
            def __init__(self):
                super().__init__()
                self.i2h = nn.Linear(I + H, H)
                self.i2o = nn.Linear(I + H, C)

            def forward(self, x):
                h = torch.zeros(x.shape[0], H, dtype=x.dtype)
                outs = []
                for t in range(x.shape[1]):
                    comb = torch.cat((x[:, t], h), 1)
                    outs.append(F.log_softmax(self.i2o(comb), dim=1))
                    h = self.i2h(comb)
                return torch.stack(outs, 1)
        return RNN(), "logp"
    if model == "lstm":
        I, H, L = int(cfg["input"]), int(cfg["hidden"]), int(cfg["layers"])

        class LSTM(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(I, H, L, batch_first=True)
                self.fc = nn.Linear(H, C)

            def forward(self, x):
                return self.fc(self.lstm(x)[0])
        return LSTM(), "logits"
    if model == "gpt":
        T, E, NH, L = int(cfg["seq"]), int(cfg["embd"]), int(cfg["heads"]), int(cfg["layers"])
        D = E // NH

        class Attn(nn.Module):
            def __init__(self):
                super().__init__()
                self.c_attn = nn.Linear(E, 3 * E)
                self.c_proj = nn.Linear(E, E)

            def forward(self, x):
                B, T_, _ = x.shape
                q, k, v = self.c_attn(x).split(E, dim=2)
                q, k, v = (a.view(B, T_, NH, D).transpose(1, 2) for a in (q, k, v))
                att = (q @ k.transpose(-2, -1)) / math.sqrt(D)
                mask = torch.ones(T_, T_, dtype=torch.bool).tril()
                att = att.masked_fill(~mask, float("-inf")).softmax(-1)
                return self.c_proj((att @ v).transpose(1, 2).reshape(B, T_, E))

        class MLP(nn.Module):
            def __init__(self):
                super().__init__()
                self.c_fc = nn.Linear(E, 4 * E)
                self.c_proj = nn.Linear(4 * E, E)

            def forward(self, x):
                return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.ln_1 = nn.LayerNorm(E)
                self.attn = Attn()
                self.ln_2 = nn.LayerNorm(E)
                self.mlp = MLP()

            def forward(self, x):
                x = x + self.attn(self.ln_1(x))
                return x + self.mlp(self.ln_2(x))

        class GPT(nn.Module):
            def __init__(self):
                super().__init__()
                self.wte = nn.Embedding(C, E)
                self.wpe = nn.Embedding(T, E)
                self.h = nn.ModuleList([Block() for _ in range(L)])
                self.ln_f = nn.LayerNorm(E)
                self.lm_head = nn.Linear(E, C, bias=False)

            def forward(self, ids):
                x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1]))
                for b in self.h:
                    x = b(x)
                return self.lm_head(self.ln_f(x))
        return GPT(), "logits"
    raise ValueError(f"unknown model {model}")


def torch_optimizer(cfg, params):
    import torch
    lr = float(cfg["lr"])
    if cfg["optimizer"] == "adamw":
        return torch.optim.AdamW(params, lr=lr, betas=(float(cfg["beta1"]), float(cfg["beta2"])),
                                 eps=float(cfg["eps"]), weight_decay=float(cfg["weight_decay"]))
    return torch.optim.SGD(params, lr=lr, momentum=float(cfg.get("momentum", 0)))


def torch_step(cfg, p, x, y):
    """loss, grads and updated parameters (float64) by PyTorch's modules."""
    import torch
    import torch.nn.functional as F
    torch.set_default_dtype(torch.float64)
    net, kind = torch_module(cfg)
    sd = net.state_dict()
    assert sorted(sd) == sorted(p), f"parameters {sorted(set(sd) ^ set(p))} differ"
    net.load_state_dict({k: torch.from_numpy(v) for k, v in p.items()})
    inp = torch.from_numpy(x.astype(np.int64) if x.dtype == np.int64 else x.astype(np.float64))
    out = net(inp)
    C = out.shape[-1]
    tgt = torch.from_numpy(y).reshape(-1)
    loss = (F.nll_loss if kind == "logp" else F.cross_entropy)(out.reshape(-1, C), tgt)
    loss.backward()
    named = dict(net.named_parameters())
    g = {k: named[k].grad.detach().numpy().copy() for k in p}
    torch_optimizer(cfg, net.parameters()).step()
    return float(loss), g, {k: named[k].detach().numpy().copy() for k in p}


def adamw_on(cfg, p, grads):
    """torch.optim.AdamW's first step applied to the given (dumped) gradients."""
    import torch
    torch.set_default_dtype(torch.float64)
    ps = {k: torch.nn.Parameter(torch.from_numpy(v.copy())) for k, v in p.items()}
    for k, t in ps.items():
        t.grad = torch.from_numpy(grads[k].astype(np.float64))
    torch_optimizer(cfg, list(ps.values())).step()
    return {k: t.detach().numpy() for k, t in ps.items()}


def check(folder):
    cfg = read_config(folder)
    model = cfg["model"]
    if "autocast" in cfg:   # a mixed-precision step is not an fp32 one
        raise BadDump(f"autocast={cfg['autocast'][:16]}: a mixed-precision step; replay it with tools/amp_replay.py")
    if model not in LAYERS and model not in ("rnn", "lstm", "gpt"):
        raise BadDump(f"model.txt: unknown model '{model[:40]}'")
    lr = finite_number(cfg, "lr")
    x = load_npy(os.path.join(folder, "input.npy"))
    y = load_npy(os.path.join(folder, "labels.npy"))
    if x.dtype not in (np.float32, np.int64) or y.dtype != np.int64:
        raise BadDump(f"input.npy {x.dtype} / labels.npy {y.dtype}: want float32 or int64 / int64")
    pdir = os.path.join(folder, "param")
    names = sorted(f[:-4] for f in os.listdir(pdir) if f.endswith(".npy"))
    if not names:
        raise BadDump(f"{pdir}: no parameters")
    p = {n: load_npy(os.path.join(pdir, n + ".npy")).astype(np.float64) for n in names}
    if model in LAYERS:
        last = [l for l in LAYERS[model] if l.startswith("fc")][-1] + ".bias"
        if last not in p:
            raise BadDump(f"param/: no {last}.npy for {model}")
        check_labels(y, p[last].shape[0], model)
        if y.shape != (x.shape[0],):
            raise BadDump(f"labels.npy: shape {y.shape}, want ({x.shape[0]},) for a batch of {x.shape[0]}")
        if cfg["optimizer"] != "sgd":
            need_torch(model)
        loss, g, upd = step(model, p, x, y, lr)
    else:
        classes = int(finite_number(cfg, "classes"))
        check_labels(y, classes, model)
        if x.dtype == np.int64:   # token ids index the embedding
            check_labels(x, classes, model + " (input token ids)")
        need_torch(model)
        loss, g, upd = torch_step(cfg, p, x, y)
    if cfg["optimizer"] == "adamw":   # from the dumped gradients (see the top)
        upd = adamw_on(cfg, p, {n: load_npy(os.path.join(folder, "grad", n + ".npy")) for n in names})
    got_loss = load_npy(os.path.join(folder, "loss.npy"))
    if got_loss.size != 1:
        raise BadDump(f"loss.npy: {got_loss.size} values, want 1")
    worst = abs(float(got_loss.reshape(-1)[0]) - loss) / abs(loss) if loss else float("inf")
    bad = not worst <= 1e-5   # NaN compares false: never a pass
    print(f"{folder}: {model}, {cfg['optimizer']}: loss {loss:.7g} (rel {worst:.2e}){'  MISMATCH' if bad else ''}")
    for sub, want in (("grad", g), ("updated", upd)):
        for n in names:
            got = load_npy(os.path.join(folder, sub, n + ".npy"))
            if got.dtype != np.float32 or got.shape != want[n].shape:
                raise BadDump(f"{sub}/{n}.npy: {got.dtype} {got.shape}, want float32 {want[n].shape}")
            e = rel(got, want[n])
            off = not e <= 1e-4
            bad |= off
            print(f"  {sub}/{n:28s} {str(got.shape):18s} rel {e:.2e}{'  MISMATCH' if off else ''}")
    return not bad


def cases(arg):
    """The case folders of a dump (or the one case folder given)."""
    if os.path.isfile(os.path.join(arg, "model.txt")):
        return [arg]
    if not os.path.isdir(arg):
        raise SystemExit(f"check_dump: {arg}: not a folder")
    found = [os.path.join(arg, n) for n in sorted(os.listdir(arg))
             if os.path.isdir(os.path.join(arg, n)) and not n.endswith(".tmp")]
    unfinished = [n for n in sorted(os.listdir(arg)) if n.endswith(".tmp")]
    for n in unfinished:
        print(f"{os.path.join(arg, n)}: an unfinished dump (the run was cut short); skipped")
    if not found:
        raise SystemExit(f"check_dump: {arg}: no dumped case found")
    return found


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit("usage: check_dump.py DIR...")
    ok = True
    for folder in [c for a in sys.argv[1:] for c in cases(a)]:
        try:
            ok &= check(folder)
        except (BadDump, OSError, KeyError, ValueError, IndexError, AssertionError,
                MemoryError) as e:
            print(f"{folder}: FAIL: {e}")
            ok = False
        except Exception as e:   # whatever else a hostile file provokes: this case fails, the others go on
            print(f"{folder}: cannot be checked: {type(e).__name__}: {e}")
            ok = False
    sys.exit(0 if ok else 1)
