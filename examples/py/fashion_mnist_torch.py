"""Fashion-MNIST from TFRecord shards into a PyTorch training loop, TF 1.x
style: string_input_producer -> TFRecordReader -> parse_single_example ->
decode_raw_to_float -> shuffle_batch (2 threads), the batches handed to
PyTorch without a copy (inflow.torch.to_torch), an inflow Saver keeping the
model, Adam's slots and global_step in TensorFlow's V2 checkpoints, and
resume: a second run with more --steps continues at the saved step. Ends
with the test accuracy over the test shards (an inflow.Pipeline).

  .venv-torch/bin/python examples/py/fashion_mnist_torch.py --ckpt-dir /tmp/fm \\
      --steps 1000 [--data data/fashion-mnist] [--save-every 500]
  # again with --steps 2000: resumes at step 1000

--data is `inflow convert fashion-mnist`'s output folder; when it has no
dataset.json the program runs that convert first (--inflow names the CLI).
PyTorch is Debian's python3-torch: run it with .venv-torch's python
(docs/python.md "PyTorch").
"""
import argparse
import glob
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import torch

import inflow
from inflow.torch import to_torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
FEATURES = {"image_raw": inflow.FixedLenFeature([], "string"),
            "label": inflow.FixedLenFeature([], "int64")}


def ensure_data(data, inflow_bin):
    if not (data / "dataset.json").exists():
        print(f"writing the shards into {data} ({inflow_bin} convert fashion-mnist)",
              flush=True)
        subprocess.run([str(inflow_bin), "convert", "fashion-mnist", "--out", str(data),
                        "--shards", "4"], check=True, stdout=subprocess.DEVNULL)
    return (sorted(glob.glob(str(data / "train-*.tfrecord"))),
            sorted(glob.glob(str(data / "test-*.tfrecord"))))


def input_batches(files, batch_size, seed):
    """TF1's input pipeline: the batches' BatchOutput (dequeue() gives
    [images float32 [batch, 784], labels int64 [batch]])."""
    filename_queue = inflow.train.string_input_producer(files, seed=seed)
    reader = inflow.TFRecordReader()
    _, serialized = reader.read(filename_queue)
    features = inflow.parse_single_example(serialized, FEATURES)
    image = inflow.decode_raw_to_float(features["image_raw"], 1 / 255)
    image.set_shape([784])
    return inflow.train.shuffle_batch(
        [image, features["label"]], batch_size=batch_size, capacity=10000 + 3 * batch_size,
        min_after_dequeue=10000, num_threads=2, seed=seed)


def make_model():
    return torch.nn.Sequential(
        torch.nn.Linear(784, 625), torch.nn.ReLU(), torch.nn.Dropout(0.5),
        torch.nn.Linear(625, 625), torch.nn.ReLU(), torch.nn.Dropout(0.5),
        torch.nn.Linear(625, 10))


def saved_state(model, optimizer, global_step):
    """Everything the Saver keeps, as NumPy views of the live tensors (so
    that save() reads and restore() writes them in place): the weights,
    Adam's slots (created here, as Adam would at its first step) and
    global_step."""
    arrays = {"global_step": global_step}
    for name, p in model.named_parameters():
        state = optimizer.state[p]
        if not state:
            state["step"] = torch.tensor(0.0)
            state["exp_avg"] = torch.zeros_like(p)
            state["exp_avg_sq"] = torch.zeros_like(p)
        arrays[name] = p.detach().numpy()
        for slot in ("step", "exp_avg", "exp_avg_sq"):
            arrays[f"{name}/Adam/{slot}"] = state[slot].numpy()
    return arrays


def test_accuracy(model, files):
    model.eval()
    correct = total = 0
    with torch.no_grad(), inflow.Pipeline(
            files, features=FEATURES, raw_to_float={"image_raw": (784, 1 / 255)},
            num_epochs=1, shuffle=False, batch_size=1000,
            allow_smaller_final_batch=True) as batches:
        for batch in inflow.torch.IterableDataset(batches):
            predicted = model(batch["image_raw"]).argmax(dim=1)
            correct += int((predicted == batch["label"]).sum())
            total += batch["label"].shape[0]
    model.train()
    return correct / total


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ckpt-dir", required=True)
    p.add_argument("--steps", type=int, default=2000, help="global step to train to")
    p.add_argument("--data", default=str(ROOT / "data" / "fashion-mnist"))
    p.add_argument("--inflow", default=str(ROOT / "build" / "release" / "bin" / "inflow"))
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--save-every", type=int, default=500)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    train_files, test_files = ensure_data(pathlib.Path(args.data), args.inflow)

    torch.manual_seed(args.seed)
    model = make_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    global_step = np.zeros((), np.int64)
    saver = inflow.train.Saver(saved_state(model, optimizer, global_step), max_to_keep=3)
    os.makedirs(args.ckpt_dir, exist_ok=True)
    latest = inflow.train.latest_checkpoint(args.ckpt_dir)
    if latest is not None:
        saver.restore(latest)
        print(f"resumed from {latest} at step {int(global_step)}", flush=True)

    batches = input_batches(train_files, args.batch_size, args.seed + int(global_step))
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    start, first = time.perf_counter(), int(global_step)
    try:
        while int(global_step) < args.steps and not coord.should_stop():
            images, labels = to_torch(batches.dequeue())
            loss = torch.nn.functional.cross_entropy(model(images), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            global_step[...] += 1
            step = int(global_step)
            if step % args.log_every == 0:
                print(f"step {step}: loss {loss.item():.4f}", flush=True)
            if step % args.save_every == 0:
                saver.save(os.path.join(args.ckpt_dir, "model.ckpt"), global_step=step)
    except Exception as e:  # noqa: BLE001  TF1's pattern: stop the threads
        coord.request_stop(e)
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    step = int(global_step)
    path = saver.save(os.path.join(args.ckpt_dir, "model.ckpt"), global_step=step)
    secs = time.perf_counter() - start
    accuracy = test_accuracy(model, test_files)
    print(json.dumps({"step": step, "steps_run": step - first, "seconds": round(secs, 2),
                      "checkpoint": path, "test_accuracy": round(accuracy, 4)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
