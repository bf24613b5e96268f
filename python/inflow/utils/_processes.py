"""Worker processes for the enqueuers (use_multiprocessing=True).

Tasks go to each worker over its own pipe as small messages (task id,
batch index, the name and size of a shared-memory block), several in one
message: a worker is sent tasks when it has at most half of its share of
max_queue_size left, up to its share (at least ``_AHEAD``). The tasks are
sent by the thread that has them, with no other thread between: the
producer thread as it submits, get() as it takes a batch and hands the next
staged one on (see _Run). get() reads the results from the workers' pipes
itself (ProcessWorkers.pump), every worker's as they come, so that a worker
ahead of the head batch's is given more work at once. One manager thread
waits with one select.poll on the processes' sentinels and a wake-up pipe
(stop, a new sequence after on_epoch_end): a worker that dies is seen at
once, with the batches it was given. The threads take turns under
``io_lock``.

A worker writes the NumPy arrays of a batch into its block (a file in
/dev/shm, grown when too small) and sends back only the batch's structure
with offsets, dtypes and shapes (other leaves pickled in it). The parent's
arrays are views of its own map of the block, all based on one uint8 array
per batch; when the consumer has dropped them all a weak reference's
callback gives the block back for reuse (the most recently used first).
The parent creates and removes every block: nothing is left in /dev/shm
after stop(). What a worker runs is in _worker.py (it keeps the memory it
frees for its next batch: KEEP_HEAP_MB).
"""

import collections
import mmap
import multiprocessing
import os
import pickle
import secrets
import select
import signal
import threading
import warnings
import weakref

import numpy as np

from inflow.utils._enqueuers import RemoteTraceback, WorkerProcessError, _remaining
from inflow.utils._worker import (  # the worker's side
    _build, _parent_fds, _parent_maps, _registry_lock, _SHM_DIR, _worker_main,
    pickle_source)

_AHEAD = 2  # tasks a worker may have: one being computed, one waiting

# -- the parent side -------------------------------------------------------------------

class _Block:
    __slots__ = ("name", "size", "mm", "ref", "__weakref__")

    def __init__(self, name):
        self.name = name
        self.size = 0
        self.mm = None
        self.ref = None


class _Worker:
    __slots__ = ("number", "process", "conn", "outstanding", "conn_open", "poller")

    def __init__(self, number, process, conn):
        self.number = number
        self.process = process
        self.conn = conn
        self.outstanding = collections.deque()  # (task id, slot, block)
        self.conn_open = True
        # Connection.poll() builds a selector per call: ten times this.
        self.poller = select.poll()
        self.poller.register(conn.fileno(), select.POLLIN)

    def readable(self):
        """A message (or the end of the pipe) is waiting."""
        return bool(self.poller.poll(0))


_RESYNC = "resync"  # (_RESYNC, payload) in the queue: the sequence changed


class ProcessWorkers:
    """The worker processes of one enqueuer run (see the module's doc)."""

    def __init__(self, run, source, start_method, restart_workers, random_seed):
        self.run = run
        self.kind = run.kind
        self.ctx = multiprocessing.get_context(start_method)
        self.method = self.ctx.get_start_method()
        self.source = source
        self.restart = restart_workers
        self.random_seed = random_seed
        self.payload = None
        self.pending = collections.deque()   # from the producer (run.lock)
        self.queue = collections.deque()     # the manager's, not yet sent
        self.workers = []
        self.blocks = {}
        self.free_blocks = collections.deque()
        self.released = collections.deque()  # from weak reference callbacks
        self.max_free_blocks = run.max_queue_size + 2
        self.prefix = f"inflow-{os.getpid()}-{secrets.token_hex(4)}-"
        self.block_count = 0
        self.task_count = 0
        self.wake_r = self.wake_w = None
        # _wake() runs in any thread (a weak reference's callback among
        # them, possibly inside a section holding it: reentrant).
        self.wake_lock = threading.RLock()
        self.woken = False  # a byte is in the wake-up pipe
        self.manager = None
        # The workers, their pipes, tasks and blocks: the manager thread and
        # get() (reading its batch from the worker's pipe) take turns.
        self.io_lock = threading.RLock()
        self.poke_r = self.poke_w = None  # wakes get() from its poll
        self.pump_thread = None  # the thread in pump(), if any
        self.poked = False

    # -- called by the run -------------------------------------------------------

    def start(self):
        if self.method != "fork":
            self.payload = pickle_source(self.source, self.method, self.kind)
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        self.poke_r, self.poke_w = os.pipe()
        for fd in (self.poke_r, self.poke_w):
            os.set_blocking(fd, False)
        with _registry_lock:
            _parent_fds.update((self.wake_r, self.wake_w, self.poke_r, self.poke_w))
        try:
            for number in range(self.run.workers):
                self.workers.append(self._start_worker(number))
        except BaseException:
            self._teardown()
            raise
        self.manager = threading.Thread(target=self._manage, name="inflow-enqueuer-manager",
                                        daemon=True)
        self.manager.start()

    def submit(self, slot):  # run.lock held
        self.pending.append(slot)

    def flush(self):
        """(run.lock not held) Sends the submitted tasks to the workers from
        the calling thread (the producer's): no wake-up of the manager, no
        hand-over of the GIL to it per batch."""
        with self.io_lock:
            self._send_pending()

    def wake_all(self):  # run.lock held
        self._wake()
        self.poke()

    def poke(self):  # run.lock held
        """Wakes get() from pump() (not when get() itself calls this)."""
        thread = self.pump_thread
        if thread is None or thread == threading.get_ident() or self.poked:
            return
        with self.wake_lock:
            if self.poke_w is None:
                return
            self.poked = True
            try:
                os.write(self.poke_w, b"\0")
            except OSError:
                pass

    def pump(self, worker):
        """get()'s wait for the head batch, which ``worker`` computes
        (run.lock not held): reads the messages of every worker as they
        come, so that a worker ahead of the head batch's is given its next
        task at once. True when a message was read (or get() was poked);
        False when get() should look again after a short wait (the head
        batch's worker died: the manager thread reports it)."""
        with self.io_lock:
            if worker not in self.workers or not worker.conn_open or \
                    not worker.outstanding or self.poke_r is None:
                return False
            poller = select.poll()
            readers = {}
            for w in self.workers:
                if w.conn_open and w.outstanding:
                    readers[w.conn.fileno()] = w
                    poller.register(w.conn.fileno(), select.POLLIN)
            poller.register(worker.process.sentinel, select.POLLIN)
            poller.register(self.poke_r, select.POLLIN)
            self.pump_thread = threading.get_ident()
        try:
            ready = {f for f, _ in poller.poll()}
        finally:
            self.pump_thread = None
        with self.io_lock:
            if self.poke_r is None:
                return False
            if self.poke_r in ready:
                with self.wake_lock:
                    self.poked = False
                    try:
                        os.read(self.poke_r, 4096)
                    except BlockingIOError:
                        pass
            read = False
            for f, w in readers.items():
                if f in ready and self._receive_ready(w):
                    read = True
            if self.released:
                self._recycle()
            if self.queue:
                self._dispatch()
            return read or self.poke_r in ready

    def _receive_ready(self, worker):
        """(io_lock held) Receives the messages ``worker`` has sent; True
        when there was one."""
        got = False
        while worker in self.workers and worker.conn_open and worker.outstanding:
            if got and not worker.readable():
                break
            self._receive(worker)
            got = True
        return got

    def epoch_changed(self):
        """After on_epoch_end (producer thread, every batch taken): the
        workers get the sequence as it is now."""
        payload = None
        if self.method != "fork":
            payload = pickle_source(self.source, self.method, self.kind)
        with self.run.lock:
            self.pending.append((_RESYNC, payload))
            self._wake()

    def shutdown(self, deadline, wait_busy=True):
        if self.manager is None:
            return True
        if self.manager is not threading.current_thread():
            self.manager.join(_remaining(deadline))
        return not self.manager.is_alive()

    def pids(self):
        return [w.process.pid for w in self.workers if w.process.pid is not None]

    # -- workers -----------------------------------------------------------------

    def _start_worker(self, number):
        parent_conn, child_conn = self.ctx.Pipe(duplex=True)
        forked = self.method == "fork"
        source = self.source if forked else self.payload
        process = self.ctx.Process(
            target=_worker_main, name=f"inflow-enqueuer-worker-{number}", daemon=True,
            args=(child_conn, number, self.kind, source, not forked, self.random_seed,
                  forked))
        with _registry_lock:
            _parent_fds.add(parent_conn.fileno())
        try:
            process.start()
        except BaseException:
            self._close_conn(parent_conn)
            child_conn.close()
            raise
        child_conn.close()
        return _Worker(number, process, parent_conn)

    def _close_conn(self, conn):
        try:
            fd = conn.fileno()
        except OSError:
            return
        with _registry_lock:
            _parent_fds.discard(fd)
        conn.close()

    def _end_worker(self, worker, terminate):
        """Asks ``worker`` to exit (kills it when ``terminate``)."""
        if worker.conn_open:
            try:
                worker.conn.send(("stop",))
            except OSError:
                pass
        if terminate and worker.process.exitcode is None:
            worker.process.terminate()

    def _reap(self, workers, timeout=2.0):
        for w in workers:
            w.process.join(timeout)
            if w.process.exitcode is None:
                w.process.kill()
                w.process.join()
            self._close_conn(w.conn)
            w.conn_open = False
            w.process.close()

    # -- the manager thread ---------------------------------------------------------

    def _wake(self):
        with self.wake_lock:
            if self.wake_w is None or self.woken:
                return  # torn down, or a byte not yet read
            self.woken = True
            try:
                os.write(self.wake_w, b"\0")
            except OSError:
                pass

    def _manage(self):
        try:
            self._loop()
        except BaseException as e:  # noqa: BLE001  a bug here must not hang get()
            error = WorkerProcessError(f"the enqueuer's manager thread failed: {e!r}")
            error.__cause__ = e
            self.run.fail(error)
        finally:
            with self.io_lock:
                self._teardown()

    def _loop(self):
        run = self.run
        # One poll object, registered again only when the workers change
        # (multiprocessing.connection.wait builds a selector per call).
        poller = None
        key = None
        handles = {}
        while True:
            with self.io_lock:
                with run.lock:
                    if run.stopping:
                        return
                self._send_pending()
                now = tuple(self.workers)
            if now != key:
                key = now
                poller = select.poll()
                handles = {self.wake_r: (None, None)}
                poller.register(self.wake_r, select.POLLIN)
                for w in self.workers:
                    # Not the pipes: get() reads them (pump()).
                    fd = w.process.sentinel
                    handles[fd] = (w, None)
                    poller.register(fd, select.POLLIN)
            events = poller.poll()
            for fd, _ in events:
                worker, _ = handles[fd]
                if worker is None:
                    with self.wake_lock:
                        self.woken = False
                        try:
                            os.read(self.wake_r, 4096)
                        except BlockingIOError:
                            pass
                else:
                    with self.io_lock:
                        if worker in self.workers:
                            self._died(worker)

    def _send_pending(self):
        """(io_lock held) The submitted tasks, and any queued before, to the
        workers; the blocks the consumer dropped back to the free list."""
        with self.run.lock:
            if self.pending:
                self.queue.extend(self.pending)
                self.pending.clear()
        if self.released:
            self._recycle()
        if self.queue:
            self._dispatch()

    def _dispatch(self):
        """Sends the queued tasks to the workers: to a worker with at most
        half of its share left, as many as fill its share, in one message
        (one write, and at most one wake-up of it, per several batches)."""
        sends = {}
        try:
            while self.queue:
                item = self.queue[0]
                if isinstance(item, tuple) and item[0] == _RESYNC:
                    if sends or any(w.outstanding for w in self.workers):
                        return
                    self.queue.popleft()
                    self._resync(item[1])
                    continue
                live = [w for w in self.workers if w.conn_open]
                if not live:
                    return
                worker = min(live, key=lambda w: len(w.outstanding))
                # Enough tasks that the workers go on while get() is not
                # called (it reads the results).
                share = max(_AHEAD, -(-self.run.max_queue_size // len(live)))
                n = len(worker.outstanding)
                if n >= share or (n > share // 2 and worker not in sends):
                    return
                self._add_task(worker, self.queue.popleft(), sends)
        finally:
            for worker, tasks in sends.items():
                try:
                    worker.conn.send(("tasks", tasks))
                except OSError:
                    worker.conn_open = False  # it died: its sentinel says how

    def _add_task(self, worker, slot, sends):
        block = self.free_blocks.pop() if self.free_blocks else self._new_block()
        self.task_count += 1
        task = self.task_count
        worker.outstanding.append((task, slot, block))
        slot.owner = worker
        run = self.run
        with run.lock:
            if run.slots and run.slots[0] is slot:
                run.consumer_cv.notify_all()  # get() waits on its pipe now
        sends.setdefault(worker, []).append((task, slot.index, block.name, block.size))

    def _new_block(self):
        self.block_count += 1
        block = _Block(f"{self.prefix}{self.block_count}")
        fd = os.open(os.path.join(_SHM_DIR, block.name),
                     os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        os.close(fd)
        self.blocks[block.name] = block
        return block

    def _release_callback(self, block):
        # No wake-up: the manager takes the released blocks back before it
        # next sends a task (it is woken for that).
        released = self.released

        def callback(_ref):
            released.append(block)
        return callback

    def _recycle(self):
        while self.released:
            block = self.released.popleft()
            block.ref = None
            self._free(block)

    def _free(self, block):
        if block.name not in self.blocks:
            return
        # Taken from the right (the block used last, still in the caches);
        # the oldest retired from the left.
        self.free_blocks.append(block)
        while len(self.free_blocks) > self.max_free_blocks:
            self._retire(self.free_blocks.popleft())

    def _retire(self, block):
        del self.blocks[block.name]
        for w in self.workers:
            if w.conn_open:
                try:
                    w.conn.send(("forget", block.name))
                except OSError:
                    w.conn_open = False
        self._unlink(block)

    def _unlink(self, block):
        try:
            os.unlink(os.path.join(_SHM_DIR, block.name))
        except FileNotFoundError:
            pass
        if block.mm is not None and block.ref is None:
            try:
                block.mm.close()
            except BufferError:
                pass  # arrays still use it: unmapped when they go

    def _map(self, block, size):
        if block.mm is not None and block.size == size:
            return
        if block.mm is not None:
            try:
                block.mm.close()
            except BufferError:
                pass
        fd = os.open(os.path.join(_SHM_DIR, block.name), os.O_RDWR)
        try:
            block.mm = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        block.size = size
        with _registry_lock:
            _parent_maps.add(block.mm)

    def _receive(self, worker):
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):
            worker.conn_open = False  # it died: its sentinel says how
            return
        op = message[0]
        if op == "init_error":
            _, data, type_name, text, tb = message
            error = WorkerProcessError(
                f"worker process {worker.process.pid} could not start: {type_name}: {text}",
                pid=worker.process.pid)
            error.__cause__ = RemoteTraceback(tb)
            self.run.fail(error)
            return
        task, slot, block = worker.outstanding.popleft()
        assert task == message[1], (task, message[1])
        value = error = None
        end = False
        if op == "ok":
            _, _, meta, size, used = message
            if used:
                self._map(block, size)
                owner = np.frombuffer(block.mm, dtype=np.uint8, count=used)
                block.ref = weakref.ref(owner, self._release_callback(block))
                value = _build(meta, owner)
                del owner
            else:
                value = _build(meta, None)
                self._free(block)
        else:
            self._free(block)
            if op == "end":
                end = True
            else:
                error = self._remote_error(message[2:], slot, worker)
        slot.worker = worker.number
        with self.run.lock:
            self.run.complete(slot, value, error, end)

    def _remote_error(self, payload, slot, worker):
        data, type_name, text, tb = payload
        error = None
        if data is not None:
            try:
                error = pickle.loads(data)
            except Exception:  # noqa: BLE001
                error = None
        if not isinstance(error, BaseException):
            error = RuntimeError(f"{type_name}: {text}")
        error.__cause__ = RemoteTraceback(tb)
        where = ("next(generator)" if slot.index is None
                 else f"__getitem__({slot.index})")
        try:
            error.add_note(f"(raised by {where} in worker process {worker.process.pid} "
                           f"of {self.run.name}; its traceback is above)")
            error._inflow_annotated = True
        except Exception:  # noqa: BLE001
            pass
        return error

    def _died(self, worker):
        # What it sent before dying counts.
        while worker.conn_open:
            try:
                if not worker.conn.poll():
                    break
            except (EOFError, OSError):
                break
            self._receive(worker)
        worker.process.join(5.0)
        code = worker.process.exitcode
        pid = worker.process.pid
        if code is None:
            how = "stopped answering"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            how = f"was killed by {name} (signal {-code})"
        else:
            how = f"exited with code {code}"
        self.workers.remove(worker)
        self._close_conn(worker.conn)
        worker.conn_open = False
        tasks = list(worker.outstanding)
        worker.outstanding.clear()
        for _, _, block in tasks:
            self._free(block)
        if tasks:
            slot = tasks[0][1]
            what = ("next(generator)" if slot.index is None
                    else f"batch {slot.index}")
            message = f"worker process {pid} {how} while computing {what}"
        else:
            slot = None
            message = f"worker process {pid} {how} while idle"
        if self.restart and slot is not None and not slot.retried:
            slot.retried = True
            warnings.warn(f"{message}: inflow started another and computes it again",
                          RuntimeWarning, stacklevel=1)
            for _, s, _ in reversed(tasks):
                self.queue.appendleft(s)
            self.workers.append(self._start_worker(worker.number))
            return
        if slot is not None and slot.retried:
            message += " (the second time: restart_workers retries a batch once)"
        error = WorkerProcessError(
            f"{message} ({self.run.name}, start method {self.method!r})",
            index=None if slot is None else slot.index, pid=pid, exitcode=code)
        if slot is None:
            self.run.fail(error)  # at once: there is no batch to wait for
        else:
            # In its place: get() yields the batches before it first (the
            # other workers compute them), then raises this.
            error._inflow_annotated = True
            with self.run.lock:
                self.run.complete(slot, error=error)

    def _resync(self, payload):
        if self.method == "fork":
            # New processes, forked from the parent as it is now.
            old = self.workers
            self.workers = []
            for w in old:
                self._end_worker(w, terminate=False)
            self._reap(old)
            for w in old:
                self.workers.append(self._start_worker(w.number))
        else:
            self.payload = payload
            for w in self.workers:
                if w.conn_open:
                    try:
                        w.conn.send(("source", payload))
                    except OSError:
                        w.conn_open = False

    def _teardown(self):
        workers, self.workers = self.workers, []
        for w in workers:
            self._end_worker(w, terminate=bool(w.outstanding))
        self._reap(workers)
        for block in list(self.blocks.values()):
            self._unlink(block)
        self.blocks.clear()
        self.free_blocks.clear()
        with self.wake_lock, _registry_lock:
            for fd in (self.wake_r, self.wake_w, self.poke_r, self.poke_w):
                if fd is not None:
                    _parent_fds.discard(fd)
                    os.close(fd)
            self.wake_r = self.wake_w = self.poke_r = self.poke_w = None


def _stop_runs_at_exit():
    from inflow.utils import _enqueuers
    _enqueuers._stop_live_runs()


# Registered after multiprocessing's own exit handler, so run before it:
# the workers are stopped and the blocks removed by us first.
import atexit  # noqa: E402
atexit.register(_stop_runs_at_exit)
