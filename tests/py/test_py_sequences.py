"""inflow.utils: Sequence, OrderedEnqueuer, GeneratorEnqueuer,
ThreadSafeIterator, threadsafe_generator (keras.utils's names).

Every epoch yields every index exactly once, in order, whatever the
workers' timing (random per-batch delays), with on_epoch_end between
epochs; errors reach the consumer. Tests wait on events (threading.Event,
the named pipes of sequence_workers.Gate), never on sleeps, and check after
each that no worker thread is left.
"""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import traceback

import numpy as np
import pytest

import inflow
from inflow import utils
import sequence_workers as sw

TIMEOUT = 120  # generous: the machine may be busy


def enqueuer_threads():
    return [t for t in threading.enumerate() if t.name.startswith("inflow-enqueuer")]


@pytest.fixture(autouse=True)
def no_leftover_threads():
    yield
    left = enqueuer_threads()
    assert not left, f"threads left running: {left}"


def take(gen, count):
    return [next(gen) for _ in range(count)]


# -- Sequence ------------------------------------------------------------------

def test_sequence_is_abstract_and_iterates_its_batches_in_order():
    with pytest.raises(TypeError):
        utils.Sequence()

    class Squares(utils.Sequence):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return i * i

    s = Squares()
    assert list(s) == [0, 1, 4, 9]
    assert s.on_epoch_end() is None
    assert inflow.utils.Sequence is utils.Sequence


# -- OrderedEnqueuer with threads ----------------------------------------------

def run_epochs(enqueuer, sequence, epochs, check_end_not_early=True, lengths=None):
    """Takes ``epochs`` epochs of ``sequence.n`` (or ``lengths[epoch]``)
    batches from get(); before taking an epoch's last batch, checks that
    on_epoch_end has not run for it yet. Returns the batches' indices, epoch
    by epoch."""
    gen = enqueuer.get()
    out = []
    for epoch in range(epochs):
        n = sequence.n if lengths is None else lengths[epoch]
        got = [next(gen) for _ in range(n - 1)]
        if check_end_not_early:
            ends = [e for e in sequence.events if e[0] == "end"]
            assert len(ends) == epoch, (epoch, ends)
        got.append(next(gen))
        for batch in got:
            assert int(batch["epoch"]) == epoch, (epoch, batch)
        out.append([int(b["index"]) for b in got])
    return out


def check_events(events, n_per_epoch, epochs):
    """Every epoch's indices asked for exactly once, all of them before that
    epoch's on_epoch_end and after the previous one's."""
    segments, ends = [[]], []
    for event in events:
        if event[0] == "end":
            ends.append(event[1])
            segments.append([])
        else:
            segments[-1].append(event)
    assert ends == list(range(len(ends))) and len(ends) >= epochs - 1, ends
    for epoch in range(epochs):
        assert all(e[1] == epoch for e in segments[epoch]), (epoch, segments[epoch])
        assert sorted(e[2] for e in segments[epoch]) == list(range(n_per_epoch[epoch])), \
            (epoch, segments[epoch])


@pytest.mark.parametrize("workers", [1, 2, 3, 4, 5, 6, 7, 8])
def test_threads_yield_every_index_once_in_order_with_on_epoch_end_between(workers):
    seq = sw.Recording(23, max_delay=0.004, seed=workers)
    enqueuer = utils.OrderedEnqueuer(seq)
    enqueuer.start(workers=workers, max_queue_size=1 + workers % 5)
    assert enqueuer.is_running()
    out = run_epochs(enqueuer, seq, 3)
    enqueuer.stop()
    assert not enqueuer.is_running()
    assert out == [list(range(23))] * 3
    check_events(seq.events, [23, 23, 23], 3)


def test_shuffle_is_a_fresh_permutation_each_epoch_reproducible_with_a_seed():
    def orders(seed, workers):
        seq = sw.Recording(20, max_delay=0.001, seed=seed)
        with utils.OrderedEnqueuer(seq, shuffle=True, seed=seed) as enqueuer:
            enqueuer.start(workers=workers)
            return run_epochs(enqueuer, seq, 3)

    a = orders(7, 4)
    for order in a:
        assert sorted(order) == list(range(20))
    assert a[0] != a[1] != a[2] and a[0] != list(range(20))
    assert orders(7, 1) == a  # whatever the workers
    assert orders(8, 4) != a


class SignalsComputed(sw.Recording):
    """Sets ``computed`` once ``count`` batches were computed."""

    def __init__(self, n, count):
        super().__init__(n)
        self.count = count
        self.computed = threading.Event()

    def __getitem__(self, index):
        batch = super().__getitem__(index)
        if sum(e[0] == "get" for e in self.events) >= self.count:
            self.computed.set()
        return batch


def test_on_epoch_end_runs_after_the_last_batch_was_taken_not_when_computed():
    seq = SignalsComputed(4, count=4)
    with utils.OrderedEnqueuer(seq) as enqueuer:
        enqueuer.start(workers=4, max_queue_size=4)
        gen = enqueuer.get()
        take(gen, 3)
        assert seq.computed.wait(TIMEOUT)  # all 4 computed, the 4th not taken
        # A producer that did not wait for the consumer would call
        # on_epoch_end now: give it the time to.
        threading.Event().wait(0.05)
        assert [e for e in seq.events if e[0] == "end"] == []
        assert int(next(gen)["index"]) == 3
        assert int(next(gen)["epoch"]) == 1  # after on_epoch_end
        assert ("end", 0) in seq.events


def test_len_is_read_again_each_epoch():
    seq = sw.Recording(0, lengths=[5, 3, 4])
    with utils.OrderedEnqueuer(seq) as enqueuer:
        enqueuer.start(workers=3)
        out = run_epochs(enqueuer, seq, 3, lengths=[5, 3, 4])
    assert out == [[0, 1, 2, 3, 4], [0, 1, 2], [0, 1, 2, 3]]


def test_length_zero_is_refused_by_start_and_later_ends_get_with_that_error():
    with pytest.raises(ValueError, match="no batches"):
        utils.OrderedEnqueuer(sw.Recording(0)).start()
    seq = sw.Recording(0, lengths=[2, 0])
    enqueuer = utils.OrderedEnqueuer(seq)
    enqueuer.start(workers=2)
    gen = enqueuer.get()
    assert [int(b["index"]) for b in take(gen, 2)] == [0, 1]
    with pytest.raises(ValueError, match="no batches"):
        next(gen)
    assert not enqueuer.is_running()


@pytest.mark.parametrize("workers", [1, 4])
def test_an_exception_in_getitem_reaches_the_consumer_with_index_and_traceback(workers):
    enqueuer = utils.OrderedEnqueuer(sw.Failing(10, bad=6))
    enqueuer.start(workers=workers, max_queue_size=3)
    gen = enqueuer.get()
    assert [int(b[0]) for b in take(gen, 6)] == list(range(6))
    with pytest.raises(ValueError, match="batch 6 is bad") as info:
        next(gen)
    assert not enqueuer.is_running()
    assert any("__getitem__(6)" in note for note in info.value.__notes__)
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "raise_bad_index" in frames and "__getitem__" in frames
    # and the generator is over
    with pytest.raises(StopIteration):
        next(gen)


def test_batches_are_whatever_getitem_returns():
    seq = sw.Arrays(6, rows=8)
    with utils.OrderedEnqueuer(seq) as enqueuer:
        enqueuer.start(workers=3)
        got = take(enqueuer.get(), 6)
    for i, batch in enumerate(got):
        assert_same_batch(batch, seq[i])


def assert_same_batch(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(b, dict):
        assert list(a) == list(b)
        for k in b:
            assert_same_batch(a[k], b[k])
    elif isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same_batch(x, y)
    elif isinstance(b, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def test_none_batches_are_skipped():
    class SomeNone(utils.Sequence):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return None if i % 2 else i

    with utils.OrderedEnqueuer(SomeNone()) as enqueuer:
        enqueuer.start(workers=2)
        assert take(enqueuer.get(), 6) == [0, 2, 4, 0, 2, 4]


def test_stop_ends_get_even_with_a_worker_busy(tmp_path):
    gate = sw.Gate(tmp_path)
    enqueuer = utils.OrderedEnqueuer(sw.Blocking(5, block=2, gate=gate))
    enqueuer.start(workers=2)
    gen = enqueuer.get()
    assert [int(b[0]) for b in take(gen, 2)] == [0, 1]
    gate.wait_arrived()
    results = []
    consumer = threading.Thread(target=lambda: results.append(list(gen)))
    consumer.start()
    enqueuer.stop(timeout=0.2)  # the busy worker is not waited for
    consumer.join(TIMEOUT)
    assert results == [[]] and not enqueuer.is_running()
    gate.release()
    enqueuer.stop()  # now it is joined
    gate.close()


def test_start_and_stop_again_and_use_as_context_manager():
    seq = sw.Recording(5)
    enqueuer = utils.OrderedEnqueuer(seq)
    with pytest.raises(RuntimeError, match="before start"):
        enqueuer.get()
    for _ in range(2):
        enqueuer.start(workers=2)
        enqueuer.start(workers=2)  # ignored while running
        assert [int(b["index"]) for b in take(enqueuer.get(), 3)] == [0, 1, 2]
        enqueuer.stop()
        enqueuer.stop()
    with pytest.raises(ValueError):
        enqueuer.start(workers=0)
    with pytest.raises(ValueError):
        enqueuer.start(max_queue_size=0)
    with pytest.raises(TypeError):
        utils.OrderedEnqueuer(object())
    with pytest.raises(ValueError, match="start_method"):
        utils.OrderedEnqueuer(seq, True, start_method="vfork")


def test_a_dropped_enqueuer_stops_its_threads():
    import gc
    enqueuer = utils.OrderedEnqueuer(sw.Recording(50))
    enqueuer.start(workers=3, max_queue_size=2)
    next(enqueuer.get())
    del enqueuer
    gc.collect()
    for t in enqueuer_threads():
        t.join(TIMEOUT)


# -- Keras's own classes -------------------------------------------------------

def keras_classes():
    import keras
    events = []

    class KerasData(keras.utils.PyDataset):
        def __init__(self, n, **kwargs):
            super().__init__(**kwargs)
            self.n = n
            self.epoch = 0

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return np.full((2, 2), i, np.float32), np.array([i, self.epoch])

        def on_epoch_begin(self):
            events.append(("begin", self.epoch))

        def on_epoch_end(self):
            events.append(("end", self.epoch))
            self.epoch += 1

    class KerasSequence(keras.utils.Sequence):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.array([i])

    class Endless(keras.utils.PyDataset):
        @property
        def num_batches(self):
            return None

        def __getitem__(self, i):
            return np.array([i])

    return KerasData, KerasSequence, Endless, events


def test_a_keras_pydataset_and_sequence_are_accepted():
    KerasData, KerasSequence, Endless, events = keras_classes()
    with utils.OrderedEnqueuer(KerasData(4, workers=2)) as enqueuer:
        enqueuer.start(workers=2)
        got = take(enqueuer.get(), 8)
    assert [(int(y[0]), int(y[1])) for _, y in got] == \
        [(i, 0) for i in range(4)] + [(i, 1) for i in range(4)]
    assert events[:3] == [("begin", 0), ("end", 0), ("begin", 1)]
    with utils.OrderedEnqueuer(KerasSequence(), shuffle=True, seed=1) as enqueuer:
        enqueuer.start(workers=3)
        got = take(enqueuer.get(), 6)
    assert sorted(int(b[0]) for b in got[:3]) == [0, 1, 2]
    # num_batches None: one endless epoch, in order
    with utils.OrderedEnqueuer(Endless()) as enqueuer:
        enqueuer.start(workers=3)
        assert [int(b[0]) for b in take(enqueuer.get(), 40)] == list(range(40))
    with pytest.raises(ValueError, match="finite"):
        utils.OrderedEnqueuer(Endless(), shuffle=True).start()


# -- GeneratorEnqueuer, ThreadSafeIterator, threadsafe_generator ---------------

def counting(n):
    for i in range(n):
        yield i


def test_a_finite_generator_yields_everything_then_get_ends():
    enqueuer = utils.GeneratorEnqueuer(counting(50))
    enqueuer.start(workers=1, max_queue_size=4)
    assert list(enqueuer.get()) == list(range(50))
    assert not enqueuer.is_running()


@pytest.mark.parametrize("workers", [2, 8])
def test_a_threadsafe_generator_gives_each_element_once(workers):
    @utils.threadsafe_generator
    def slow(n):
        for i in range(n):
            threading.Event().wait(0.0005 * (i % 3))  # the GIL changes hands
            yield None if i % 10 == 9 else i

    enqueuer = utils.GeneratorEnqueuer(slow(200))
    enqueuer.start(workers=workers, max_queue_size=5)
    got = list(enqueuer.get())
    assert sorted(got) == [i for i in range(200) if i % 10 != 9]


def test_a_plain_generator_shared_by_threads_is_a_clear_error():
    # A wrapper that notes the failed call; the error is Python's own
    # "generator already executing", raised by the generator.
    collided = threading.Event()
    entered = threading.Event()

    def gen():
        entered.set()
        assert collided.wait(TIMEOUT)
        yield 0
        yield 1

    g = gen()

    class Noting:
        def __iter__(self):
            return self

        def __next__(self):
            try:
                return next(g)
            except ValueError:
                collided.set()
                raise

    enqueuer = utils.GeneratorEnqueuer(Noting())
    enqueuer.start(workers=2, max_queue_size=2)
    out = enqueuer.get()
    with pytest.raises(RuntimeError, match="not thread-safe") as info:
        for item in out:
            assert item == 0
    assert "threadsafe_generator" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)
    assert "already executing" in str(info.value.__cause__)
    assert not enqueuer.is_running()


@pytest.mark.parametrize("round", range(3))
def test_a_plain_generator_never_loses_or_repeats_elements(round):
    # Whether the threads collide is up to the scheduler: either every
    # element once, in order of the calls, or the error.
    def gen():
        for i in range(300):
            threading.Event().wait(0.0002)
            yield i

    enqueuer = utils.GeneratorEnqueuer(gen())
    enqueuer.start(workers=8)
    got = []
    try:
        for item in enqueuer.get():
            got.append(item)
    except RuntimeError as e:
        assert "not thread-safe" in str(e)
    assert got == list(range(len(got)))
    assert not enqueuer.is_running()


def test_thread_safe_iterator_takes_its_lock_in_next():
    inside = []
    lock_seen = []

    def gen():
        for i in range(2000):
            inside.append(1)
            lock_seen.append(len(inside))
            threading.Event().wait(0) if i % 50 == 0 else None
            inside.pop()
            yield i

    it = utils.ThreadSafeIterator(gen())
    assert iter(it) is it
    out = []

    def pull():
        for item in it:
            out.append(item)

    threads = [threading.Thread(target=pull) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert sorted(out) == list(range(2000))
    assert max(lock_seen) == 1  # never two threads inside the generator
    it.close()


def test_an_exception_of_the_generator_reaches_the_consumer():
    def gen():
        yield 1
        raise KeyError("generator broke")

    enqueuer = utils.GeneratorEnqueuer(gen())
    enqueuer.start(workers=1)
    out = enqueuer.get()
    assert next(out) == 1
    with pytest.raises(KeyError, match="generator broke"):
        next(out)
    assert not enqueuer.is_running()


# -- Ctrl-C --------------------------------------------------------------------

def package_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(__file__)] + [p for p in sys.path if p])
    return env


CTRL_C_CHILD = """
import os, sys, threading
import numpy as np
from inflow import utils
import sequence_workers as sw

gate = sw.Gate(sys.argv[1])
enqueuer = utils.OrderedEnqueuer(sw.Blocking(10, block=3, gate=gate),
                                 use_multiprocessing={processes},
                                 start_method={start_method!r})
enqueuer.start(workers=2, max_queue_size=4)
print("workers", *enqueuer._run.backend.pids() if {processes} else [], flush=True)
gen = enqueuer.get()
for _ in range(3):
    next(gen)

def waiting_in_get():
    frame = sys._current_frames().get(threading.main_thread().ident)
    while frame is not None:
        if frame.f_code.co_name == "consume":
            return True
        frame = frame.f_back
    return False

def announce():
    # Ctrl-C once the main thread waits in get() for batch 3 (its worker
    # waits at the gate).
    gate.wait_arrived()
    while not waiting_in_get():
        threading.Event().wait(0.001)
    print("ready", flush=True)

threading.Thread(target=announce, daemon=True).start()
try:
    next(gen)
except KeyboardInterrupt:
    print("interrupted", enqueuer.is_running(),
          [t.name for t in threading.enumerate() if t.name.startswith("inflow")],
          flush=True)
    raise
"""


def run_ctrl_c_child(tmp_path, processes=False, start_method=None):
    proc = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_CHILD.format(processes=processes,
                                                   start_method=start_method),
         str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=package_env())
    try:
        workers = proc.stdout.readline().split()
        line = proc.stdout.readline()
        assert workers[:1] == ["workers"] and line == "ready\n", \
            (workers, line, proc.stderr.read() if proc.poll() is not None else "")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0 and "KeyboardInterrupt" in err, err
    assert out.startswith("interrupted False ["), (out, err)
    return proc.pid, [int(p) for p in workers[1:]], out


def test_ctrl_c_in_the_consumer_stops_the_threads(tmp_path):
    # All but the worker busy in __getitem__ (at the gate), which a thread
    # cannot be made to leave: it ends when __getitem__ returns.
    _, _, out = run_ctrl_c_child(tmp_path)
    assert out in ("interrupted False ['inflow-enqueuer-worker-0']\n",
                   "interrupted False ['inflow-enqueuer-worker-1']\n"), out
