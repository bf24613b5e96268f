"""Seed 000's program in Python: a queue-fed training loop, TF 1.x style.

Two QueueRunner threads make random batches (128 x 1024 float32, labels in
0..9) with a Python callable each and enqueue them into an
inflow.FIFOQueue; the training loop dequeues them (NumPy arrays over
inflow's buffers, no copy) and trains a net of two 1024-unit ReLU layers
with Adam, printing the loss every --log-every steps and the time taken.
The labels are random, so the loss only shows that the loop runs; the
queue keeps the model from waiting for data (the callables run while the
model's matrix products hold no GIL).

The model is NumPy's, or PyTorch's when torch imports (--backend auto,
the default; PyTorch is in .venv-torch, see docs/python.md "PyTorch"):

  .venv/bin/python examples/py/seed000_queue_fed.py [--steps 2000]
  .venv-torch/bin/python examples/py/seed000_queue_fed.py --backend torch
"""
import argparse
import sys
import time

import numpy as np

import inflow

BATCH, INPUTS, HIDDEN, CLASSES = 128, 1024, 1024, 10


def random_batches(seed):
    """An enqueue op: each call makes one batch (x, y) to enqueue."""
    rng = np.random.default_rng(seed)

    def make_batch():
        x = rng.standard_normal((BATCH, INPUTS), dtype=np.float32)
        y = rng.integers(0, CLASSES, BATCH, dtype=np.int64)
        return [x, y]
    return make_batch


class NumpyNet:
    """1024 -> 1024 -> 1024 -> 10, ReLU, softmax cross-entropy (mean over
    the batch), Adam (lr 0.001, TF's defaults), in NumPy float32."""

    def __init__(self, seed=0, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
        rng = np.random.default_rng(seed)
        sizes = [INPUTS, HIDDEN, HIDDEN, CLASSES]
        self.params = []
        for fan_in, fan_out in zip(sizes, sizes[1:]):
            limit = np.sqrt(6.0 / (fan_in + fan_out))  # Glorot uniform
            self.params.append(rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32))
            self.params.append(np.zeros(fan_out, np.float32))
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.t = 0

    def step(self, x, y):
        w1, b1, w2, b2, w3, b3 = self.params
        h1 = np.maximum(x @ w1 + b1, 0)
        h2 = np.maximum(h1 @ w2 + b2, 0)
        logits = h2 @ w3 + b3
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        n = x.shape[0]
        loss = -np.log(p[np.arange(n), y] + 1e-30).mean()
        d = p
        d[np.arange(n), y] -= 1
        d /= n
        g3, gb3 = h2.T @ d, d.sum(0)
        d = (d @ w3.T) * (h2 > 0)
        g2, gb2 = h1.T @ d, d.sum(0)
        d = (d @ w2.T) * (h1 > 0)
        g1, gb1 = x.T @ d, d.sum(0)
        self.t += 1
        # TF's Adam: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t).
        lr_t = self.lr * np.sqrt(1 - self.beta2 ** self.t) / (1 - self.beta1 ** self.t)
        for p_, g, m, v in zip(self.params, [g1, gb1, g2, gb2, g3, gb3], self.m, self.v):
            m *= self.beta1
            m += (1 - self.beta1) * g
            v *= self.beta2
            v += (1 - self.beta2) * g * g
            p_ -= lr_t * m / (np.sqrt(v) + self.eps)
        return float(loss)


class TorchNet:
    """The same net and optimizer in PyTorch; the batches reach it through
    inflow.torch.to_torch (torch.from_numpy, no copy)."""

    def __init__(self, seed=0):
        import torch
        from inflow.torch import to_torch
        torch.manual_seed(seed)
        self.torch, self.to_torch = torch, to_torch
        self.model = torch.nn.Sequential(
            torch.nn.Linear(INPUTS, HIDDEN), torch.nn.ReLU(),
            torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(),
            torch.nn.Linear(HIDDEN, CLASSES))
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def step(self, x, y):
        x, y = self.to_torch((x, y))
        loss = self.torch.nn.functional.cross_entropy(self.model(x), y)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        return float(loss)


def make_model(backend):
    if backend in ("auto", "torch"):
        try:
            return TorchNet(), "torch"
        except ImportError:
            if backend == "torch":
                raise
    return NumpyNet(), "numpy"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--log-every", type=int, default=500)
    p.add_argument("--backend", choices=["auto", "numpy", "torch"], default="auto")
    args = p.parse_args()
    if args.steps < 1 or args.log_every < 1:
        p.error("--steps and --log-every must be >= 1")

    queue = inflow.FIFOQueue(capacity=8, dtypes=[np.float32, np.int64],
                             shapes=[[BATCH, INPUTS], [BATCH]])
    runner = inflow.train.QueueRunner(queue, [random_batches(1), random_batches(2)])
    model, backend = make_model(args.backend)
    print(f"model: {backend}")

    start = time.perf_counter()
    coord = inflow.train.Coordinator()
    threads = runner.create_threads(coord=coord, start=True)
    try:
        for step in range(1, args.steps + 1):
            if coord.should_stop():
                break
            x, y = queue.dequeue()
            loss = model.step(x, y)
            if step % args.log_every == 0:
                print(f"step {step}: loss {loss:.4f}", flush=True)
    except Exception as e:  # noqa: BLE001  TF1's pattern: stop the threads
        coord.request_stop(e)
    finally:
        # The runner's closer thread then cancels the pending enqueues.
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    secs = time.perf_counter() - start
    print(f"{args.steps} steps in {secs:.2f} s ({args.steps / secs:.1f} steps/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
