"""TensorFlow's queues for the queue oracle (queue_tf_oracle.py): the queue
configurations each kind is tested with, tensors to and from the recording's
JSON, and TFQueues, a Session holding a pool of fresh TF queues (the oracle's
docstring says why they are made up front).
"""

import os
import threading

import numpy as np

KINDS = ("fifo", "padding_fifo", "random_shuffle", "priority")

BLOCKING_TIMEOUT_MS = 1
NONBLOCKING_TIMEOUT_MS = 2000
PARTIAL_TIMEOUT_MS = 5
INT32_MAX = 2**31 - 1
TRACE = bool(os.environ.get("INFLOW_ORACLE_TRACE"))

OK, CANCELLED, INVALID_ARGUMENT, DEADLINE_EXCEEDED, OUT_OF_RANGE = 0, 1, 3, 4, 11

# The queue configurations each kind is tested with. shapes None: created
# without shapes. -1 is an unknown dim (PaddingFIFO only). Priority dtypes and
# shapes are the value components; the int64 priority is prepended.
CONFIGS = {
    "fifo": [
        dict(capacity=3, dtypes=["int64"], shapes=[[]]),
        dict(capacity=2, dtypes=["int64", "float32", "string"],
             shapes=[[], [2], [1, 2]]),
        dict(capacity=-1, dtypes=["string", "int64"], shapes=None),
        dict(capacity=1, dtypes=["float32"], shapes=[[3]]),
        dict(capacity=5, dtypes=["int64", "string"], shapes=[[2], []]),
        dict(capacity=0, dtypes=["int64"], shapes=[[]]),
        dict(capacity=3, dtypes=["bool", "int32", "float64"],
             shapes=[[2], [], [1]]),
    ],
    "padding_fifo": [
        dict(capacity=3, dtypes=["int64"], shapes=[[-1]]),
        dict(capacity=4, dtypes=["float32", "string"], shapes=[[-1, 2], [-1]]),
        dict(capacity=-1, dtypes=["int64", "string", "float32"],
             shapes=[[], [-1, -1], [2]]),
        dict(capacity=2, dtypes=["string"], shapes=[[]]),
        dict(capacity=3, dtypes=["int64"], shapes=[[2, -1, 1]]),
        # Padding with false and 0 in other dtypes.
        dict(capacity=4, dtypes=["bool", "uint8", "float64"],
             shapes=[[-1], [-1, 2], []]),
    ],
    "random_shuffle": [
        dict(capacity=5, dtypes=["int64"], shapes=[[]], min_after_dequeue=0),
        dict(capacity=4, dtypes=["int64", "string"], shapes=[[], [2]],
             min_after_dequeue=2),
        dict(capacity=1, dtypes=["float32"], shapes=[[2]], min_after_dequeue=0),
        dict(capacity=6, dtypes=["string"], shapes=None, min_after_dequeue=1),
        dict(capacity=-1, dtypes=["int64"], shapes=[[]], min_after_dequeue=3),
    ],
    "priority": [
        dict(capacity=3, dtypes=["int64"], shapes=[[]]),
        dict(capacity=-1, dtypes=["string", "float32"], shapes=[[], [2]]),
        # No config without shapes: TF's kernel cannot create one (its own
        # check then fails with "has component shapes [] but requested
        # component shapes were [[]]"), and tf.compat.v1.PriorityQueue
        # rejects shapes=None.
        dict(capacity=2, dtypes=["string"], shapes=[[]]),
        dict(capacity=4, dtypes=["float32", "int64"], shapes=[[1], [2]]),
    ],
}


def _np_dtype(name):
    return {"int64": np.int64, "int32": np.int32, "uint8": np.uint8,
            "float32": np.float32, "float64": np.float64, "bool": np.bool_,
            "string": object}[name]


def tensor_json(dtype, arr):
    """The JSON form of a tensor: dtype name, shape, row-major values."""
    arr = np.asarray(arr)
    flat = arr.reshape(-1).tolist()
    if dtype == "string":
        flat = [v.decode("utf-8") if isinstance(v, bytes) else v for v in flat]
    elif dtype in ("float32", "float64"):
        flat = [float(v) for v in flat]
    elif dtype == "bool":
        flat = [bool(v) for v in flat]
    else:
        flat = [int(v) for v in flat]
    return {"dtype": dtype, "shape": list(arr.shape), "values": flat}


def tensor_numpy(t):
    if t["dtype"] == "string":
        arr = np.array([v.encode("utf-8") for v in t["values"]], dtype=object)
    else:
        arr = np.array(t["values"], dtype=_np_dtype(t["dtype"]))
    return arr.reshape(t["shape"])


class Config:
    """One queue configuration as the kernels see it (priority prepended)."""

    def __init__(self, kind, index, spec):
        self.kind = kind
        self.index = index
        self.capacity = spec["capacity"]
        self.bound = INT32_MAX if self.capacity < 0 else self.capacity
        self.value_dtypes = list(spec["dtypes"])
        self.value_shapes = spec["shapes"]
        self.min_after_dequeue = spec.get("min_after_dequeue", 0)
        if kind == "priority":
            self.dtypes = ["int64"] + self.value_dtypes
            self.shapes = ([[]] + self.value_shapes
                           if self.value_shapes is not None else None)
        else:
            self.dtypes = list(self.value_dtypes)
            self.shapes = self.value_shapes

    @property
    def has_shapes(self):
        return self.shapes is not None

    def json(self, seed):
        out = {"kind": self.kind, "capacity": self.capacity,
               "dtypes": self.value_dtypes, "shapes": self.value_shapes}
        if self.kind == "random_shuffle":
            out["min_after_dequeue"] = self.min_after_dequeue
            out["seed"], out["seed2"] = seed
            if seed == (0, 0):
                # Randomly seeded, in TF as in inflow: no order to compare.
                out["order"] = "multiset"
        return out

    # Variants of the component dtypes an enqueue is built with, to reach
    # the kernel's arity and dtype checks (INVALID_ARGUMENT).
    def enqueue_signatures(self):
        sigs = [tuple(self.dtypes), tuple(self.dtypes) + ("int64",)]
        if len(self.dtypes) >= 2:
            sigs.append(tuple(self.dtypes[:-1]))
        swapped = "string" if self.dtypes[-1] != "string" else "float32"
        sigs.append(tuple(self.dtypes[:-1]) + (swapped,))
        return sigs


class TFQueues:
    """A graph and Session holding a pool of fresh TF queues.

    One per configuration: a Session compiles each new (feeds, fetches)
    signature against its whole graph, so small graphs keep that cheap.
    """

    def __init__(self, tf, plan):
        """plan: list of (Config, [rsq seed pairs or None per queue])."""
        from tensorflow.python.ops import gen_data_flow_ops as gdf
        self.tf = tf
        tf1 = tf.compat.v1
        self.graph = tf.Graph()
        self.ops = {}
        self.handles = {}
        handle_tensors = {}
        with self.graph.as_default():
            for config, seeds in plan:
                key = (config.kind, config.index)
                tf_dtypes = [tf.as_dtype(d) for d in config.value_dtypes]
                shapes = [[None if d < 0 else d for d in s]
                          for s in config.value_shapes or []]
                refs = []
                for seed in seeds:
                    if config.kind == "fifo":
                        q = gdf.fifo_queue_v2(tf_dtypes, shapes=shapes,
                                              capacity=config.capacity)
                    elif config.kind == "padding_fifo":
                        q = gdf.padding_fifo_queue_v2(
                            tf_dtypes, shapes=shapes, capacity=config.capacity)
                    elif config.kind == "random_shuffle":
                        q = gdf.random_shuffle_queue_v2(
                            tf_dtypes, shapes=shapes, capacity=config.capacity,
                            min_after_dequeue=config.min_after_dequeue,
                            seed=seed[0], seed2=seed[1])
                    else:
                        q = gdf.priority_queue_v2(
                            shapes=shapes, component_types=tf_dtypes,
                            capacity=config.capacity)
                    refs.append(gdf.get_session_handle(q))
                handle_tensors[key] = refs

                hph = tf1.placeholder(tf.string, [])
                h = gdf.get_session_tensor(hph, tf.resource)
                all_dtypes = [tf.as_dtype(d) for d in config.dtypes]
                n = tf1.placeholder(tf.int32, [])
                ops = {"handle": hph, "n": n, "enqueue": {}, "enqueue_many": {}}
                for sig in config.enqueue_signatures():
                    for name, fn in (("enqueue", gdf.queue_enqueue_v2),
                                     ("enqueue_many", gdf.queue_enqueue_many_v2)):
                        phs = [tf1.placeholder(tf.as_dtype(d), None) for d in sig]
                        ops[name][sig] = (fn(h, phs), phs)
                ops["dequeue"] = gdf.queue_dequeue_v2(h, all_dtypes)
                ops["dequeue_many"] = gdf.queue_dequeue_many_v2(h, n, all_dtypes)
                ops["dequeue_up_to"] = gdf.queue_dequeue_up_to_v2(h, n, all_dtypes)
                ops["close"] = gdf.queue_close_v2(h, cancel_pending_enqueues=False)
                ops["close_cancel"] = gdf.queue_close_v2(
                    h, cancel_pending_enqueues=True)
                ops["size"] = gdf.queue_size_v2(h)
                ops["is_closed"] = gdf.queue_is_closed_v2(h)
                self.ops[key] = ops
        self.session = tf1.Session(graph=self.graph)
        self.callables = {}
        self.lock = threading.Lock()
        for key, refs in handle_tensors.items():
            objs = self.session.run(refs)
            for o in objs:
                # The stored handles live as long as the Session; without
                # this a collected TensorHandle would delete its tensor (by
                # adding nodes to the graph), even after Session.close().
                o._auto_gc_enabled = False
            self.handles[key] = [o.handle for o in objs]

    def close(self):
        self.session.close()

    def _make_callable(self, fetch, placeholders, timeout_ms):
        from tensorflow.core.protobuf import config_pb2
        opts = config_pb2.CallableOptions()
        opts.feed.extend(p.name for p in placeholders)
        fetches = fetch if isinstance(fetch, list) else [fetch]
        for f in fetches:
            if isinstance(f, self.tf.Operation):
                opts.target.append(f.name)
            else:
                opts.fetch.append(f.name)
        opts.run_options.timeout_in_ms = timeout_ms
        # A Session callable: much less Python work per call than
        # Session.run (which also formats op tracebacks into every error).
        return self.session._make_callable_from_options(opts)

    def run(self, key, fetch, placeholders, values, timeout_ms):
        """Runs one op; returns (code, numpy result or None)."""
        key = key + (timeout_ms,)
        fn = self.callables.get(key)
        if fn is None:
            with self.lock:
                fn = self.callables.get(key)
                if fn is None:
                    fn = self._make_callable(fetch, placeholders, timeout_ms)
                    self.callables[key] = fn
        try:
            out = fn(*values)
            return OK, out if isinstance(fetch, list) else out[0] if out else None
        except self.tf.errors.OpError as e:
            return e.error_code, None
