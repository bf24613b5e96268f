"""TensorFlow as the oracle for inflow's queues.

For a seed and a queue kind, generates a random sequence of queue operations
(enqueue, enqueue_many, dequeue, dequeue_many, dequeue_up_to, close, close
with cancel, size, is_closed, plus invalid calls), runs it on TensorFlow's
own queue kernels (tf.compat.v1 graph mode, one Session) on ONE thread, and
records every result: values, shapes and dtypes of what was dequeued, and
the canonical error code of every failure. tests/queue_tf/queue_tf_replay.cc
replays the recorded sequences on inflow's queues and compares.

How blocking is handled: each sequence runs on one thread, so no other call
is ever pending on the queue. A call that would block is issued with a short
RunOptions.timeout_in_ms (BLOCKING_TIMEOUT_MS) and returns
DEADLINE_EXCEEDED, which is what inflow must return with the same timeout. A
reference model of the queue (size, closed flag, min_after_dequeue) predicts
whether a call blocks; calls predicted not to block run with a generous
timeout (NONBLOCKING_TIMEOUT_MS) so that a loaded machine cannot turn them
into spurious timeouts. Every TF result is also checked against the model;
a disagreement (in practice a call that raced its own deadline) is counted
in `model_disagreements`, and the sequence is recorded only up to the call
before it.

What the generator steers around (tests/py/test_queue_vs_tf.py and
docs/conformance.md say why):
  * dequeue_many/dequeue_up_to timing out after taking elements from an open
    queue: TF drops them, inflow puts them back (spec 1.6, [divergence]). The
    call asks for what is available instead.
  * dequeue_up_to(n) on a closed PriorityQueue holding 1..n-1 elements: TF
    2.18 fails it and drops the elements; the spec returns them. The call
    asks for exactly what is stored instead.
  * enqueue_many of rows holding no elements (TF 2.18 crashes), a scalar
    component 0 in enqueue_many or a scalar on a queue without shapes (TF
    2.18 aborts), and PriorityQueues without shapes (TF cannot create them).
A second close() is CANCELLED in TF 2.18 as in the spec; recorded as is.

Fresh queues without growing the graph: extending a live Session's graph
costs tens of milliseconds per call, so every queue a run needs is created up
front, one node per sequence, and its resource handle is parked in the
Session with GetSessionHandle. The operations are built once per queue
configuration against a GetSessionTensor(resource) placeholder, and each
call feeds the handle of the sequence's own queue through a Session
callable. Sequences run on several Python threads at once (each sequence on
one), which overlaps the timeouts.

INFLOW_ORACLE_TRACE=1 prints each call before TF runs it (to find a call
that crashes TF).

Usage: queue_tf_oracle.py --kind fifo --count 100 --seed 1 --out fifo.jsonl
"""

import argparse
import concurrent.futures
import json
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from queue_tf_queues import (  # noqa: E402  (re-exported for the tests)
    BLOCKING_TIMEOUT_MS,
    CANCELLED,
    CONFIGS,
    DEADLINE_EXCEEDED,
    INVALID_ARGUMENT,
    KINDS,
    NONBLOCKING_TIMEOUT_MS,
    OK,
    OUT_OF_RANGE,
    PARTIAL_TIMEOUT_MS,
    TRACE,
    Config,
    TFQueues,
    tensor_json,
    tensor_numpy,
)


class Model:
    """What the spec says a call on a queue with no other pending calls does.

    Tracks the number of stored elements and the closed flag; the values
    themselves come from TF. predict() returns (code, rows_moved, divergent):
    rows inserted (enqueue) or removed (dequeue), and whether the call would
    hit a TF/inflow divergence.
    """

    def __init__(self, config):
        self.c = config
        self.size = 0
        self.closed = False

    def available(self):
        # Elements a dequeue may take right now without waiting.
        if self.c.kind == "random_shuffle" and not self.closed:
            return max(0, self.size - self.c.min_after_dequeue)
        return self.size

    def predict(self, op, rows=0, n=0, invalid=False):
        c = self.c
        if invalid:
            return INVALID_ARGUMENT, 0, False
        if op == "enqueue":
            if self.closed:
                return CANCELLED, 0, False
            if self.size < c.bound:
                return OK, 1, False
            return DEADLINE_EXCEEDED, 0, False
        if op == "enqueue_many":
            if rows == 0:
                return OK, 0, False
            if self.closed:
                return CANCELLED, 0, False
            room = max(0, c.bound - self.size)
            if rows <= room:
                return OK, rows, False
            return DEADLINE_EXCEEDED, room, False
        if op == "dequeue":
            if self.available() >= 1:
                return OK, 1, False
            return (OUT_OF_RANGE if self.closed else DEADLINE_EXCEEDED), 0, False
        if op in ("dequeue_many", "dequeue_up_to"):
            if n < 0 or not c.has_shapes and c.kind != "padding_fifo":
                return INVALID_ARGUMENT, 0, False
            if n == 0:
                return OK, 0, False
            avail = self.available()
            if self.closed:
                if self.size >= n:
                    return OK, n, False
                if op == "dequeue_up_to" and self.size >= 1:
                    # TF's PriorityQueue fails this with OUT_OF_RANGE and
                    # drops the stored elements; the spec returns them.
                    return OK, self.size, c.kind == "priority"
                return OUT_OF_RANGE, 0, False
            if avail >= n:
                return OK, n, False
            # Open and short: waits for a full batch. Incremental kinds take
            # what is available first, which TF loses on timeout.
            divergent = c.kind != "priority" and avail > 0
            return DEADLINE_EXCEEDED, 0, divergent
        if op == "close":
            if self.closed:
                return CANCELLED, 0, False
            return OK, 0, False
        if op == "close_cancel":
            return OK, 0, False
        if op in ("size", "is_closed"):
            return OK, 0, False
        raise ValueError(op)

    def apply(self, op, code, moved):
        if op in ("enqueue", "enqueue_many"):
            self.size += moved
        elif op.startswith("dequeue"):
            self.size -= moved
        elif op == "close" and code == OK or op == "close_cancel":
            self.closed = True


class SequenceGenerator:
    """Draws one random sequence, running each call on TF as it goes."""

    OP_WEIGHTS = [("enqueue", 24), ("enqueue_many", 14), ("dequeue", 14),
                  ("dequeue_many", 12), ("dequeue_up_to", 10), ("close", 3),
                  ("close_cancel", 2), ("size", 8), ("is_closed", 3),
                  ("invalid_enqueue", 3), ("invalid_enqueue_many", 3)]

    def __init__(self, tfq, config, seq_seed, queue_index):
        self.tfq = tfq
        self.c = config
        self.rng = random.Random(seq_seed)
        self.seq_seed = seq_seed
        self.ops = tfq.ops[(config.kind, config.index)]
        self.handle = tfq.handles[(config.kind, config.index)][queue_index]
        self.model = Model(config)
        self.serial = 0
        # Priority: unique priorities, or a few repeated ones whose element
        # is a function of the priority (equal priorities then carry equal
        # elements, so TF's unspecified order among them cannot show).
        self.dup_priorities = self.rng.random() < 0.3
        self.unused_priorities = self.rng.sample(range(-60, 61), 121)
        self.stats = {"ops": 0, "blocking": 0, "model_disagreements": 0,
                      "divergent_avoided": 0, "disagreement_detail": []}

    # ---- values -----------------------------------------------------------

    def _dims(self, shape, low=0):
        return [self.rng.randint(low, 3) if d < 0 else d for d in shape]

    def _component(self, dtype, shape, key, comp):
        count = int(np.prod(shape)) if shape else 1
        vals = []
        for j in range(count):
            if dtype == "int64":
                sign = -1 if key % 3 == 0 else 1
                vals.append(sign * (key * 64 + comp * 8 + j) + (1 << 40) * (comp % 2))
            elif dtype == "float32":
                vals.append(float(key) + j * 0.25 + comp * 0.125)
            elif dtype == "float64":
                vals.append(-float(key) / 3.0 + j)
            elif dtype == "int32":
                vals.append((key * 31 + j) % 100000 - 50000)
            elif dtype == "uint8":
                vals.append((key * 7 + j * 3 + 1) % 256)
            elif dtype == "bool":
                vals.append((key + j) % 3 != 0)
            else:
                vals.append(f"v{key}.{comp}.{j}" + "x" * ((key + j) % 4))
        return {"dtype": dtype, "shape": list(shape), "values": vals}

    def _element_shapes(self, many=False):
        if self.c.shapes is not None:
            # TF 2.18 crashes (SIGSEGV) on an enqueue_many whose rows hold
            # no elements (PaddingFIFOQueue, a row of shape [0]), so batches
            # draw unknown dims from 1..3; single elements may be empty.
            return [self._dims(s, 1 if many else 0) for s in self.c.shapes]
        # No declared shapes: any shape per component (fixed for the batch).
        out = [[]]  if self.c.kind == "priority" else []
        for _ in self.c.value_dtypes:
            out.append(self.rng.choice([[], [1], [2], [2, 1]]))
        return out

    def _new_key(self):
        if self.c.kind == "priority":
            if self.dup_priorities:
                return self.rng.randint(-3, 3)
            if self.unused_priorities:
                return self.unused_priorities.pop()
            return self.rng.randint(1000, 10**6)
        self.serial += 1
        return self.serial + 1000 * (self.seq_seed % 1000)

    def _element(self, shapes):
        key = self._new_key()
        comps = []
        for i, (d, s) in enumerate(zip(self.c.dtypes, shapes)):
            if self.c.kind == "priority" and i == 0:
                comps.append({"dtype": "int64", "shape": [], "values": [key]})
            else:
                comps.append(self._component(d, s, key, i))
        return comps

    def _batch(self, rows, shapes):
        elems = [self._element(shapes) for _ in range(rows)]
        out = []
        for i, (d, s) in enumerate(zip(self.c.dtypes, shapes)):
            vals = [v for e in elems for v in e[i]["values"]]
            out.append({"dtype": d, "shape": [rows] + list(s), "values": vals})
        return out

    def _invalidate(self, comps, many):
        """Breaks a valid tuple one way the kernel must reject."""
        choices = ["extra", "dtype"]
        if len(comps) >= 2:
            choices.append("missing")
            if many:
                choices.append("dim0")
        if many and len(comps) >= 2 and self.c.has_shapes:
            # Only a later component, and only with declared shapes: TF 2.18
            # reads the batch size from component 0 without a rank check
            # and aborts (tensor_shape.cc "Check failed: end <= dims()") on a
            # scalar where it compares dim 0 without declared shapes.
            choices.append("scalar")
        shaped = list(range(len(self.c.shapes or [])))
        if shaped:
            choices.append("shape")
        if self.c.kind == "priority":
            choices.append("priority_rank")
        how = self.rng.choice(choices)
        comps = [dict(t) for t in comps]
        if how == "extra":
            rows = comps[0]["shape"][0] if many else None
            comps.append({"dtype": "int64", "shape": [rows] if many else [],
                          "values": [7] * (rows if many else 1)})
        elif how == "missing":
            comps.pop()
        elif how == "dtype":
            t = comps[-1]
            count = len(t["values"])
            if t["dtype"] != "string":
                comps[-1] = {"dtype": "string", "shape": t["shape"],
                             "values": ["bad"] * count}
            else:
                comps[-1] = {"dtype": "float32", "shape": t["shape"],
                             "values": [1.5] * count}
        elif how == "dim0":
            t = comps[-1]
            comps[-1] = self._fill(t["dtype"], [t["shape"][0] + 1] + t["shape"][1:])
        elif how == "scalar":
            i = self.rng.randrange(1, len(comps))
            comps[i] = self._fill(comps[i]["dtype"], [])
        elif how == "priority_rank":
            # The priority must be a scalar (a vector for enqueue_many).
            t = comps[0]
            shape = t["shape"] + [2]
            comps[0] = {"dtype": "int64", "shape": shape,
                        "values": [v for v in t["values"] for _ in range(2)]}
        elif how == "shape":
            i = self.rng.choice(shaped)
            declared = self.c.shapes[i]
            shape = list(comps[i]["shape"])
            lead = shape[:1] if many else []
            elem = shape[1:] if many else shape
            known = [k for k, d in enumerate(declared) if d >= 0]
            if known and self.rng.random() < 0.6:
                k = self.rng.choice(known)
                elem[k] = declared[k] + self.rng.choice([1, 2])
            else:
                elem = elem + [1]  # rank mismatch
            comps[i] = self._fill(comps[i]["dtype"], lead + elem)
        return comps, how

    def _fill(self, dtype, shape):
        count = int(np.prod(shape)) if shape else 1
        value = {"int64": 5, "int32": 5, "uint8": 5, "float32": 2.5,
                 "float64": 2.5, "bool": True, "string": "z"}[dtype]
        return {"dtype": dtype, "shape": list(shape), "values": [value] * count}

    # ---- running ----------------------------------------------------------

    def _pick_n(self):
        r = self.rng.random()
        if r < 0.05:
            return -1
        if r < 0.12:
            return 0
        top = (self.c.bound if self.c.bound < 100 else 6) + 1
        return self.rng.randint(1, max(1, top))

    def _run_tf(self, op, args, n):
        """(callable key, fetch, feed placeholders, feed values)."""
        ops = self.ops
        phs, values = [ops["handle"]], [self.handle]
        key = (op,)
        if op in ("enqueue", "enqueue_many"):
            sig = tuple(t["dtype"] for t in args)
            fetch, arg_phs = ops[op][sig]
            phs += arg_phs
            values += [tensor_numpy(t) for t in args]
            key = (op, sig)
        elif op in ("dequeue_many", "dequeue_up_to"):
            fetch = ops[op]
            phs.append(ops["n"])
            values.append(np.int32(n))
        else:
            fetch = ops[op]
        return key, fetch, phs, values

    def step(self, op):
        """Issues one call; returns its record, or None to draw again."""
        c = self.c
        rec = {"op": op.replace("invalid_", "")}
        invalid = op.startswith("invalid_")
        op = rec["op"]
        args, n, rows = None, 0, 0
        if op in ("enqueue", "enqueue_many"):
            shapes = self._element_shapes(op == "enqueue_many")
            if op == "enqueue":
                args = self._element(shapes)
            else:
                r = self.rng.random()
                rows = 0 if r < 0.1 else self.rng.randint(1, 4)
                args = self._batch(rows, shapes)
            if invalid:
                args, rec["invalid"] = self._invalidate(args, op == "enqueue_many")
            rec["args"] = args
        elif op in ("dequeue_many", "dequeue_up_to"):
            n = self._pick_n()
            rec["n"] = n
        elif op == "close_cancel":
            rec["op"] = "close"
            rec["cancel"] = True
        elif op == "close":
            rec["cancel"] = False

        code, moved, divergent = self.model.predict(op, rows, n, invalid)
        if divergent:
            # Ask only for what can be taken now (see the module comment).
            self.stats["divergent_avoided"] += 1
            n = self.model.available() if not self.model.closed else self.model.size
            rec["n"] = n
            code, moved, divergent = self.model.predict(op, rows, n, invalid)
            assert not divergent
        blocking = code == DEADLINE_EXCEEDED
        if not blocking:
            timeout = NONBLOCKING_TIMEOUT_MS
        elif moved > 0:
            # An enqueue_many that inserts some rows, then waits: its rows
            # must be in before the deadline cancels the step.
            timeout = PARTIAL_TIMEOUT_MS
        else:
            timeout = BLOCKING_TIMEOUT_MS
        rec["timeout_ms"] = timeout
        self.stats["ops"] += 1
        self.stats["blocking"] += blocking

        call = self._run_tf(op, args, n)
        if TRACE:
            print("trace", self.seq_seed, c.kind, c.index, json.dumps(rec),
                  file=sys.stderr, flush=True)
        got, value = self.tfq.run(*call, timeout)
        expect = {"code": got}
        if got == OK:
            if op.startswith("dequeue"):
                expect["values"] = [tensor_json(d, v)
                                    for d, v in zip(c.dtypes, value)]
            elif op == "size":
                expect["size"] = int(value)
            elif op == "is_closed":
                expect["closed"] = bool(value)
        rec["expect"] = expect

        agree = got == code
        if got == OK and op == "size":
            agree = agree and int(value) == self.model.size
        if got == OK and op == "is_closed":
            agree = agree and bool(value) == self.model.closed
        if got == OK and op.startswith("dequeue") and op != "dequeue":
            agree = agree and len(value[0]) == moved
        if agree and got == DEADLINE_EXCEEDED and moved > 0:
            # A deadline that fired before the kernel ran would leave the
            # rows out with the same code, so check they are in.
            size_call = self._run_tf("size", None, 0)
            size_code, size = self.tfq.run(*size_call, NONBLOCKING_TIMEOUT_MS)
            agree = size_code == OK and int(size) == self.model.size + moved
        if not agree:
            # TF is the reference, but a call that did not do what the model
            # says may have raced with its own deadline (a loaded machine),
            # so it and what follows are left out of the recording.
            self.stats["model_disagreements"] += 1
            self.stats["disagreement_detail"].append(
                {"seed": self.seq_seed, "kind": c.kind, "config": c.index,
                 "op": rec, "model_code": code})
            return None, False
        self.model.apply(op, got, moved)
        return rec, True

    def generate(self):
        """(recorded calls, what the queue held at the end or None)."""
        ops_out = []
        length = self.rng.randint(3, 22)
        names = [n for n, _ in self.OP_WEIGHTS]
        weights = [w for _, w in self.OP_WEIGHTS]
        for _ in range(length):
            op = self.rng.choices(names, weights)[0]
            rec, ok = self.step(op)
            if not ok:
                return ops_out, None
            ops_out.append(rec)
        # Many sequences end by closing and draining with recorded calls.
        if self.rng.random() < 0.4:
            for op in (self.rng.choice(["close", "close_cancel"]),
                       "dequeue_up_to" if self.c.has_shapes
                       or self.c.kind == "padding_fifo" else "dequeue",
                       "dequeue", "size"):
                rec, ok = self.step(op)
                if not ok:
                    return ops_out, None
                ops_out.append(rec)
        return ops_out, self._remaining()

    def _remaining(self):
        """Closes the TF queue (cancel) and dequeues what it still holds.

        Not part of the recorded calls: the replay does the same on inflow's
        queue, so the final contents (in order) are compared too.
        """
        code, _ = self.tfq.run(*self._run_tf("close_cancel", None, 0),
                               NONBLOCKING_TIMEOUT_MS)
        if code != OK:
            return None
        out = []
        for _ in range(self.model.size + 1):
            code, value = self.tfq.run(*self._run_tf("dequeue", None, 0),
                                       NONBLOCKING_TIMEOUT_MS)
            if code != OK:
                break
            out.append([tensor_json(d, v) for d, v in zip(self.c.dtypes, value)])
        if code != OUT_OF_RANGE or len(out) != self.model.size:
            self.stats["model_disagreements"] += 1
            self.stats["disagreement_detail"].append(
                {"seed": self.seq_seed, "kind": self.c.kind,
                 "config": self.c.index, "op": "final drain",
                 "model_size": self.model.size, "drained": len(out)})
            return None
        return out


def _seq_plan(kind, count, base_seed):
    configs = [Config(kind, i, s) for i, s in enumerate(CONFIGS[kind])]
    plan = []
    for j in range(count):
        seq_seed = (base_seed * len(KINDS) + KINDS.index(kind)) * 1_000_000 + j
        rng = random.Random(seq_seed ^ 0x5EED)
        config = rng.choice(configs)
        rsq = None
        if kind == "random_shuffle":
            # Mostly both seeds set; TF seeds randomly only when both are 0.
            seed, seed2 = rng.randint(1, 2**31 - 1), rng.randint(1, 2**31 - 1)
            r = rng.random()
            rsq = ((0, 0) if r < 0.08 else (seed, 0) if r < 0.14
                   else (0, seed2) if r < 0.2 else (seed, seed2))
        plan.append((seq_seed, config, rsq))
    return configs, plan


def generate(kinds, count, base_seed, workers=4, tf=None):
    """Runs `count` sequences per kind on TF; returns (records, stats)."""
    if tf is None:
        import tensorflow as tf  # noqa: F811  (slow import, only when used)
    plans = {}
    pool_plan = []
    for kind in kinds:
        configs, plan = _seq_plan(kind, count, base_seed)
        plans[kind] = plan
        for config in configs:
            seeds = [rsq for (_, c, rsq) in plan if c is config]
            if seeds:
                pool_plan.append((config, seeds))
    tfqs = {(c.kind, c.index): TFQueues(tf, [(c, seeds)])
            for c, seeds in pool_plan}
    jobs = []
    for kind in kinds:
        used = {}
        for seq_seed, config, rsq in plans[kind]:
            idx = used.get(config.index, 0)
            used[config.index] = idx + 1
            jobs.append((kind, seq_seed, config, idx, rsq))

    def run_one(job):
        kind, seq_seed, config, idx, rsq = job
        gen = SequenceGenerator(tfqs[(kind, config.index)], config, seq_seed,
                                idx)
        ops, remaining = gen.generate()
        rec = {"seed": seq_seed, "queue": config.json(rsq), "ops": ops}
        if remaining is not None:
            rec["remaining"] = remaining
        return rec, gen.stats

    stats = {"sequences": 0, "ops": 0, "blocking": 0, "model_disagreements": 0,
             "divergent_avoided": 0, "disagreement_detail": []}
    records = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as ex:
        results = ex.map(run_one, jobs) if workers > 0 else map(run_one, jobs)
        for rec, st in results:
            records.append(rec)
            stats["sequences"] += 1
            for k in ("ops", "blocking", "model_disagreements", "divergent_avoided"):
                stats[k] += st[k]
            stats["disagreement_detail"].extend(st["disagreement_detail"])
    for tfq in tfqs.values():
        tfq.close()
    return records, stats


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kind", action="append", choices=KINDS)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    records, stats = generate(a.kind or list(KINDS), a.count, a.seed, a.workers)
    write_jsonl(a.out, records)
    detail = stats.pop("disagreement_detail")
    print(json.dumps(stats))
    for d in detail[:10]:
        print("model disagreement:", json.dumps(d), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
