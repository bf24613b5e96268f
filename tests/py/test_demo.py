"""`inflow demo`: a queue pipeline end to end (QueueRunner -> queue ->
training loop), ending through the end-of-input cascade."""
import re

import pytest


def summary(stdout):
    m = re.search(r"summary: (\d+) examples in (\d+) steps", stdout)
    assert m, stdout
    acc = re.search(r"held-out accuracy ([0-9.]+)", stdout)
    assert acc, stdout
    return int(m.group(1)), int(m.group(2)), float(acc.group(1))


@pytest.mark.parametrize("queue", ["shuffle", "fifo"])
def test_demo_trains_on_every_example_then_stops_cleanly(run_inflow, queue):
    proc = run_inflow("demo", "--queue", queue, "--threads", "3",
                      "--examples", "50000", "--batch-size", "100")
    examples, steps, accuracy = summary(proc.stdout)
    # Every example produced reaches the trainer exactly once: the last
    # producer closes the queue and the trainer drains it.
    assert examples == 50000
    assert steps == 500
    assert accuracy > 0.75
    threads = re.findall(r"^thread (\S+)", proc.stdout, re.M)
    assert sorted(t for t in threads if "/enqueue:" in t) == [
        f"demo_{queue}_queue/enqueue:{i}" for i in range(3)]
    assert f"demo_{queue}_queue/close" in threads


def test_demo_short_final_batch_is_trained_too(run_inflow):
    proc = run_inflow("demo", "--examples", "1001", "--batch-size", "100",
                      "--queue", "fifo", "--threads", "2")
    examples, steps, _ = summary(proc.stdout)
    assert (examples, steps) == (1001, 11)


@pytest.mark.parametrize("args,named", [
    (["--queue", "lifo"], "--queue: lifo"),
    (["--threads", "0"], "--threads: 0 is outside"),
    (["--examples", "-5"], "--examples: -5 is outside"),
    (["--batch-size", "1.5"], "--batch-size: 1.5 is not a decimal integer"),
    (["--seed", "-1"], "--seed: -1 is outside"),
    (["--learning-rate", "nan"], "--learning-rate: nan is not a finite number > 0"),
    (["--max-seconds", "0"], "--max-seconds: 0 is not a finite number > 0"),
    (["--capacity", "100", "--min-after-dequeue", "100"],
     "--min-after-dequeue: 100 is not below --capacity 100"),
])
def test_demo_flag_errors_are_usage_errors_naming_flag_and_value(run_inflow, args, named):
    proc = run_inflow("demo", *args, check=False)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
    assert "summary:" not in proc.stdout


def test_demo_producer_error_stops_every_thread_and_is_the_exit_status(
        run_inflow):
    proc = run_inflow("demo", "--fail-at-step", "20", "--threads", "3",
                      check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        "DATA_LOSS: demo producer 0: injected failure at step 20")
    assert "summary:" not in proc.stdout
