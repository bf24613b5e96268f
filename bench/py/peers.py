"""py_peers: the Fashion-MNIST input pipeline from Python, through inflow,
tf.data and PyTorch's DataLoader, beside the same pipeline driven from C++.

The pipeline is bench_pipeline's (bench/pipeline_bench.cc): Fashion-MNIST's
60000 training images as 4 TFRecord shards of tf.train.Examples (written
by `inflow convert fashion-mnist`, cached in --data), read -> parse
image_raw + label -> image to float32 in [0, 1] -> shuffle (10000) ->
batches of 128 -> a consumer that sums every batch's pixels and labels as
NumPy arrays (every byte is read, as bench_pipeline's consumer reads it).
The forms, all in one run:

  inflow       inflow.Pipeline (read_batch 128, raw_to_float, shuffle
               batching capacity 10000, min_after_dequeue 5000, seed 1: the
               options bench_pipeline's Pipeline side uses), 1 and 2 reader
               threads, each with the readers' niceness unchanged and
               raised by 5 (nice=5; "_nice5" forms);
  inflow_cpp   bench_pipeline's own figure (its JSON's samples_per_s: the
               Pipeline builder driven from C++, best of 1 and 2 threads),
               the better of its runs with --nice=0 and --nice=5;
  tf_data      the fastest idiomatic form: TFRecordDataset(num_parallel_
               reads=AUTOTUNE) -> shuffle(10000) -> batch(128) -> map(
               vectorized parse_example + decode_raw + cast, AUTOTUNE) ->
               prefetch(AUTOTUNE); and the per-example form (map(
               parse_single_example + decode, AUTOTUNE) before batch);
  dataset_python  inflow.data from Python, tf.data's vectorized form:
               TFRecordDataset -> shuffle(10000, seed 1) -> batch(128,
               drop_remainder) -> map(inflow.io.parse_example +
               decode_raw_to_float, traced (data.trace): run in C++
               without the GIL, 2 threads) -> prefetch(2) (not part of the
               "inflow" side, the Pipeline; "ratio_dataset_vs_tf_data"
               compares it with tf.data's best form);
  torch        torch.utils.data.DataLoader(batch_size 128, shuffle=True)
               over a map-style Dataset of the same records (an index of
               record offsets; __getitem__ parses the Example with
               protobuf's tf.train.Example class and returns a float
               tensor and the label), 0 and 2 worker processes; run in
               .venv-torch (Debian's python3-torch) as a subprocess.

Python's and C++'s figures come from different minutes of a machine that
may be shared, so each round also runs `bench_pipeline
--profile=pipeline:T --nice=N --epochs=E` (the C++ Pipeline alone, as
many epochs as the Python forms, so that the start weighs the same)
beside the Python forms: "ratio_vs_cpp_same_rounds" is the best over
(T, N) of the median per-round ratio of inflow's form with T readers and
nice N to it.

Each figure is the median over --rounds rounds (a different form first each
round) of samples delivered in full batches per second of wall time, the
pipeline's start included; a side's figure is its best form. Progress goes
to stderr; the last stdout line is
  {"bench": "py_peers", "samples_per_s": {"inflow": a, "inflow_cpp": p,
   "tf_data": b, "torch": c}, "ratio_vs_cpp": a/p, "ratio_vs_tf_data": a/b,
   "ratio_vs_torch": a/c, "ratio_dataset_vs_tf_data": d/b,
   "forms": {...every form's figure...},
   "ratio_vs_cpp_same_rounds": r, ...,
   "epochs": {...}, "rounds": n}
A missing peer gives null figures and ratios and a "<peer>_reason".

Run by `make bench-peers` with .venv's python (TensorFlow); --smoke: one
shard, one round, no warm-up (figures that mean nothing; the JSON line's
shape is checked by tests/py/test_py_peers.py).
"""
import argparse
import json
import mmap
import os
import pathlib
import shutil
import statistics
import struct
import subprocess
import sys
import time

# TensorFlow's C++ logging (the TFRecordDataset and end-of-sequence
# notes) would drown the progress lines.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# Every consumer runs on one thread, as bench_pipeline's C++ consumer does:
# NumPy's OpenBLAS would otherwise run the images' sgemv on a thread per core,
# whose spinning takes CPU from the readers being measured (the two-reader
# forms lost 5-10% to it on 2 cores).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402 (after OPENBLAS_NUM_THREADS)

ROOT = pathlib.Path(__file__).resolve().parents[2]
BATCH = 128
CAPACITY = 10000
MIN_AFTER_DEQUEUE = 5000
IMAGE_BYTES = 28 * 28
# The readers' niceness increments measured (inflow.Pipeline's nice).
NICES = (0, 5)
# The Pipeline forms, each run from Python and from C++: (readers, nice)
# and the suffix of their names ("2_readers_nice5").
PIPELINE_FORMS = [(readers, nice, ("1_reader" if readers == 1 else f"{readers}_readers")
                   + (f"_nice{nice}" if nice else ""))
                  for readers in (1, 2) for nice in NICES]


def log(message):
    print(f"peers.py: {message}", file=sys.stderr, flush=True)


_ONES = {}


def _ones(n, dtype):
    key = (n, dtype)
    ones = _ONES.get(key)
    if ones is None:
        ones = _ONES[key] = np.ones(n, dtype)
    return ones


def consume(images, labels):
    """What every consumer does with a batch: sums its pixels and labels
    (every byte is read), as bench_pipeline's vectorized consumer does.
    Three numpy.dot calls: the images times a vector of ones (BLAS sgemv,
    NumPy's fastest full read of a float32 matrix; x.sum() takes twice as
    long), that times ones, the labels times ones. np.dot goes straight to
    the dtype's dot function, without the ufunc machinery of .sum() (an
    iterator set up per call), which costs 4-5 us a batch more when the
    batch has just pushed the interpreter out of the caches (Zen 3, 512 KB
    of L2)."""
    rows, cols = images.shape
    sums = np.dot(images, _ones(cols, images.dtype))
    return (float(np.dot(sums, _ones(rows, sums.dtype))) +
            float(np.dot(labels, _ones(labels.shape[0], labels.dtype))))


def rate(run, epochs):
    """Samples per second of run(epochs), which returns (samples,
    checksum)."""
    t0 = time.perf_counter()
    samples, checksum = run(epochs)
    seconds = time.perf_counter() - t0
    return samples / seconds if seconds > 0 else 0.0, samples, checksum


# --- the shards ----------------------------------------------------------

def ensure_shards(inflow_bin, data_dir):
    """The 4 train shards in data_dir, written by `inflow convert` unless a
    complete earlier convert is there (its dataset.json, written last)."""
    summary = data_dir / "dataset.json"
    if summary.exists():
        splits = json.loads(summary.read_text())["splits"]
        shards = splits["train"]["shards"]
        if len(shards) == 4 and all(os.path.exists(s) for s in shards):
            log(f"reusing the shards in {data_dir}")
            return shards
    log(f"writing the shards into {data_dir} (inflow convert fashion-mnist)")
    data_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([str(inflow_bin), "convert", "fashion-mnist", "--out",
                           str(data_dir), "--shards", "4"],
                          stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"peers.py: inflow convert fashion-mnist failed (exit "
                 f"{proc.returncode}); is dataset-fashion-mnist installed "
                 "(scripts/install-deps)?")
    return json.loads(proc.stdout.strip().splitlines()[-1])["splits"]["train"]["shards"]


# --- inflow ----------------------------------------------------------------

def inflow_form(files, readers, nice):
    import inflow

    def run(epochs):
        pipeline = inflow.Pipeline(
            files, features={"image_raw": inflow.FixedLenFeature([], "string"),
                             "label": inflow.FixedLenFeature([], "int64")},
            raw_to_float={"image_raw": (IMAGE_BYTES, 1.0 / 255)},
            num_epochs=epochs, shuffle=True, seed=1, num_readers=readers,
            read_batch=BATCH, batch_size=BATCH, shuffle_batch=True,
            capacity=CAPACITY, min_after_dequeue=MIN_AFTER_DEQUEUE, nice=nice)
        samples, checksum = 0, 0.0
        for batch in pipeline:
            images, labels = batch["image_raw"], batch["label"]
            checksum += consume(images, labels)
            samples += images.shape[0]
        pipeline.close()
        return samples, checksum
    return run


def dataset_form(files):
    """inflow.data in tf.data's vectorized form (see the top)."""
    import inflow
    from inflow import data
    features = {"image_raw": inflow.FixedLenFeature([], "string"),
                "label": inflow.FixedLenFeature([], "int64")}

    @data.trace  # inflow's steps: run in C++ per batch, without the GIL
    def decode(records):
        parsed = inflow.io.parse_example(records, features)
        return (inflow.io.decode_raw_to_float(parsed["image_raw"], 1.0 / 255),
                parsed["label"])

    def run(epochs):
        ds = (data.TFRecordDataset(files).shuffle(CAPACITY, seed=1).repeat(epochs)
              .batch(BATCH, drop_remainder=True)
              .map(decode, num_parallel_calls=2).prefetch(2))
        samples, checksum = 0, 0.0
        for images, labels in ds:
            checksum += consume(images, labels)
            samples += images.shape[0]
        return samples, checksum
    return run


# --- tf.data ---------------------------------------------------------------

def tf_forms(files):
    import tensorflow as tf
    autotune = tf.data.AUTOTUNE
    spec = {"image_raw": tf.io.FixedLenFeature([], tf.string),
            "label": tf.io.FixedLenFeature([], tf.int64)}

    def decode(parsed):
        images = tf.io.decode_raw(parsed["image_raw"], tf.uint8)
        return tf.cast(images, tf.float32) * (1.0 / 255), parsed["label"]

    def fastest(epochs):
        ds = tf.data.TFRecordDataset(files, num_parallel_reads=autotune)
        ds = ds.repeat(epochs).shuffle(CAPACITY, seed=1)
        ds = ds.batch(BATCH, drop_remainder=True)
        ds = ds.map(lambda r: decode(tf.io.parse_example(r, spec)),
                    num_parallel_calls=autotune)
        return ds.prefetch(autotune)

    def per_example(epochs):
        ds = tf.data.TFRecordDataset(files, num_parallel_reads=autotune)
        ds = ds.repeat(epochs).shuffle(CAPACITY, seed=1)
        ds = ds.map(lambda r: decode(tf.io.parse_single_example(r, spec)),
                    num_parallel_calls=autotune)
        return ds.batch(BATCH, drop_remainder=True).prefetch(autotune)

    def runner(make):
        def run(epochs):
            samples, checksum = 0, 0.0
            for images, labels in make(epochs):
                images, labels = images.numpy(), labels.numpy()
                checksum += consume(images, labels)
                samples += images.shape[0]
            return samples, checksum
        return run
    return {"tf_data_vectorized": runner(fastest),
            "tf_data_per_example": runner(per_example)}


# --- PyTorch (run in .venv-torch: `peers.py --torch-side ...`) --------------

def record_index(files):
    """(file number, offset, length) of every record's data, from the
    TFRecord framing (length u64, its crc u32, data, data crc u32)."""
    index = []
    for f, path in enumerate(files):
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            offset = 0
            while offset < size:
                fh.seek(offset)
                (length,) = struct.unpack("<Q", fh.read(8))
                index.append((f, offset + 12, length))
                offset += 16 + length
    return index


def torch_side(args):
    import torch
    import torch.utils.data
    sys.path.insert(0, args.proto)
    from tensorflow.core.example import example_pb2

    class TFRecordExamples(torch.utils.data.Dataset):
        """The records of `files`, by index: (image float32 [784] in [0, 1],
        label)."""

        def __init__(self, files):
            self.files = files
            self.index = record_index(files)
            self.maps = None  # opened in the process that reads

        def __len__(self):
            return len(self.index)

        def __getitem__(self, i):
            if self.maps is None:
                self.maps = []
                for path in self.files:
                    with open(path, "rb") as fh:
                        self.maps.append(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
            f, offset, length = self.index[i]
            example = example_pb2.Example.FromString(self.maps[f][offset:offset + length])
            feature = example.features.feature
            raw = feature["image_raw"].bytes_list.value[0]
            image = torch.from_numpy(np.frombuffer(raw, np.uint8).astype(np.float32) / 255)
            return image, feature["label"].int64_list.value[0]

    dataset = TFRecordExamples(args.files)
    torch.manual_seed(1)

    def form(workers):
        def run(epochs):
            loader = torch.utils.data.DataLoader(
                dataset, batch_size=BATCH, shuffle=True, drop_last=True,
                num_workers=workers, persistent_workers=workers > 0)
            samples, checksum = 0, 0.0
            for _ in range(epochs):
                for images, labels in loader:
                    checksum += consume(images.numpy(), labels.numpy())
                    samples += images.shape[0]
            return samples, checksum
        return run

    forms = {"torch_workers_0": form(0), "torch_workers_2": form(2)}
    rates = {name: [] for name in forms}
    for r in range(args.rounds):
        names = list(forms)
        names = names[r % len(names):] + names[:r % len(names)]
        for name in names:
            value, samples, checksum = rate(forms[name], args.torch_epochs)
            rates[name].append(value)
            log(f"round {r}: {name:<22} {value:10.0f} samples/s ({samples} samples, "
                f"sum {checksum:.6g})")
    print(json.dumps({name: statistics.median(v) for name, v in rates.items()}))
    return 0


def torch_forms(files, args, proto_dir):
    """The torch side's figures from .venv-torch, or (None, reason)."""
    python = pathlib.Path(args.torch_python)
    if not python.exists():
        return None, (f"{python} is missing: scripts/install-deps installs "
                      "python3-torch and makes .venv-torch")
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PYTHONPATH")}
    cmd = [str(python), __file__, "--torch-side", "--proto", proto_dir,
           "--rounds", str(args.rounds), "--torch-epochs", str(args.torch_epochs),
           "--files", *files]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        return None, f"the torch side exited {proc.returncode} (its stderr is above)"
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def example_proto_classes(out_dir):
    """tf.train.Example's Python classes generated by protoc from
    TensorFlow's own .proto files into out_dir (for the torch side, which
    has protobuf but no TensorFlow); None and a reason when that fails."""
    import tensorflow as tf
    include = pathlib.Path(tf.sysconfig.get_include())
    protos = ["tensorflow/core/example/example.proto",
              "tensorflow/core/example/feature.proto"]
    if (out_dir / "tensorflow/core/example/example_pb2.py").exists():
        return str(out_dir), None
    protoc = shutil.which("protoc")
    if protoc is None:
        return None, "protoc is missing (scripts/install-deps installs protobuf-compiler)"
    out_dir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([protoc, f"-I{include}", f"--python_out={out_dir}", *protos],
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return None, f"protoc failed: {proc.stderr.strip()}"
    return str(out_dir), None


# --- C++ -------------------------------------------------------------------

def cpp_profile_form(bench_bin, readers, nice):
    """bench_pipeline --profile=pipeline:T --nice=N --epochs=E: the Pipeline
    side alone from C++, as many epochs as the Python forms (the start
    weighs the same), run in the rounds beside them (the same load), for
    the paired ratio."""
    def run(epochs):
        proc = subprocess.run([str(bench_bin), f"--profile=pipeline:{readers}",
                               f"--nice={nice}", f"--epochs={epochs}"],
                              stdout=subprocess.PIPE, text=True, check=True)
        # "pipeline, T thread(s), nice N: R samples/s, ..."
        value = float(proc.stdout.split(":")[1].split("samples/s")[0])
        return value, 0.0
    return run


def rate_of_profile(run, epochs):
    value, checksum = run(epochs)
    return value, 0, checksum


def cpp_figure(bench_bin, smoke):
    """bench_pipeline's figure: the better of its runs with each of NICES;
    (figure, that run's JSON line, {nice: figure}, reason)."""
    if not bench_bin.exists():
        return None, None, None, f"{bench_bin} is missing (build target bench_pipeline)"
    best, by_nice = None, {}
    for nice in NICES:
        args = [str(bench_bin), f"--nice={nice}"] + (["--smoke"] if smoke else [])
        log(f"running {' '.join(args)}")
        proc = subprocess.run(args, stdout=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            return None, None, None, f"bench_pipeline exited {proc.returncode}"
        line = json.loads(proc.stdout.strip().splitlines()[-1])
        by_nice[str(nice)] = round(float(line["samples_per_s"]))
        if best is None or line["samples_per_s"] > best["samples_per_s"]:
            best = line
    return float(best["samples_per_s"]), best, by_nice, None


# --- main ------------------------------------------------------------------

def ratio(a, b):
    return round(a / b, 3) if a and b else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=str(ROOT / "build" / "release"))
    p.add_argument("--data", default=None,
                   help="the shards' cache folder (default BUILD/bench_data/fashion_mnist)")
    p.add_argument("--torch-python", default=str(ROOT / ".venv-torch" / "bin" / "python"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--epochs", type=int, default=6, help="per inflow measurement")
    p.add_argument("--tf-epochs", type=int, default=2)
    p.add_argument("--torch-epochs", type=int, default=1)
    p.add_argument("--smoke", action="store_true")
    # The torch side (internal).
    p.add_argument("--torch-side", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--proto", help=argparse.SUPPRESS)
    p.add_argument("--files", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.torch_side:
        return torch_side(args)
    if args.smoke:
        args.rounds, args.epochs, args.tf_epochs, args.torch_epochs = 1, 1, 1, 1

    build = pathlib.Path(args.build)
    # The inflow of the build measured (and of its bench_pipeline), ahead of
    # any other on the path.
    sys.path.insert(0, str(build / "python"))
    data_dir = pathlib.Path(args.data) if args.data else build / "bench_data" / "fashion_mnist"
    files = ensure_shards(build / "bin" / "inflow", data_dir)
    if args.smoke:
        files = files[:1]  # 15000 records

    forms = {f"inflow_{suffix}": inflow_form(files, readers, nice)
             for readers, nice, suffix in PIPELINE_FORMS}
    forms["dataset_python"] = dataset_form(files)
    forms.update(tf_forms(files))
    epochs = {name: args.epochs if name.startswith(("inflow", "dataset"))
              else args.tf_epochs for name in forms}
    # Warm the page cache, the allocator and TensorFlow's tracing.
    for name, run in forms.items() if not args.smoke else ():
        log(f"warming up {name}")
        rate(run, 1)
    bench_bin = build / "bin" / "bench_pipeline"
    if bench_bin.exists() and not args.smoke:
        for readers, nice, suffix in PIPELINE_FORMS:
            forms[f"cpp_profile_{suffix}"] = cpp_profile_form(bench_bin, readers, nice)
    rates = {name: [] for name in forms}
    for r in range(args.rounds):
        names = list(forms)
        names = names[r % len(names):] + names[:r % len(names)]
        for name in names:
            if name.startswith("cpp_profile_"):
                value, samples, checksum = rate_of_profile(forms[name], args.epochs)
            else:
                value, samples, checksum = rate(forms[name], epochs[name])
            rates[name].append(value)
            log(f"round {r}: {name:<22} {value:10.0f} samples/s ({samples} samples, "
                f"sum {checksum:.6g})")
    # Per round, the Python Pipeline over the C++ one with as many readers
    # (both run under the same load); medians over the rounds.
    paired = {}
    for _, _, suffix in PIPELINE_FORMS:
        cpp_rates = rates.get(f"cpp_profile_{suffix}")
        if cpp_rates:
            paired[suffix] = round(statistics.median(
                a / c for a, c in zip(rates[f"inflow_{suffix}"], cpp_rates)), 3)
    figures = {name: statistics.median(v) for name, v in rates.items()
               if not name.startswith("cpp_profile_")}
    cpp_profile = {name[len("cpp_profile_"):]: round(statistics.median(v))
                   for name, v in rates.items() if name.startswith("cpp_profile_")}

    reasons = {}
    proto_dir, reason = example_proto_classes(data_dir / "proto")
    if proto_dir is None:
        torch_figures = None
    else:
        torch_figures, reason = torch_forms(files, args, proto_dir)
    if torch_figures is None:
        reasons["torch_reason"] = reason
        log(f"no torch figure: {reason}")
    else:
        figures.update(torch_figures)

    cpp, cpp_line, cpp_by_nice, reason = cpp_figure(build / "bin" / "bench_pipeline",
                                                    args.smoke)
    if cpp is None:
        reasons["inflow_cpp_reason"] = reason
        log(f"no C++ figure: {reason}")

    def best(prefix):
        values = [v for k, v in figures.items() if k.startswith(prefix)]
        return round(max(values)) if values else None

    a, b, c = best("inflow_"), best("tf_data_"), best("torch_")
    p_ = round(cpp) if cpp else None
    out = {"bench": "py_peers",
           "samples_per_s": {"inflow": a, "inflow_cpp": p_, "tf_data": b, "torch": c},
           "ratio_vs_cpp": ratio(a, p_), "ratio_vs_tf_data": ratio(a, b),
           "ratio_vs_torch": ratio(a, c),
           "ratio_dataset_vs_tf_data": ratio(round(figures["dataset_python"]), b),
           "forms": {k: round(v) for k, v in figures.items()},
           "inflow_cpp_by_threads": cpp_line.get("by_threads") if cpp_line else None,
           "inflow_cpp_nice": cpp_line.get("nice") if cpp_line else None,
           "inflow_cpp_by_nice": cpp_by_nice,
           "ratio_vs_cpp_same_rounds": max(paired.values()) if paired else None,
           "ratio_vs_cpp_same_rounds_by_form": paired or None,
           "cpp_same_rounds_by_form": cpp_profile or None,
           "epochs": {"inflow": args.epochs, "tf_data": args.tf_epochs,
                      "torch": args.torch_epochs},
           "rounds": args.rounds}
    out.update(reasons)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
