"""What a worker process of the enqueuers runs, and what the parent shares
with it (python/inflow/utils/_processes.py has the parent's side).

A worker receives tasks (task id, batch index, a shared-memory block's
name and size) over its pipe, several per message, calls __getitem__ (or
next() of its copy of a generator), writes the batch's NumPy arrays into
the block and sends back only the batch's structure with each array's
offset, dtype and shape (_plan, _place; the parent rebuilds the batch as
views of its map of the block: _build). It keeps the memory it frees for
the next batch (KEEP_HEAP_MB) and ignores SIGINT (the parent stops it).
"""

import collections
import math
import mmap
import os
import pickle
import random
import signal
import threading
import traceback
import weakref

import numpy as np

_SHM_DIR = "/dev/shm"
_ALIGN = 64
_PAGE = mmap.PAGESIZE

# The parent's ends of every enqueuer's pipes and its maps of the blocks, in
# this process: a forked worker closes them (so that it sees the parent go,
# and holds no block the parent removes).
_parent_fds = set()
_parent_maps = weakref.WeakSet()
_registry_lock = threading.Lock()


# -- pickling the sequence ---------------------------------------------------------

def pickle_source(source, method, name="sequence"):
    """``source`` pickled, for workers started with spawn or forkserver;
    on failure an error naming the part that cannot be pickled (``name``
    being the whole)."""
    try:
        return pickle.dumps(source, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # noqa: BLE001  any pickling failure
        path, value, error = _unpicklable_part(source, name, 0, set()) or \
            (name, source, e)
        raise pickle.PicklingError(
            f"cannot send the {type(source).__name__} to worker processes started "
            f"with {method!r}: {path} ({type(value).__name__}) cannot be pickled "
            f"({type(error).__name__}: {error}). Make it picklable (e.g. __getstate__ "
            f"leaving it out and __setstate__ making it again) or use "
            f"start_method='fork'") from e


def _unpicklable_part(obj, path, depth, seen):
    """(path, object, error) of the innermost part of ``obj`` that does not
    pickle, or None when ``obj`` pickles."""
    try:
        pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        return None
    except Exception as e:  # noqa: BLE001
        error = e
    if depth < 8 and id(obj) not in seen:
        seen.add(id(obj))
        if isinstance(obj, dict):
            children = ((f"[{k!r}]", v) for k, v in obj.items())
        elif isinstance(obj, (list, tuple)):
            children = ((f"[{i}]", v) for i, v in enumerate(obj))
        else:
            attrs = dict(getattr(obj, "__dict__", {}))
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if isinstance(name, str) and hasattr(obj, name):
                        attrs.setdefault(name, getattr(obj, name))
            children = ((f".{k}", v) for k, v in attrs.items())
        for suffix, child in children:
            found = _unpicklable_part(child, path + suffix, depth + 1, seen)
            if found is not None:
                return found
    return path, obj, error


# -- batches through shared memory ------------------------------------------------

def _aligned(n):
    return (n + _ALIGN - 1) // _ALIGN * _ALIGN


def _plan(value, arrays):
    """The structure of ``value`` with its NumPy arrays replaced by
    placeholders; the arrays appended to ``arrays``."""
    t = type(value)
    if t is np.ndarray and not value.dtype.hasobject:
        if value.nbytes == 0:
            return ("e", value.dtype, value.shape)
        arrays.append(value)
        return ("a", len(arrays) - 1)
    if t is tuple:
        return ("t", [_plan(v, arrays) for v in value])
    if t is list:
        return ("l", [_plan(v, arrays) for v in value])
    if t is dict:
        return ("d", [(k, _plan(v, arrays)) for k, v in value.items()])
    if isinstance(value, tuple) and hasattr(t, "_fields"):  # a namedtuple
        return ("n", t, [_plan(v, arrays) for v in value])
    return ("o", value)


def _place(meta, arrays, offsets):
    """The placeholders of ``meta`` given their offsets in the block."""
    kind = meta[0]
    if kind == "a":
        a = arrays[meta[1]]
        dtype = a.dtype
        # A builtin dtype as its code: a tenth of the pickling time.
        return ("a", offsets[meta[1]], dtype.str if dtype.isbuiltin == 1 else dtype,
                a.shape)
    if kind in ("t", "l"):
        return (kind, [_place(m, arrays, offsets) for m in meta[1]])
    if kind == "d":
        return ("d", [(k, _place(m, arrays, offsets)) for k, m in meta[1]])
    if kind == "n":
        return ("n", meta[1], [_place(m, arrays, offsets) for m in meta[2]])
    return meta


def _build(meta, owner):
    """The batch described by ``meta``, its arrays views of ``owner``."""
    kind = meta[0]
    if kind == "a":
        _, offset, dtype, shape = meta
        dtype = np.dtype(dtype)
        nbytes = dtype.itemsize * math.prod(shape)
        return owner[offset:offset + nbytes].view(dtype).reshape(shape)
    if kind == "e":
        return np.empty(meta[2], meta[1])
    if kind == "t":
        return tuple(_build(m, owner) for m in meta[1])
    if kind == "l":
        return [_build(m, owner) for m in meta[1]]
    if kind == "d":
        return {k: _build(m, owner) for k, m in meta[1]}
    if kind == "n":
        return meta[1](*(_build(m, owner) for m in meta[2]))
    return meta[1]


class _WorkerMaps:
    """A worker's maps of the blocks it was given, by name."""

    def __init__(self):
        self.maps = {}

    def get(self, name, known_size, needed):
        entry = self.maps.get(name)
        if entry is not None and entry[1] == known_size and known_size >= needed:
            return entry
        self.forget(name)
        fd = os.open(os.path.join(_SHM_DIR, name), os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            if size < needed:
                size = (needed + _PAGE - 1) // _PAGE * _PAGE
                # Allocated now: a full /dev/shm is an error here, not a
                # SIGBUS while writing.
                os.posix_fallocate(fd, 0, size)
            mm = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        entry = (mm, size)
        self.maps[name] = entry
        return entry

    def forget(self, name):
        entry = self.maps.pop(name, None)
        if entry is not None:
            try:
                entry[0].close()
            except BufferError:
                pass


def _write_batch(value, maps, name, known_size):
    """Writes the arrays of ``value`` into block ``name``; returns (meta,
    block size, bytes used)."""
    arrays = []
    meta = _plan(value, arrays)
    if not arrays:
        return meta, known_size, 0
    offsets, used = [], 0
    for a in arrays:
        offsets.append(used)
        used += _aligned(a.nbytes)
    mm, size = maps.get(name, known_size, used)
    for a, offset in zip(arrays, offsets):
        np.ndarray(a.shape, a.dtype, buffer=mm, offset=offset)[...] = a
    return _place(meta, arrays, offsets), size, used


# -- the worker process --------------------------------------------------------------

# A worker's freed memory stays in its heap, up to this many MB (glibc's
# M_TRIM_THRESHOLD; allocations under 32 MB come from the heap:
# M_MMAP_THRESHOLD). By default glibc gives the memory of a batch's
# temporaries back to the kernel when they are freed and takes fresh,
# zeroed pages for the next batch's: half of the time of a NumPy
# __getitem__ on 400 KB arrays went to those page faults. 0 keeps glibc's
# defaults.
KEEP_HEAP_MB = int(os.environ.get("INFLOW_WORKER_KEEP_HEAP_MB", "256"))
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def _keep_heap():
    if KEEP_HEAP_MB <= 0:
        return
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return  # not glibc
    mallopt(_M_MMAP_THRESHOLD, 32 << 20)
    mallopt(_M_TRIM_THRESHOLD, KEEP_HEAP_MB << 20)


def _exception_message(e):
    text = "".join(traceback.format_exception(e))
    try:
        data = pickle.dumps(e, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(data)
    except Exception:  # noqa: BLE001  sent as text only
        data = None
    return data, f"{type(e).__module__}.{type(e).__qualname__}", str(e), text


def _worker_main(conn, worker_id, kind, source, pickled, random_seed, forked):
    if forked:
        # Only this worker's end of its own pipe stays open. (No lock: a
        # thread of the parent may have held it when this process forked.)
        fds, maps = list(_parent_fds), list(_parent_maps)
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        for m in maps:
            try:
                m.close()
            except (BufferError, ValueError):
                pass
    # Ctrl-C reaches every process of the terminal's foreground group: the
    # parent stops the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _keep_heap()
    try:
        if pickled:
            source = pickle.loads(source)
        if random_seed is not None:
            seed = random_seed + worker_id
        elif forked:
            seed = None  # not the parent's generator state in every worker
        else:
            seed = False
        if seed is not False:
            random.seed(seed)
            np.random.seed(None if seed is None else seed % 2**32)
    except BaseException as e:  # noqa: BLE001
        conn.send(("init_error",) + _exception_message(e))
        return
    maps = _WorkerMaps()
    tasks = collections.deque()
    while True:
        if tasks:
            message = ("task",) + tasks.popleft()
        else:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return  # the parent is gone
        op = message[0]
        if op == "tasks":
            tasks.extend(message[1])
        elif op == "task":
            _, task, index, name, size = message
            try:
                value = next(source) if kind == "generator" else source[index]
            except StopIteration:
                if kind != "generator":
                    raise
                conn.send(("end", task))
                continue
            except BaseException as e:  # noqa: BLE001  handed to get()
                conn.send(("error", task) + _exception_message(e))
                continue
            try:
                meta, size, used = _write_batch(value, maps, name, size)
                del value
                conn.send(("ok", task, meta, size, used))
            except BaseException as e:  # noqa: BLE001  e.g. a leaf that does not pickle
                conn.send(("error", task) + _exception_message(e))
        elif op == "source":
            source = pickle.loads(message[1])
        elif op == "forget":
            maps.forget(message[1])
        elif op == "stop":
            return
