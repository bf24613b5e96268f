"""The torch side of bench_train_vs_torch: the same model and step in PyTorch.

784-625-625-10 MLP, ReLU, dropout (keep 0.8 on the input, 0.5 on the hidden
layers, as torch.nn.functional.dropout), softmax cross-entropy (mean over
the batch), weights N(0, 0.01), zero biases, RMSProp(lr 0.001, alpha 0.9,
eps 1e-10), one thread. The batches are Fashion-MNIST's first `--images`
training images scaled to [0, 1] (random uniform pixels when the dataset is
missing), taken in order and cycled, as the C++ side takes them.

Prints one JSON line: {"steps_per_s": x, "cpu_steps_per_s": per second of
the process's CPU time, "steps": n, "final_loss": l}.
Exit 3 with a message on stderr when torch cannot be imported.
"""
import argparse
import gzip
import json
import os
import sys
import time


def load(dataset, limit):
    import numpy as np
    images = os.path.join(dataset, "train-images-idx3-ubyte.gz")
    labels = os.path.join(dataset, "train-labels-idx1-ubyte.gz")
    if not (os.path.exists(images) and os.path.exists(labels)):
        rng = np.random.default_rng(0)
        return (rng.random((limit, 784), dtype=np.float32),
                rng.integers(0, 10, limit).astype(np.int64))
    with gzip.open(images, "rb") as f:
        x = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784)[:limit]
    with gzip.open(labels, "rb") as f:
        y = np.frombuffer(f.read(), dtype=np.uint8, offset=8)[:limit]
    return x.astype(np.float32) / 255.0, y.astype(np.int64)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--images", type=int, default=12800)
    p.add_argument("--dataset", default="/usr/share/datasets/fashion-mnist")
    args = p.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"train_torch.py: torch cannot be imported: {e}", file=sys.stderr)
        sys.exit(3)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x, y = load(args.dataset, args.images)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    sizes = [784, 625, 625, 10]
    params = []
    for i in range(3):
        params.append(torch.nn.Parameter(torch.randn(sizes[i], sizes[i + 1]) * 0.01))
        params.append(torch.nn.Parameter(torch.zeros(sizes[i + 1])))
    opt = torch.optim.RMSprop(params, lr=0.001, alpha=0.9, eps=1e-10)
    batches = x.shape[0] // args.batch

    def step(k):
        b = k % batches
        xb = x[b * args.batch:(b + 1) * args.batch]
        yb = y[b * args.batch:(b + 1) * args.batch]
        h = F.dropout(xb, 0.2, training=True)
        h = F.dropout(F.relu(h @ params[0] + params[1]), 0.5, training=True)
        h = F.dropout(F.relu(h @ params[2] + params[3]), 0.5, training=True)
        loss = F.cross_entropy(h @ params[4] + params[5], yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    for k in range(args.warmup):
        step(k)
    start, cpu_start = time.perf_counter(), time.process_time()
    for k in range(args.steps):
        loss = step(args.warmup + k)
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(json.dumps({"steps_per_s": args.steps / elapsed,
                      "cpu_steps_per_s": args.steps / cpu, "steps": args.steps,
                      "final_loss": float(loss)}))


if __name__ == "__main__":
    main()
