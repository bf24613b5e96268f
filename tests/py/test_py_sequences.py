"""inflow.utils: Sequence, OrderedEnqueuer, GeneratorEnqueuer,
ThreadSafeIterator, threadsafe_generator (keras.utils's names).

Every epoch yields every index exactly once, in order, whatever the
workers' timing (random per-batch delays), with on_epoch_end between
epochs; errors reach the consumer; a worker process that dies is an error
naming the batch and the signal or exit code. Tests wait on events
(threading.Event, the named pipes of sequence_workers.Gate, a process's
exit), never on sleeps, and check after each that no worker thread or
process and no shared-memory block is left.
"""
import collections
import glob
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.resource_tracker
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


def descendants(root=None):
    """(pid, state) of the processes descended from ``root`` (this one),
    except multiprocessing's forkserver and resource tracker, which stay
    for the session."""
    children = collections.defaultdict(list)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        state, ppid = stat[stat.rindex(")") + 2:].split()[:2]
        children[int(ppid)].append((int(entry), state))
    helpers = {getattr(multiprocessing.forkserver._forkserver, "_forkserver_pid", None),
               getattr(multiprocessing.resource_tracker._resource_tracker, "_pid", None)}
    found, stack = [], [os.getpid() if root is None else root]
    while stack:
        for pid, state in children.get(stack.pop(), []):
            stack.append(pid)
            if pid not in helpers:
                found.append((pid, state))
    return found


def shm_blocks(pid=None):
    return glob.glob(f"/dev/shm/inflow-{os.getpid() if pid is None else pid}-*")


@pytest.fixture(autouse=True)
def nothing_left_behind():
    before = descendants()
    yield
    left = enqueuer_threads()
    assert not left, f"threads left running: {left}"
    assert descendants() == before, "worker processes left"
    assert shm_blocks() == [], "shared memory left in /dev/shm"


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


# -- process workers -----------------------------------------------------------

PROCESS_CASES = [("fork", 1), ("fork", 2), ("fork", 4), ("fork", 8),
                 ("forkserver", 1), ("forkserver", 3), ("spawn", 1), ("spawn", 3)]


def read_log(path):
    with open(path) as f:
        return [tuple(map(int, line.split())) for line in f]


@pytest.mark.parametrize("method,workers", PROCESS_CASES)
def test_processes_yield_every_index_once_in_order_with_on_epoch_end_between(
        tmp_path, method, workers):
    log = str(tmp_path / "calls")
    seq = sw.Recording(13, max_delay=0.004, seed=workers, log=log)
    enqueuer = utils.OrderedEnqueuer(seq, use_multiprocessing=True, start_method=method)
    enqueuer.start(workers=workers, max_queue_size=1 + workers % 4)
    # run_epochs checks each batch's epoch as the worker's copy saw it:
    # on_epoch_end (run here) reached the workers before the next epoch.
    out = run_epochs(enqueuer, seq, 3)
    enqueuer.stop()
    assert out == [list(range(13))] * 3
    assert seq.events == [("end", 0), ("end", 1)] or seq.events == [
        ("end", 0), ("end", 1), ("end", 2)]
    calls = read_log(log)
    for epoch in range(3):
        assert sorted(i for e, i, _ in calls if e == epoch) == list(range(13)), epoch
    assert os.getpid() not in {pid for _, _, pid in calls}


def test_shuffle_with_processes_is_the_order_threads_give():
    def orders(processes):
        seq = sw.Recording(12)
        with utils.OrderedEnqueuer(seq, processes, shuffle=True, seed=11,
                                   start_method="fork") as enqueuer:
            enqueuer.start(workers=3)
            return run_epochs(enqueuer, seq, 2)

    a = orders(True)
    assert a == orders(False) and a[0] != a[1]
    assert sorted(a[0]) == list(range(12))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_batches_come_through_shared_memory_as_they_were(method):
    seq = sw.Arrays(6)
    with utils.OrderedEnqueuer(seq, True, start_method=method) as enqueuer:
        enqueuer.start(workers=2, max_queue_size=3)
        got = take(enqueuer.get(), 12)
        for i, batch in enumerate(got):
            assert_same_batch(batch, seq[i % 6])
        # The arrays are views of a block in /dev/shm, not unpickled copies.
        x = got[0][0]
        assert not x.flags.owndata and x.base.dtype == np.uint8
        assert isinstance(x.base.base, memoryview)
        assert len(shm_blocks()) >= 1


def test_blocks_are_reused_once_the_arrays_are_dropped_and_not_before():
    seq = sw.Arrays(6, rows=64)
    with utils.OrderedEnqueuer(seq, True, start_method="fork") as enqueuer:
        enqueuer.start(workers=2, max_queue_size=2)
        gen = enqueuer.get()
        for _ in range(40):  # each batch dropped before the next
            next(gen)
        steady = len(shm_blocks())
        assert steady <= 2 + 2 + 2, steady  # in flight, ahead, held
        kept = take(gen, 30)  # all held: every one keeps its block
        assert len(shm_blocks()) >= 30
        for i, batch in enumerate(kept):
            assert_same_batch(batch, seq[(40 + i) % 6])
        del kept, batch
        for _ in range(10):
            next(gen)
        # the blocks beyond what is reused are removed
        assert len(shm_blocks()) <= 2 + 2 + 2 + 2


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_an_exception_in_a_worker_process_reaches_the_consumer(method):
    enqueuer = utils.OrderedEnqueuer(sw.Failing(10, bad=6), True, start_method=method)
    enqueuer.start(workers=2, max_queue_size=3)
    gen = enqueuer.get()
    assert [int(b[0]) for b in take(gen, 6)] == list(range(6))
    with pytest.raises(ValueError, match="batch 6 is bad") as info:
        next(gen)
    assert not enqueuer.is_running()
    assert any("__getitem__(6)" in note and "worker process" in note
               for note in info.value.__notes__)
    cause = info.value.__cause__
    assert isinstance(cause, utils.RemoteTraceback)
    assert "raise_bad_index" in str(cause) and "batch 6 is bad" in str(cause)


CRASHES = [("fork", "exit"), ("fork", "kill"), ("fork", "segv"), ("fork", "abort"),
           ("forkserver", "kill"), ("spawn", "exit"), ("spawn", "segv")]


@pytest.mark.parametrize("method,how", CRASHES)
def test_a_worker_process_that_dies_is_an_error_within_a_second(tmp_path, method, how):
    import time
    once = str(tmp_path / "crashed")
    enqueuer = utils.OrderedEnqueuer(sw.Crashing(12, bad=5, how=how, code=3, once_file=once),
                                     True, start_method=method)
    enqueuer.start(workers=2, max_queue_size=4)
    gen = enqueuer.get()
    got = []
    with pytest.raises(utils.WorkerProcessError) as info:
        for batch in gen:
            got.append(int(batch[0]))
    reported = time.time()
    crashed = os.stat(once).st_mtime
    assert reported - crashed < 1.0, reported - crashed
    error = info.value
    assert got == list(range(5))
    assert error.index == 5 and "batch 5" in str(error)
    expected = {"exit": (3, "exited with code 3"), "kill": (-9, "SIGKILL"),
                "segv": (-11, "SIGSEGV"), "abort": (-6, "SIGABRT")}[how]
    assert error.exitcode == expected[0] and expected[1] in str(error), str(error)
    assert not enqueuer.is_running()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_restart_workers_replaces_a_dead_worker_and_retries_its_batch_once(tmp_path, method):
    once = str(tmp_path / "crashed")
    seq = sw.Crashing(9, bad=4, how="kill", once_file=once)
    with utils.OrderedEnqueuer(seq, True, start_method=method,
                               restart_workers=True) as enqueuer:
        enqueuer.start(workers=2, max_queue_size=3)
        with pytest.warns(RuntimeWarning, match="batch 4"):
            got = [int(b[0]) for b in take(enqueuer.get(), 18)]
    assert got == list(range(9)) * 2
    assert os.path.exists(once)
    # A batch that kills every worker fails on its second try.
    seq = sw.Crashing(9, bad=4, how="exit", code=7)
    enqueuer = utils.OrderedEnqueuer(seq, True, start_method="fork", restart_workers=True)
    enqueuer.start(workers=2)
    with pytest.warns(RuntimeWarning), pytest.raises(utils.WorkerProcessError,
                                                     match="second time") as info:
        list(enqueuer.get())
    assert info.value.index == 4 and info.value.exitcode == 7


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_a_sequence_that_does_not_pickle_is_an_error_naming_the_attribute(method):
    enqueuer = utils.OrderedEnqueuer(sw.Unpicklable(), True, start_method=method)
    with pytest.raises(Exception, match=r"sequence\.state\['lock'\]") as info:
        enqueuer.start(workers=2)
    assert "lock" in str(info.value) and method in str(info.value)
    assert not enqueuer.is_running()
    # fork does not pickle it
    with utils.OrderedEnqueuer(sw.Unpicklable(), True, start_method="fork") as enqueuer:
        enqueuer.start(workers=2)
        assert [int(b[0]) for b in take(enqueuer.get(), 3)] == [0, 1, 2]


def test_a_worker_that_cannot_start_is_an_error():
    enqueuer = utils.OrderedEnqueuer(sw.BadState(), True, start_method="spawn")
    enqueuer.start(workers=1)
    with pytest.raises(utils.WorkerProcessError, match="could not start") as info:
        next(enqueuer.get())
    assert "refuses to be unpickled" in str(info.value.__cause__)


def test_a_keras_pydataset_with_worker_processes():
    KerasData, _, _, events = keras_classes()
    with utils.OrderedEnqueuer(KerasData(5), True, start_method="fork") as enqueuer:
        enqueuer.start(workers=2)
        got = take(enqueuer.get(), 10)
    assert [(int(y[0]), int(y[1])) for _, y in got] == \
        [(i, 0) for i in range(5)] + [(i, 1) for i in range(5)]
    assert ("end", 0) in events


def test_a_generator_in_worker_processes_with_a_random_seed():
    def draws(seed):
        enqueuer = utils.GeneratorEnqueuer(sw.random_numbers(20), True, random_seed=seed,
                                           start_method="fork")
        enqueuer.start(workers=1, max_queue_size=3)
        got = list(enqueuer.get())
        assert not enqueuer.is_running()
        return got

    a = draws(5)
    assert len(a) == 20 and a == draws(5) and a != draws(6)
    # each worker process runs its own copy of the generator
    enqueuer = utils.GeneratorEnqueuer(sw.random_numbers(10), True, random_seed=1,
                                       start_method="fork")
    enqueuer.start(workers=2)
    assert len(list(enqueuer.get())) in range(10, 21)


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_ctrl_c_in_the_consumer_stops_the_worker_processes(tmp_path, method):
    # One worker is busy (at the gate), the other idle: both end.
    child, workers, out = run_ctrl_c_child(tmp_path, processes=True, start_method=method)
    assert out == "interrupted False []\n", out
    assert len(workers) == 2
    for pid in workers:
        assert not os.path.exists(f"/proc/{pid}"), pid  # joined by the child
    assert shm_blocks(child) == []


def test_stop_ends_busy_worker_processes(tmp_path):
    gate = sw.Gate(tmp_path)
    enqueuer = utils.OrderedEnqueuer(sw.Blocking(6, block=2, gate=gate), True,
                                     start_method="fork")
    enqueuer.start(workers=2, max_queue_size=3)
    gen = enqueuer.get()
    assert [int(b[0]) for b in take(gen, 2)] == [0, 1]
    gate.wait_arrived()
    enqueuer.stop()  # the worker at the gate is terminated
    assert list(gen) == [] and not enqueuer.is_running()
    gate.close()


def test_a_dropped_enqueuer_stops_its_processes():
    import gc
    enqueuer = utils.OrderedEnqueuer(sw.Arrays(6), True, start_method="fork")
    enqueuer.start(workers=2, max_queue_size=2)
    batch = next(enqueuer.get())
    del enqueuer
    gc.collect()
    for t in enqueuer_threads():
        t.join(TIMEOUT)
    assert_same_batch(batch, sw.Arrays(6)[0])  # still readable: its block is unlinked only


EXIT_CHILD = """
import os, sys
from inflow import utils
import sequence_workers as sw

if __name__ == "__main__":
    enqueuer = utils.OrderedEnqueuer(sw.Arrays(6), True, start_method=sys.argv[1])
    enqueuer.start(workers=2, max_queue_size=3)
    gen = enqueuer.get()
    kept = [next(gen) for _ in range(4)]
    print(os.getpid(), *enqueuer._run.backend.pids(), flush=True)
    # exits without stop(): the exit handler stops the workers
"""


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_exiting_without_stop_leaves_no_worker_and_no_block(tmp_path, method):
    script = tmp_path / "child.py"
    script.write_text(EXIT_CHILD)
    proc = subprocess.run([sys.executable, str(script), method], capture_output=True,
                          text=True, env=package_env(), timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    child, *workers = [int(p) for p in proc.stdout.split()]
    assert len(workers) == 2
    for pid in workers:
        assert not os.path.exists(f"/proc/{pid}"), pid
    assert shm_blocks(child) == []


def test_max_queue_size_bounds_the_batches_computed_ahead(tmp_path):
    # threads: the producer asks for max_queue_size batches, no more
    seq = SignalsComputed(50, count=3)
    with utils.OrderedEnqueuer(seq) as enqueuer:
        enqueuer.start(workers=4, max_queue_size=3)
        assert seq.computed.wait(TIMEOUT)
        threading.Event().wait(0.1)  # the time to overshoot, if it would
        assert sum(e[0] == "get" for e in seq.events) == 3
        next(enqueuer.get())
    # processes: likewise, and the shared memory follows
    log = str(tmp_path / "calls")
    seq = sw.Recording(50, log=log)
    with utils.OrderedEnqueuer(seq, True, start_method="fork") as enqueuer:
        enqueuer.start(workers=4, max_queue_size=3)
        gen = enqueuer.get()
        first = next(gen)
        threading.Event().wait(0.3)  # the time to overshoot, if it would
        assert len(read_log(log)) <= 1 + 3
        assert len(shm_blocks()) <= 1 + 3
        del first


@pytest.mark.parametrize("keep_mb", ["256", "0"])
def test_worker_processes_keep_freed_memory_for_the_next_batch(monkeypatch, keep_mb):
    # 12 MB of temporaries made and dropped per batch: glibc by default
    # gives them back to the kernel and faults fresh pages in for the next
    # batch (3,000 faults); a worker keeps them (none after the first).
    # Spawned workers: a forked one would inherit the parent's malloc
    # tuning, whatever it is.
    monkeypatch.setenv("INFLOW_WORKER_KEEP_HEAP_MB", keep_mb)
    with utils.OrderedEnqueuer(sw.PageFaults(6), True, start_method="spawn") as enqueuer:
        enqueuer.start(workers=1, max_queue_size=2)
        gen = enqueuer.get()
        faults = [int(next(gen)[0]) for _ in range(6)]
    if keep_mb != "0":
        assert max(faults[2:]) < 100, faults
    else:
        assert min(faults[2:]) > 1000, faults


def test_a_generator_does_not_pickle_for_spawn():
    enqueuer = utils.GeneratorEnqueuer(counting(3), True, start_method="spawn")
    with pytest.raises(Exception, match="generator.*cannot be pickled"):
        enqueuer.start()
    assert not enqueuer.is_running()
