"""sequence_peers: one Keras-style Sequence through inflow's OrderedEnqueuer,
Keras 3's PyDataset enqueuer and PyTorch's DataLoader, beside a plain loop.

The Sequence: Fashion-MNIST's 60000 training images (Debian's
dataset-fashion-mnist, read with NumPy), batch i = images [128 i, 128 i +
128) through a CPU-heavy transform in NumPy: uint8 28x28 to float32, pad
by 2 and a random 28x28 crop (drawn from a generator seeded with i),
a horizontal flip of every other batch, each image standardised to mean 0
and deviation 1. The consumer sums each batch (every byte is read). The
forms, all in one run:

  plain                 a loop calling __getitem__ on the main thread;
  plain_2_processes     the limit for two worker processes: two forked
                        processes each running the plain loop over half
                        of the batches (nothing handed anywhere);
  inflow_threads_2      inflow.utils.OrderedEnqueuer, 2 thread workers;
  inflow_processes_2    the same with use_multiprocessing=True (2 worker
                        processes, batches through shared memory);
  keras_threads_1/2     keras.utils.PyDataset(workers=1/2) through Keras's
                        own adapter (PyDatasetAdapter.get_numpy_iterator);
  keras_processes_2     the same with use_multiprocessing=True;
  torch_workers_0/1/2   torch.utils.data.DataLoader(batch_size=None,
                        num_workers=0/1/2) over a map-style Dataset with the
                        same __getitem__ (run in .venv-torch, Debian's
                        python3-torch, as a subprocess).

The hand-off (handoff_figures()): a Sequence whose __getitem__ returns a
ready 400 KB float32 array, through inflow's enqueuer with worker
processes. transfer_us_per_mb: one worker, the consumer summing each batch:
its wall time per batch over the batch's MB; handoff_us: the same with a
consumer that reads one element of each batch, us per batch (the hand-off
alone); consumer_sum_us: the consumer's sum of a batch by itself;
start_ms: start(workers=2) to the first batch. Each the median of 5 runs
(of 2000 batches for the first two).

Each figure is the median over --rounds rounds (a different form first each
round) of batches per second of wall time over --epochs epochs (the
enqueuer's start included); a side's figure is its best form. Progress
goes to stderr; the last stdout line is
  {"bench": "sequence", "batches_per_s": {"plain": .., "inflow": ..,
   "keras": .., "torch": ..}, "ratio_vs_keras": .., "ratio_vs_torch": ..,
   "ratio_vs_plain": .., "processes_vs_limit": .., "transfer_us_per_mb": ..,
   "handoff_us": .., "consumer_sum_us": .., "start_ms": .., "forms": {...},
   "rounds": n}
where "inflow" is the best of inflow's forms. --smoke: 1 round over a
tenth of an epoch (figures that mean nothing).
"""
import argparse
import gzip
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATASET = pathlib.Path("/usr/share/datasets/fashion-mnist")
BATCH = 128


def log(message):
    print(f"sequence_peers.py: {message}", file=sys.stderr, flush=True)


def load_fashion_mnist(limit=None):
    """(images uint8 [n, 28, 28], labels int64 [n]) from the IDX files."""
    import numpy as np
    with gzip.open(DATASET / "train-images-idx3-ubyte.gz", "rb") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
    with gzip.open(DATASET / "train-labels-idx1-ubyte.gz", "rb") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    if limit is not None:
        images, labels = images[:limit], labels[:limit]
    return images, labels


class Transform:
    """Batch i of the images, transformed (see the top of this file). A
    plain class with __len__ and __getitem__, which each side wraps in its
    own base class."""

    def __init__(self, images, labels, batch=BATCH):
        self.images, self.labels, self.batch = images, labels, batch

    def __len__(self):
        return len(self.images) // self.batch

    def __getitem__(self, i):
        import numpy as np
        rng = np.random.default_rng(i)
        x = self.images[i * self.batch:(i + 1) * self.batch].astype(np.float32)
        x = np.pad(x, ((0, 0), (2, 2), (2, 2)))
        dy, dx = rng.integers(0, 5, size=2)
        x = x[:, dy:dy + 28, dx:dx + 28]
        if i % 2:
            x = x[:, :, ::-1]
        mean = x.mean(axis=(1, 2), keepdims=True)
        std = x.std(axis=(1, 2), keepdims=True) + 1e-6
        x = np.ascontiguousarray((x - mean) / std, dtype=np.float32)
        return x, self.labels[i * self.batch:(i + 1) * self.batch]


class Ready:
    """A Sequence of ready 400 KB batches (for the hand-off figure)."""

    def __init__(self, n=200):
        import numpy as np
        self.n = n
        self.x = np.ones((BATCH, 28, 28), np.float32)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.x


def consume(batch):
    x = batch[0] if isinstance(batch, (tuple, list)) else batch
    return float(x.sum())


def timed(batches_of, epochs, per_epoch):
    """Batches per second of consuming epochs * per_epoch batches from
    batches_of(epochs), an iterator."""
    t0 = time.perf_counter()
    it = batches_of(epochs)
    total, checksum = 0, 0.0
    for batch in it:
        checksum += consume(batch)
        total += 1
        if total == epochs * per_epoch:
            break
    seconds = time.perf_counter() - t0
    close = getattr(it, "close", None)
    if close is not None:
        close()
    return total / seconds if seconds > 0 else 0.0


def median_rates(forms, rounds, epochs, per_epoch):
    """{name: median batches/s} of each form over `rounds` rounds, a
    different form first each round."""
    rates = {name: [] for name in forms}
    for r in range(rounds):
        names = list(forms)
        names = names[r % len(names):] + names[:r % len(names)]
        for name in names:
            value = timed(forms[name], epochs, per_epoch)
            rates[name].append(value)
            log(f"round {r}: {name:<22} {value:8.1f} batches/s")
    return {name: statistics.median(v) for name, v in rates.items()}


# --- the forms ---------------------------------------------------------------

def plain_form(seq):
    def batches(epochs):
        for _ in range(epochs):
            for i in range(len(seq)):
                yield seq[i]
    return batches


def parallel_plain_form(seq, processes):
    """The limit for `processes` worker processes: each forked process runs
    the plain loop over its share of the epoch's batches, consuming them
    itself (nothing is handed anywhere); the figure is the epoch's batches
    over the wall time until the last process is done. It then yields
    placeholders for timed() to count."""
    import multiprocessing
    import numpy as np

    def run(lo, hi):
        batch = None
        for i in range(lo, hi):
            batch = seq[i % len(seq)]  # the previous one dropped after, as in timed()
            consume(batch)

    def batches(epochs):
        ctx = multiprocessing.get_context("fork")
        n = epochs * len(seq)
        shares = [(k * n // processes, (k + 1) * n // processes) for k in range(processes)]
        procs = [ctx.Process(target=run, args=share) for share in shares]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
            if p.exitcode != 0:
                raise RuntimeError(f"a plain-loop process exited {p.exitcode}")
        placeholder = (np.zeros(1, np.float32),)
        for _ in range(n):
            yield placeholder
    return batches


def inflow_form(seq, workers, processes):
    import inflow.utils

    class Seq(inflow.utils.Sequence):
        def __len__(self):
            return len(seq)

        def __getitem__(self, i):
            return seq[i]

    def batches(epochs):
        del epochs  # get() is endless; timed() stops it
        enqueuer = inflow.utils.OrderedEnqueuer(Seq(), use_multiprocessing=processes)
        enqueuer.start(workers=workers, max_queue_size=10)
        try:
            yield from enqueuer.get()
        finally:
            enqueuer.stop()
    return batches


def keras_form(seq, workers, processes):
    import keras
    from keras.src.trainers.data_adapters.py_dataset_adapter import PyDatasetAdapter

    class Seq(keras.utils.PyDataset):
        def __init__(self):
            super().__init__(workers=workers, use_multiprocessing=processes,
                             max_queue_size=10)

        def __len__(self):
            return len(seq)

        def __getitem__(self, i):
            return seq[i]

    def batches(epochs):
        adapter = PyDatasetAdapter(Seq(), shuffle=False)
        for _ in range(epochs):
            yield from adapter.get_numpy_iterator()
            adapter.on_epoch_end()
    return batches


def torch_side(args):
    """Run in .venv-torch: the DataLoader forms' medians as a JSON line."""
    import torch.utils.data
    images, labels = load_fashion_mnist(args.limit)
    seq = Transform(images, labels)

    class Data(torch.utils.data.Dataset):
        def __len__(self):
            return len(seq)

        def __getitem__(self, i):
            return seq[i]

    def form(workers):
        def batches(epochs):
            loader = torch.utils.data.DataLoader(
                Data(), batch_size=None, num_workers=workers,
                persistent_workers=workers > 0)
            for _ in range(epochs):
                for x, y in loader:
                    yield x.numpy(), y.numpy()
        return batches

    forms = {f"torch_workers_{w}": form(w) for w in (0, 1, 2)}
    print(json.dumps(median_rates(forms, args.rounds, args.epochs, len(seq))))
    return 0


def torch_forms(args):
    python = pathlib.Path(args.torch_python)
    if not python.exists():
        return None, f"{python} is missing: scripts/install-deps makes .venv-torch"
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PYTHONPATH")}
    cmd = [str(python), __file__, "--torch-side", "--rounds", str(args.rounds),
           "--epochs", str(args.epochs)]
    if args.limit is not None:
        cmd += ["--limit", str(args.limit)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        return None, f"the torch side exited {proc.returncode} (its stderr is above)"
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def handoff_figures():
    """The hand-off of ready 400 KB batches from worker processes to the
    consumer through inflow's enqueuer, each the median of 5 runs:

      transfer_us_per_mb  one worker, 2000 batches (about 0.1 s: a shorter
                          run is at the mercy of one scheduling delay)
                          within one epoch, the consumer summing each
                          batch: its wall time per batch over the batch's MB;
      handoff_us          the same with a consumer that reads one element
                          of each batch (the hand-off alone): wall us per
                          batch;
      consumer_sum_us     the consumer's sum of one 400 KB batch, alone (the
                          part of transfer_us_per_mb that is the consumer's
                          own work);
      start_ms            start(workers=2) to the first batch: two worker
                          processes forked from this one, the first
                          __getitem__ and its hand-off.
    """
    import numpy as np
    import inflow.utils
    measured = 2000
    ready = Ready(n=measured + 100)

    class Seq(inflow.utils.Sequence):
        def __len__(self):
            return len(ready)

        def __getitem__(self, i):
            return ready[i]

    def wall_per_batch(take):
        enqueuer = inflow.utils.OrderedEnqueuer(Seq(), use_multiprocessing=True)
        enqueuer.start(workers=1, max_queue_size=10)
        try:
            it = enqueuer.get()
            for _ in range(20):  # warm: the worker's start, the first blocks
                next(it)
            t0 = time.perf_counter()
            for _ in range(measured):
                take(next(it))
            return (time.perf_counter() - t0) / measured
        finally:
            enqueuer.stop()

    def start_seconds():
        enqueuer = inflow.utils.OrderedEnqueuer(Seq(), use_multiprocessing=True)
        t0 = time.perf_counter()
        enqueuer.start(workers=2, max_queue_size=10)
        try:
            next(enqueuer.get())
            return time.perf_counter() - t0
        finally:
            enqueuer.stop()

    mb = ready.x.nbytes / 1e6
    summed, alone, starts = [], [], []
    for _ in range(5):  # the two consumers alternated
        summed.append(wall_per_batch(consume))
        alone.append(wall_per_batch(lambda batch: float(batch[0, 0, 0])))
        starts.append(start_seconds())
    x = np.ones_like(ready.x)
    sums = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(200):
            consume(x)
        sums.append((time.perf_counter() - t0) / 200)
    return {"transfer_us_per_mb": round(statistics.median(summed) * 1e6 / mb, 1),
            "handoff_us": round(statistics.median(alone) * 1e6, 1),
            "consumer_sum_us": round(statistics.median(sums) * 1e6, 1),
            "start_ms": round(statistics.median(starts) * 1e3, 1)}


# --- main --------------------------------------------------------------------

def ratio(a, b):
    return round(a / b, 3) if a and b else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=str(ROOT / "build" / "release"))
    p.add_argument("--torch-python", default=str(ROOT / ".venv-torch" / "bin" / "python"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--limit", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--torch-side", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.limit = 1, 6000
    if args.torch_side:
        return torch_side(args)
    sys.path.insert(0, str(pathlib.Path(args.build) / "python"))

    images, labels = load_fashion_mnist(args.limit)
    seq = Transform(images, labels)
    forms = {"plain": plain_form(seq),
             "plain_2_processes": parallel_plain_form(seq, 2),
             "inflow_threads_2": inflow_form(seq, 2, False),
             "inflow_processes_2": inflow_form(seq, 2, True),
             "keras_threads_1": keras_form(seq, 1, False),
             "keras_threads_2": keras_form(seq, 2, False),
             "keras_processes_2": keras_form(seq, 2, True)}
    figures = {name: round(v, 1) for name, v in
               median_rates(forms, args.rounds, args.epochs, len(seq)).items()}
    torch, torch_reason = torch_forms(args)
    if torch is not None:
        figures.update({name: round(v, 1) for name, v in torch.items()})

    def best(prefix):
        values = [v for name, v in figures.items() if name.startswith(prefix)]
        return max(values) if values else None

    sides = {"plain": figures["plain"], "plain_2_processes": figures["plain_2_processes"],
             "inflow": best("inflow_"),
             "keras": best("keras_"), "torch": best("torch_")}
    line = {"bench": "sequence", "batches_per_s": sides,
            "ratio_vs_keras": ratio(sides["inflow"], sides["keras"]),
            "ratio_vs_torch": ratio(sides["inflow"], sides["torch"]),
            "ratio_vs_plain": ratio(sides["inflow"], sides["plain"]),
            "processes_vs_limit": ratio(figures["inflow_processes_2"],
                                        sides["plain_2_processes"]),
            **handoff_figures(),
            "forms": figures, "rounds": args.rounds}
    if torch_reason:
        line["torch_reason"] = torch_reason
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
