"""Sequences for test_py_sequences.py, in a module of their own so that
worker processes started with spawn or forkserver can import them (pickled
by reference). Only NumPy is imported here."""
import os
import random
import resource
import signal
import threading
import time

import numpy as np

import inflow.utils


def _delay(seed, epoch, index, max_delay):
    """A random delay for batch ``index`` of ``epoch``: the same in any
    process, without a generator shared between threads."""
    if max_delay:
        time.sleep(random.Random(f"{seed}/{epoch}/{index}").random() * max_delay)


class Recording(inflow.utils.Sequence):
    """``n`` batches (a dict: the index, the epoch the worker's copy was
    at, and a small image) after a random delay of up to ``max_delay``
    seconds; records, in this process, every call in ``events``: ("get",
    epoch, index) and ("end", epoch)."""

    def __init__(self, n, max_delay=0.0, seed=0, lengths=None, log=None):
        self.n = n
        self.log = log  # a file each call appends "epoch index pid" to
        self.max_delay = max_delay
        self.seed = seed
        self.epoch = 0
        self.lengths = lengths  # per-epoch lengths, for a length that changes
        self.events = []
        self._lock = threading.Lock()

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_lock"]
        state["events"] = []
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __len__(self):
        if self.lengths is not None:
            return self.lengths[min(self.epoch, len(self.lengths) - 1)]
        return self.n

    def __getitem__(self, index):
        epoch = self.epoch
        _delay(self.seed, epoch, index, self.max_delay)
        with self._lock:
            self.events.append(("get", epoch, index))
        if self.log is not None:
            fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(fd, f"{epoch} {index} {os.getpid()}\n".encode())
            os.close(fd)
        return {"index": np.int64(index), "epoch": np.array(epoch),
                "image": np.full((4, 3), index, dtype=np.float32),
                "pid": np.array(os.getpid())}

    def on_epoch_end(self):
        with self._lock:
            self.events.append(("end", self.epoch))
            self.epoch += 1


class PageFaults(inflow.utils.Sequence):
    """Batch i: the page faults its worker took computing it, where
    computing is making and dropping three 4 MB NumPy temporaries (as a
    transform does)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        a = np.ones(1 << 20, np.float32)
        b = a * 2
        c = b + a
        total = float(c[::4096].sum())
        del a, b, c
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        return np.array([faults, total])


class Arrays(inflow.utils.Sequence):
    """Batches of several structures and sizes: (x, y) tuples, a list, a
    dict with a nested tuple, a 0-size array, a scalar and a string."""

    def __init__(self, n=6, rows=128):
        self.n = n
        self.rows = rows

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        rng = np.random.default_rng(index)
        x = rng.standard_normal((self.rows, 28, 28)).astype(np.float32)
        y = (np.arange(self.rows) + index).astype(np.int64)
        kind = index % 3
        if kind == 0:
            return x, y
        if kind == 1:
            return [x[:, ::2, 1::3], y.reshape(-1, 2)]  # not contiguous
        return {"x": x, "meta": (np.zeros((0, 3), np.uint8), index, "label"),
                "mask": x > 0}


def expected_arrays_batch(index, rows=128):
    return Arrays(index + 1, rows)[index]


class Failing(inflow.utils.Sequence):
    """Batch ``bad`` raises a ValueError naming it; the others are their
    index."""

    def __init__(self, n, bad):
        self.n = n
        self.bad = bad

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if index == self.bad:
            raise_bad_index(index)
        return np.full((3,), index)


def raise_bad_index(index):
    raise ValueError(f"batch {index} is bad")


class Crashing(inflow.utils.Sequence):
    """Batch ``bad`` ends the worker process: ``how`` is "exit" (os._exit
    with ``code``), "kill" (SIGKILL), "segv" (a segmentation fault) or
    "abort". With ``once_file``, only the first time (the file is created by
    the crashing call), so that a restarted worker computes it."""

    def __init__(self, n, bad, how, code=3, once_file=None):
        self.n = n
        self.bad = bad
        self.how = how
        self.code = code
        self.once_file = once_file

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if index == self.bad:
            crash = True
            if self.once_file is not None:
                try:
                    os.close(os.open(self.once_file, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                except FileExistsError:
                    crash = False
            if crash:
                if self.how == "exit":
                    os._exit(self.code)
                elif self.how == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                elif self.how == "segv":
                    import ctypes
                    signal.signal(signal.SIGSEGV, signal.SIG_DFL)
                    ctypes.string_at(0)
                elif self.how == "abort":
                    os.abort()
                # (a signal is delivered before kill() returns)
        return np.full((5,), index, dtype=np.int32)


class Gate:
    """A rendezvous between a test and a worker (thread or process, any
    start method) through two named pipes in ``directory``: the worker
    calls arrive_and_wait(), which tells the test (wait_arrived) and blocks
    until the test calls release(). Nothing polls."""

    def __init__(self, directory, name="gate"):
        self.arrived = os.path.join(str(directory), name + ".arrived")
        self.released = os.path.join(str(directory), name + ".released")
        os.mkfifo(self.arrived)
        os.mkfifo(self.released)
        # Opened read-write: the worker's non-blocking open for writing
        # finds a reader, and nothing sees an end of file.
        self._arrived_fd = os.open(self.arrived, os.O_RDWR | os.O_NONBLOCK)

    def __getstate__(self):
        return {"arrived": self.arrived, "released": self.released}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._arrived_fd = None

    def arrive_and_wait(self):
        r = os.open(self.released, os.O_RDWR)
        try:
            w = os.open(self.arrived, os.O_WRONLY | os.O_NONBLOCK)
            os.write(w, b"x")
            os.close(w)
            os.read(r, 1)
        finally:
            os.close(r)

    def wait_arrived(self, timeout=60):
        import select
        ready, _, _ = select.select([self._arrived_fd], [], [], timeout)
        assert ready, f"no worker arrived at the gate within {timeout} s"
        os.read(self._arrived_fd, 1)

    def release(self):
        try:
            w = os.open(self.released, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return  # nobody waiting (the worker is gone)
        os.write(w, b"x")
        os.close(w)

    def close(self):
        if self._arrived_fd is not None:
            os.close(self._arrived_fd)
            self._arrived_fd = None


class Blocking(inflow.utils.Sequence):
    """Batch ``block`` waits at ``gate`` (a Gate): a worker busy for as long
    as a test wants."""

    def __init__(self, n, block, gate):
        self.n, self.block, self.gate = n, block, gate

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        if index == self.block:
            self.gate.arrive_and_wait()
        return np.full((2,), index)


class BadState(inflow.utils.Sequence):
    """Pickles, but cannot be unpickled: a worker that cannot start."""

    def __init__(self):
        self.n = 2

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return index

    def __setstate__(self, state):
        raise RuntimeError("this sequence refuses to be unpickled")


def random_numbers(count):
    """A generator of ``count`` draws from NumPy's global generator."""
    for _ in range(count):
        yield np.random.random()


class Unpicklable(inflow.utils.Sequence):
    """A Sequence holding a lock two levels down: pickling it fails on
    ``.state["lock"]``."""

    def __init__(self):
        self.n = 3
        self.state = {"count": 0, "lock": threading.Lock()}

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return np.full((2,), index)
