"""Graphs: TF1's default-graph scoping of queue runners and seeds.

inflow runs every call eagerly, but TF1 programs still lean on the graph for
two things, and ``inflow.Graph`` keeps both: its collections (the queue
runners that producers, batching calls and ``add_queue_runner`` register,
which ``start_queue_runners`` starts) and its random seed
(``set_random_seed``, from which every later seeded op derives its seeds
as ``tf.compat.v1.get_seed`` derives them). A program that trains, stops
its coordinator and then builds an evaluation pipeline in a new graph::

    with inflow.Graph().as_default():
        ...eval pipeline...
        threads = inflow.train.start_queue_runners(coord=coord)

starts only the evaluation graph's runners, as in TF.

As in TF, the default graph belongs to the thread: a thread starts with its
own global default graph, and ``as_default()`` stacks per thread. The first
global default graph the process makes (the importing thread's) holds C++'s
``QueueRunnerCollection::Default()``, so runners C++ code adds there start
with its ``start_queue_runners``.
"""

import contextlib
import hashlib
import re
import threading

from inflow import _inflow

__all__ = ["Graph", "GraphKeys", "get_default_graph", "reset_default_graph",
           "set_random_seed", "get_seed", "get_collection", "get_collection_ref",
           "add_to_collection", "add_to_collections"]

# TF's DEFAULT_GRAPH_SEED (the graph seed of an op seed without one) and
# _MAXINT32 (seeds are reduced modulo it).
DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


class GraphKeys:
    """TF's standard collection names (tf.compat.v1.GraphKeys), those inflow
    uses."""

    QUEUE_RUNNERS = "queue_runners"


def _is_queue_runner(value):
    from inflow.train._coordination import QueueRunner
    return isinstance(value, QueueRunner)


class Graph:
    """A graph (tf.Graph) as far as inflow has one: a random seed and the
    collections (queue runners by collection name, other values as Python
    lists).

    Queue runners in a collection live in the graph's native collection
    (C++ producers and batching calls register there); ``get_collection``
    gives them back as the QueueRunner objects that were added (C++-made
    runners as QueueRunner objects over them, the same object each time).
    Thread-safe.
    """

    def __init__(self):
        self._init(_inflow._QueueRunnerCollection())

    def _init(self, native):
        self._native = native
        self._lock = threading.RLock()
        self._seed = None
        # TF's _graph_to_seed_dict entry: how many ops asked for a seed
        # without an op seed while the graph had one.
        self._unseeded_ops = 0
        self._collections = {}  # name -> list of values other than runners
        self._runner_objects = {}  # native runner key -> QueueRunner

    @classmethod
    def _over_default_collection(cls):
        g = cls.__new__(cls)
        g._init(_inflow._QueueRunnerCollection.default())
        return g

    # Seeds -------------------------------------------------------------

    @property
    def seed(self):
        """The graph-level random seed (None: not set)."""
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    def _next_unseeded_op(self):
        with self._lock:
            n = self._unseeded_ops
            self._unseeded_ops += 1
            return n

    # Scoping -----------------------------------------------------------

    @contextlib.contextmanager
    def as_default(self):
        """Makes this graph the default graph of the calling thread inside
        the ``with`` block (nestable; tf.Graph.as_default)."""
        stack = _STATE.stack
        stack.append(self)
        try:
            yield self
        finally:
            # As TF: the innermost entry for this graph leaves.
            for i in range(len(stack) - 1, -1, -1):
                if stack[i] is self:
                    del stack[i]
                    break

    # Collections -------------------------------------------------------

    def add_to_collection(self, name, value):
        """Adds `value` to collection `name`. A QueueRunner goes into the
        graph's runner collection, which start_queue_runners starts."""
        if _is_queue_runner(value):
            if not isinstance(name, str):
                raise TypeError("a collection of queue runners is named by a "
                                "string, got %r" % (name,))
            with self._lock:
                self._runner_objects[value._native._key] = value
            self._native.add(value._native, name)
            return
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        """add_to_collection for each of `names` (a name or a list; each
        distinct name once)."""
        if isinstance(names, str):
            names = (names,)
        for name in dict.fromkeys(names):
            self.add_to_collection(name, value)

    def _runners(self, name):
        from inflow.train._coordination import QueueRunner
        if not isinstance(name, str):
            return []
        out = []
        for native in self._native.get(name):
            with self._lock:
                qr = self._runner_objects.get(native._key)
                if qr is None:
                    qr = QueueRunner._from_native(native)
                    self._runner_objects[native._key] = qr
            out.append(qr)
        return out

    def get_collection(self, name, scope=None):
        """A list of the values in collection `name` (a copy), in the order
        they were added (queue runners first); with `scope`, those whose
        ``name`` matches it from the start (re.match), as TF."""
        with self._lock:
            values = list(self._collections.get(name, ()))
        values = self._runners(name) + values
        if scope is None:
            return values
        regex = re.compile(scope)
        out = []
        for v in values:
            try:
                if regex.match(v.name):
                    out.append(v)
            except AttributeError:  # as TF: values without a name are left out
                pass
        return out

    def get_collection_ref(self, name):
        """The list of collection `name` itself (created if missing), for a
        collection without queue runners; TypeError for one with them
        (their list lives in C++)."""
        if self._runners(name):
            raise TypeError("collection %r holds queue runners: use "
                            "get_collection / add_to_collection" % (name,))
        with self._lock:
            return self._collections.setdefault(name, [])

    def clear_collection(self, name):
        """Empties collection `name`."""
        if isinstance(name, str):
            self._native.clear(name)
        with self._lock:
            self._collections.pop(name, None)

    def get_all_collection_keys(self):
        """The names of the non-empty Python-side collections and of
        QUEUE_RUNNERS when it has runners."""
        with self._lock:
            keys = [k for k, v in self._collections.items() if v]
        if GraphKeys.QUEUE_RUNNERS not in keys and self._runners(GraphKeys.QUEUE_RUNNERS):
            keys.append(GraphKeys.QUEUE_RUNNERS)
        return keys

    def __repr__(self):
        return "<inflow.Graph at 0x%x seed=%r>" % (id(self), self._seed)


class _State(threading.local):
    """Per thread, as TF's _DefaultGraphStack: the as_default() stack and
    the thread's global default graph."""

    def __init__(self):
        self.stack = []
        self.global_default = None


_STATE = _State()
_FIRST_LOCK = threading.Lock()
_FIRST_MADE = [False]


def get_default_graph():
    """The calling thread's default graph (tf.compat.v1.get_default_graph):
    the innermost ``as_default()`` graph, else the thread's global default
    graph."""
    if _STATE.stack:
        return _STATE.stack[-1]
    if _STATE.global_default is None:
        with _FIRST_LOCK:
            first = not _FIRST_MADE[0]
            _FIRST_MADE[0] = True
        _STATE.global_default = (Graph._over_default_collection() if first
                                 else Graph())
    return _STATE.global_default


# The importing thread's global default graph is the first: it holds C++'s
# default collection.
get_default_graph()


def reset_default_graph():
    """Replaces the calling thread's global default graph by a new, empty
    one (tf.compat.v1.reset_default_graph). AssertionError inside an
    ``as_default()`` block, as TF. The old graph and its runners stay as
    they were."""
    if _STATE.stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear "
                             "nested graphs. If you need a cleared graph, "
                             "exit the nesting and create a new graph.")
    _STATE.global_default = Graph()


def set_random_seed(seed):
    """Sets the default graph's random seed
    (tf.compat.v1.set_random_seed); None unsets it."""
    get_default_graph().seed = seed


def get_seed(op_seed):
    """The (seed, seed2) an op with `op_seed` gets in the default graph
    (tf.compat.v1.get_seed):

    - graph seed and op seed: (graph seed, op seed);
    - graph seed alone: (graph seed, n), n the number of ops of this graph
      that asked before (TF's count);
    - op seed alone: (87654321, op seed);
    - neither: (None, None), a random generator.

    Seeds are taken modulo 2**31 - 1, and (0, 0) becomes (0, 2**31 - 1).
    """
    graph = get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            op_seed = graph._next_unseeded_op()
        seeds = int(global_seed) % _MAXINT32, int(op_seed) % _MAXINT32
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def _queue_seeds(op_seed, shared_name):
    """A RandomShuffleQueue's (seed, seed2), as TF's constructor makes them:
    get_seed(op_seed), except that a graph seed without an op seed and a
    shared_name take seed2 from an MD5 of the graph seed and the name (the
    count still advances); (None, None) when unseeded."""
    seed1, seed2 = get_seed(op_seed)
    if seed1 is not None and op_seed is None and shared_name is not None:
        digest = hashlib.md5((str(seed1) + shared_name).encode("utf-8")).hexdigest()
        seed2 = int(digest[:8], 16) & 0x7FFFFFFF
    return seed1, seed2


def _collection():
    """The default graph's native runner collection."""
    return get_default_graph()._native


def get_collection(key, scope=None):
    """get_default_graph().get_collection (tf.compat.v1.get_collection)."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    """get_default_graph().get_collection_ref."""
    return get_default_graph().get_collection_ref(key)


def add_to_collection(name, value):
    """get_default_graph().add_to_collection
    (tf.compat.v1.add_to_collection)."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    """get_default_graph().add_to_collections."""
    get_default_graph().add_to_collections(names, value)
