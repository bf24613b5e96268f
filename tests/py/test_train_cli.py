"""`inflow train` and `inflow eval` on a slice of Fashion-MNIST (2560 train
and 1000 test images, converted with `inflow convert npy`):

  - the last line of stdout is the summary JSON, also in summary.json;
  - TensorFlow's tf.compat.v1.train.summary_iterator reads the event files
    (file_version first, the loss/queue/throughput/input-wait scalars and
    the accuracy);
  - TensorFlow loads the .meta beside a checkpoint (import_meta_graph,
    saver.restore, sess.run) and computes inflow's test predictions to
    1e-5, and the accuracy `inflow eval` reports;
  - SIGINT stops the run with a final checkpoint within 2 s; a second
    SIGINT during the stop exits at once (130);
  - errors named before training: a missing data folder, a checkpoint of
    another shape.
"""
import glob
import json
import os
import re
import signal
import subprocess
import time

import numpy as np
import pytest
import tensorflow as tf

from conftest import fashion_shards

tf1 = tf.compat.v1
@pytest.fixture(scope="module")
def data(tmp_path_factory, run_inflow):
    return fashion_shards(tmp_path_factory.mktemp("fashion_slice"), run_inflow, 2560, 1000)


@pytest.fixture(scope="module")
def trained(data, tmp_path_factory, run_inflow):
    out = tmp_path_factory.mktemp("run")
    proc = run_inflow("train", "--data", data, "--steps", "60", "--seed", "3",
                      "--ckpt-dir", out / "ckpt", "--save-every", "25",
                      "--logdir", out / "logs")
    return out, proc


def test_the_last_stdout_line_is_the_summary_json_also_in_summary_json(trained):
    out, proc = trained
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(summary) == {"steps", "epochs", "test_accuracy", "steps_per_s",
                            "examples_per_s", "input_wait_fraction", "feed"}
    assert summary["steps"] == 60 and summary["feed"] == "queue"
    assert summary["epochs"] == 3.0  # 60 steps of the 20 an epoch has
    assert 0 <= summary["input_wait_fraction"] <= 1
    assert json.loads((out / "ckpt" / "summary.json").read_text()) == summary
    # Checkpoints at 25, 50 and the end, each with its .meta; the state
    # file names the last, as tf.train.latest_checkpoint reads it.
    for step in (25, 50, 60):
        assert (out / "ckpt" / f"model.ckpt-{step}.meta").exists()
    assert tf.train.latest_checkpoint(str(out / "ckpt")) == str(out / "ckpt" / "model.ckpt-60")
    assert (out / "ckpt" / "graph.pbtxt").exists()


def test_summary_iterator_reads_the_event_files(trained):
    out, _ = trained
    files = glob.glob(str(out / "logs" / "events.out.tfevents.*"))
    assert len(files) == 1
    events = list(tf1.train.summary_iterator(files[0]))
    assert events[0].file_version == "brain.Event:2"
    scalars = {}
    for e in events[1:]:
        for v in e.summary.value:
            scalars.setdefault(v.tag, []).append((e.step, v.simple_value))
    assert {"loss", "queue_fill", "examples_per_s", "input_wait_fraction",
            "accuracy"} <= set(scalars)
    assert [s for s, _ in scalars["loss"]] == [50]
    assert 0 < scalars["loss"][0][1] < 3
    # Accuracy after each of the 3 epochs (20 steps each).
    assert [s for s, _ in scalars["accuracy"]] == [20, 40, 60]


def test_tensorflow_runs_the_meta_graph_and_gets_inflows_predictions(trained, data, run_inflow,
                                                                      tmp_path):
    out, proc = trained
    prefix = str(out / "ckpt" / "model.ckpt-60")
    ev = run_inflow("eval", "--ckpt", out / "ckpt", "--data", data,
                    "--predictions", tmp_path / "p.bin")
    result = json.loads(ev.stdout)
    assert result["checkpoint"] == prefix
    assert result["test_accuracy"] == pytest.approx(
        json.loads(proc.stdout.strip().splitlines()[-1])["test_accuracy"], abs=1e-6)
    ours = np.fromfile(tmp_path / "p.bin", np.float32).reshape(-1, 10)
    features = {"image_raw": tf.io.FixedLenFeature([], tf.string),
                "label": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(sorted(glob.glob(str(data / "test-*.tfrecord"))))
    images, labels = [], []
    for r in ds:
        ex = tf.io.parse_single_example(r, features)
        images.append(tf.io.decode_raw(ex["image_raw"], tf.uint8).numpy())
        labels.append(int(ex["label"]))
    x = np.stack(images).astype(np.float32) * np.float32(1 / 255)
    g = tf.Graph()
    with g.as_default(), tf1.Session(graph=g) as sess:
        saver = tf1.train.import_meta_graph(prefix + ".meta")
        saver.restore(sess, prefix)
        theirs = sess.run("predictions:0", {"x:0": x})
    assert theirs.shape == ours.shape == (1000, 10)
    np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-5)
    assert np.mean(theirs.argmax(1) == np.array(labels)) == pytest.approx(
        result["test_accuracy"], abs=1e-6)


def start_long_run(inflow_bin, data, ckpt):
    proc = subprocess.Popen([inflow_bin, "train", "--data", str(data), "--steps", "100000",
                             "--ckpt-dir", str(ckpt), "--save-every", "20"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (ckpt / "checkpoint").exists():  # training has begun
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
        time.sleep(0.01)
    return proc


def test_sigint_saves_a_final_checkpoint_and_exits_within_2_seconds(data, inflow_bin, tmp_path):
    ckpt = tmp_path / "ckpt"
    proc = start_long_run(inflow_bin, data, ckpt)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert proc.returncode == 1, stderr
    assert "CANCELLED: interrupted at step" in stderr
    summary = json.loads(stdout.strip().splitlines()[-1])
    assert tf.train.latest_checkpoint(str(ckpt)) == str(ckpt / f"model.ckpt-{summary['steps']}")
    assert os.path.exists(str(ckpt / f"model.ckpt-{summary['steps']}.meta"))
    # One accuracy line an epoch: the evaluation at the stop, inside an
    # epoch, is not a second line of the epoch before.
    epochs = re.findall(r"^epoch (\d+): test accuracy", stderr, re.M)
    assert len(epochs) == len(set(epochs)), stderr
    steps_per_epoch = 20
    if summary["steps"] % steps_per_epoch:
        assert re.search(rf"^test accuracy \S+ at step {summary['steps']} \(epoch ", stderr,
                         re.M), stderr


def test_sigterm_stops_the_same_way(data, inflow_bin, tmp_path):
    ckpt = tmp_path / "ckpt"
    proc = start_long_run(inflow_bin, data, ckpt)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 1, stderr
    steps = json.loads(stdout.strip().splitlines()[-1])["steps"]
    assert tf.train.latest_checkpoint(str(ckpt)) == str(ckpt / f"model.ckpt-{steps}")


def test_a_second_sigint_during_the_stop_exits_at_once(data, inflow_bin, tmp_path):
    proc = start_long_run(inflow_bin, data, tmp_path / "ckpt")
    proc.send_signal(signal.SIGINT)
    # The first one is taken (its message printed) before the second comes.
    line = ""
    while "stopping:" not in line:
        line = proc.stderr.readline()
        assert line, "no stopping message"
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 130


def test_resume_continues_to_the_same_final_step(data, run_inflow, tmp_path):
    ckpt = tmp_path / "ckpt"
    first = run_inflow("train", "--data", data, "--steps", "30", "--seed", "1",
                       "--ckpt-dir", ckpt)
    # 30 steps are 1.5 epochs: one line for epoch 1, and the last
    # evaluation, inside epoch 2, is not a second "epoch 1" line.
    assert re.findall(r"^epoch (\d+): test accuracy \S+ \(step (\d+)\)$", first.stderr,
                      re.M) == [("1", "20")], first.stderr
    assert re.search(r"^test accuracy \S+ at step 30 \(epoch 1\.50\)$", first.stderr, re.M)
    proc = run_inflow("train", "--data", data, "--steps", "50", "--ckpt-dir", ckpt, "--resume",
                      "--seed", "2")
    assert "resumed from " + str(ckpt / "model.ckpt-30") + " at step 30" in proc.stderr
    assert "resuming with the checkpoint's seed 1; --seed 2 is not used" in proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["steps"] == 50


def test_errors_name_the_data_folder_and_the_checkpoint(data, run_inflow, tmp_path):
    proc = run_inflow("train", "--data", tmp_path / "none", check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("NOT_FOUND: no train shards match " + str(tmp_path / "none"))
    proc = run_inflow("eval", "--ckpt", tmp_path / "none", "--data", data, check=False)
    assert proc.returncode == 1 and str(tmp_path / "none") in proc.stderr


def test_math_threads_train_the_same_weights_bit_for_bit(data, run_inflow, tmp_path):
    runs = {}
    for m in (1, 2):
        ckpt = tmp_path / f"ckpt{m}"
        proc = run_inflow("train", "--data", data, "--steps", "30", "--seed", "4",
                          "--feed", "sync", "--math-threads", m, "--ckpt-dir", ckpt)
        runs[m] = (ckpt, json.loads(proc.stdout.strip().splitlines()[-1]))
    assert runs[1][1]["test_accuracy"] == runs[2][1]["test_accuracy"]
    one = tf.train.load_checkpoint(str(runs[1][0] / "model.ckpt-30"))
    two = tf.train.load_checkpoint(str(runs[2][0] / "model.ckpt-30"))
    names = sorted(one.get_variable_to_shape_map())
    assert "layer1/weights" in names and "layer1/weights/RMSProp" in names
    assert names == sorted(two.get_variable_to_shape_map())
    for name in names:
        a, b = one.get_tensor(name), two.get_tensor(name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name
    # Evaluation on 3 threads: the predictions of 1.
    for m in (1, 3):
        run_inflow("eval", "--ckpt", runs[1][0], "--data", data, "--math-threads", m,
                   "--predictions", tmp_path / f"p{m}.bin")
    assert (tmp_path / "p1.bin").read_bytes() == (tmp_path / "p3.bin").read_bytes()


@pytest.mark.parametrize("feed", ["sequence", "dataset"])
def test_feed_resumes_at_the_next_batch_with_the_uninterrupted_weights(
        data, run_inflow, tmp_path, feed):
    # 30 steps in one run (1 reader) against 17 then --resume to 30 with 2
    # readers: batch i is read by number (sequence) or the iterator's saved
    # position restored (dataset), so the weights match bit for bit.
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    run_inflow("train", "--data", data, "--steps", "30", "--seed", "5",
               "--feed", feed, "--ckpt-dir", whole)
    run_inflow("train", "--data", data, "--steps", "17", "--seed", "5",
               "--feed", feed, "--reader-threads", "2", "--ckpt-dir", parts)
    proc = run_inflow("train", "--data", data, "--steps", "30", "--resume",
                      "--feed", feed, "--reader-threads", "2", "--ckpt-dir", parts)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["feed"] == feed and summary["steps"] == 30, summary
    if feed == "sequence":
        assert re.search(r"the input starts at batch \d+ of epoch \d+ \(step 17\), "
                         r"read by number: nothing skipped", proc.stderr), proc.stderr
    else:
        assert "the input goes on from the saved position of step 17" in proc.stderr
        reader = tf.train.load_checkpoint(str(parts / "model.ckpt-17"))
        assert len(reader.get_tensor("input/iterator")) < 200
    one = tf.train.load_checkpoint(str(whole / "model.ckpt-30"))
    two = tf.train.load_checkpoint(str(parts / "model.ckpt-30"))
    for name in sorted(one.get_variable_to_shape_map()):
        if name == "input/iterator":
            # The same position, in bytes that depend on what the threads
            # had in flight: both restore to the next batch of step 31.
            continue
        assert one.get_tensor(name).tobytes() == two.get_tensor(name).tobytes(), name


def test_math_threads_outside_1_to_64_are_a_clear_error(data, run_inflow):
    for m in ("0", "65", "x"):
        proc = run_inflow("train", "--data", data, "--math-threads", m, check=False)
        assert proc.returncode != 0
        assert "--math-threads" in proc.stderr, proc.stderr


@pytest.mark.parametrize("args,named", [
    (["--steps", "0"], "--steps: 0 is outside [1, "),
    (["--epochs", "0"], "--epochs: 0 is outside [1, "),
    (["--steps", "-3"], "--steps: -3 is outside"),
    (["--batch-size", "0"], "--batch-size: 0 is outside"),
    (["--reader-threads", "0"], "--reader-threads: 0 is outside"),
    (["--math-threads", "65"], "--math-threads: 65 is outside [1, 64]"),
    (["--seed", "-1"], "--seed: -1 is outside [0, "),
    (["--seed", "99999999999999999999"], "--seed: 99999999999999999999 is outside"),
    (["--seed", "0x10"], "--seed: 0x10 is not a decimal integer"),
    (["--lr", "0"], "--lr: 0 is not a finite number > 0"),
    (["--lr", "-0.1"], "--lr: -0.1 is not a finite number > 0"),
    (["--lr", "nan"], "--lr: nan is not a finite number > 0"),
    (["--save-every", "-1"], "--save-every: -1 is outside [0, "),
    (["--optimizer", "adagrad"], "--optimizer: adagrad"),
    (["--resume"], "--resume requires --ckpt-dir"),
    (["--feed", "sync", "--reader-threads", "2"],
     "--reader-threads: 2 is for --feed queue, sequence or dataset; --feed sync reads in the training thread"),
])
def test_flag_errors_are_usage_errors_naming_the_flag_and_value(data, run_inflow, tmp_path,
                                                                args, named):
    proc = run_inflow("train", "--data", data, *args, "--logdir", tmp_path / "logs",
                      check=False)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr, proc.stderr
    assert proc.stdout == "" and not (tmp_path / "logs").exists()


def test_a_random_seed_is_named_and_saved(data, run_inflow, tmp_path):
    proc = run_inflow("train", "--data", data, "--steps", "2", "--ckpt-dir", tmp_path / "c")
    [seed] = [int(line.split()[1]) for line in proc.stderr.splitlines()
              if line.startswith("seed ")]
    assert f"seed {seed} (random; --seed {seed} repeats the run)" in proc.stderr
    reader = tf.train.load_checkpoint(str(tmp_path / "c" / "model.ckpt-2"))
    assert reader.get_tensor("input/seed") == seed


def test_missing_shards_are_an_error_naming_them_unless_allowed(data, run_inflow, tmp_path):
    part = tmp_path / "part"
    part.mkdir()
    for name in os.listdir(data):
        if name != "train-00001-of-00002.tfrecord":
            os.symlink(data / name, part / name)
    proc = run_inflow("train", "--data", part, "--steps", "2", check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        f"NOT_FOUND: 1 of the 2 shards matching {part}/train-*.tfrecord are missing: "
        "train-00001-of-00002.tfrecord (--allow-missing-shards uses the others)"), proc.stderr
    proc = run_inflow("train", "--data", part, "--steps", "2", "--seed", "1",
                      "--allow-missing-shards")
    assert (f"warning: 1 of the 2 shards matching {part}/train-*.tfrecord are missing: "
            "train-00001-of-00002.tfrecord; using the 1 present") in proc.stderr
    # eval: the same for the test shards.
    ckpt = tmp_path / "ckpt"
    run_inflow("train", "--data", data, "--steps", "2", "--seed", "1", "--ckpt-dir", ckpt)
    os.remove(part / "test-00000-of-00002.tfrecord")
    proc = run_inflow("eval", "--ckpt", ckpt, "--data", part, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        f"NOT_FOUND: 1 of the 2 shards matching {part}/test-*.tfrecord are missing: "
        "test-00000-of-00002.tfrecord"), proc.stderr
    proc = run_inflow("eval", "--ckpt", ckpt, "--data", part, "--allow-missing-shards")
    assert "warning: 1 of the 2 shards matching" in proc.stderr
    assert json.loads(proc.stdout)["checkpoint"] == str(ckpt / "model.ckpt-2")
    # Shards of two conversions in one folder: an error either way.
    os.symlink(data / "train-00001-of-00002.tfrecord", part / "train-00000-of-00003.tfrecord")
    proc = run_inflow("train", "--data", part, "--steps", "2", "--allow-missing-shards",
                      check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"INVALID_ARGUMENT: {part}/train-*.tfrecord matches "
                                  "shards of two sets"), proc.stderr


def test_resuming_with_another_optimizer_names_both(data, run_inflow, tmp_path):
    ckpt = tmp_path / "ckpt"
    run_inflow("train", "--data", data, "--steps", "2", "--seed", "1", "--optimizer", "adam",
               "--ckpt-dir", ckpt)
    for other in ("rmsprop", "sgd"):
        proc = run_inflow("train", "--data", data, "--steps", "4", "--optimizer", other,
                          "--ckpt-dir", ckpt, "--resume", check=False)
        assert proc.returncode == 1
        assert (f"{ckpt / 'model.ckpt-2'} was written by the adam optimizer (its slots say "
                f"so), and this run uses {other}: resume with --optimizer adam") in proc.stderr
        assert "beta1_power" not in proc.stderr
    proc = run_inflow("train", "--data", data, "--steps", "4", "--optimizer", "adam",
                      "--ckpt-dir", ckpt, "--resume")
    assert json.loads(proc.stdout.strip().splitlines()[-1])["steps"] == 4


def test_a_diverging_loss_stops_the_run_naming_the_step_and_saves_nothing_non_finite(
        data, run_inflow, tmp_path):
    ckpt = tmp_path / "ckpt"
    proc = run_inflow("train", "--data", data, "--steps", "40", "--seed", "1",
                      "--optimizer", "sgd", "--lr", "1e30", "--ckpt-dir", ckpt,
                      "--save-every", "1", check=False)
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert re.match(r"INVALID_ARGUMENT: (not saving the checkpoint of step \d+: \S+ holds "
                    r"(NaN|an infinity)|(NaN|infinite) loss during training at step \d+)",
                    last), last
    assert "lower --lr" in last
    assert not (ckpt / "summary.json").exists() and proc.stdout == ""
    for index in glob.glob(str(ckpt / "model.ckpt-*.index")):
        reader = tf.train.load_checkpoint(index[:-len(".index")])
        for name in reader.get_variable_to_shape_map():
            value = reader.get_tensor(name)
            if value.dtype == np.float32:
                assert np.isfinite(value).all(), (index, name)


def test_resuming_past_the_final_step_trains_nothing_and_names_the_step(data, run_inflow,
                                                                        tmp_path):
    ckpt = tmp_path / "ckpt"
    run_inflow("train", "--data", data, "--steps", "30", "--seed", "1", "--ckpt-dir", ckpt)
    proc = run_inflow("train", "--data", data, "--steps", "20", "--ckpt-dir", ckpt, "--resume")
    assert "step 30 is at or past the final step 20: nothing to train" in proc.stderr
    assert "(step 0)" not in proc.stderr
    # 30 steps are 1.5 epochs of 20: the evaluation is not an epoch's line.
    assert re.search(r"^test accuracy \d\.\d{4} at step 30 \(epoch 1\.50\)$", proc.stderr,
                     re.M), proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["steps"] == 30
