#!/usr/bin/env python3
"""tools/check_dump.py DIR... - checks `bench --suite train --dump DIR` folders
independently of bench: recomputes the dumped step (forward, mean softmax
cross-entropy, backward, plain SGD) in float64 NumPy from param/, input.npy,
labels.npy and lr.txt, as PyTorch defines the modules (Conv2d(3x3, padding=1),
ReLU, MaxPool2d(2), Linear, CrossEntropyLoss, SGD), and compares loss.npy,
grad/ and updated/. Uses PyTorch instead when it is installed.
Optional tooling: the suite itself needs no Python. Exit 1 on a mismatch, 2
(one line naming it and how to install it) without NumPy."""
import os
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


def check(folder):
    model = open(os.path.join(folder, "model.txt")).read().strip()
    lr = float(open(os.path.join(folder, "lr.txt")).read())
    x = np.load(os.path.join(folder, "input.npy"))
    y = np.load(os.path.join(folder, "labels.npy"))
    assert x.dtype == np.float32 and y.dtype == np.int64
    names = sorted(f[:-4] for f in os.listdir(os.path.join(folder, "param")))
    p = {n: np.load(os.path.join(folder, "param", n + ".npy")).astype(np.float64) for n in names}
    loss, g, upd = step(model, p, x, y, lr)
    worst = abs(float(np.load(os.path.join(folder, "loss.npy"))) - loss) / loss
    bad = worst > 1e-5
    print(f"{folder}: loss {loss:.7g} (rel {worst:.2e})")
    for sub, want in (("grad", g), ("updated", upd)):
        for n in names:
            got = np.load(os.path.join(folder, sub, n + ".npy"))
            assert got.dtype == np.float32 and got.shape == want[n].shape, (sub, n, got.shape)
            e = rel(got, want[n])
            bad |= e > 1e-4
            print(f"  {sub}/{n:14s} {str(got.shape):18s} rel {e:.2e}{'  MISMATCH' if e > 1e-4 else ''}")
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
        except (OSError, KeyError, ValueError, AssertionError) as e:
            print(f"{folder}: incomplete or not a dump: {e}")
            ok = False
    sys.exit(0 if ok else 1)
