"""inflow.utils.to_keras: Keras 3's Model.fit trains from an inflow Sequence
through an OrderedEnqueuer (2 thread workers), one enqueuer epoch per Keras
epoch, in order, with on_epoch_end between them.

Keras (with TensorFlow, its backend here) is imported in a subprocess per
test, so that `import inflow` in this process is checked not to
import it, and TensorFlow's start-up stays out of the other tests.
"""
import json
import subprocess
import sys
import textwrap


def run(code, timeout=240):
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"exited {proc.returncode}:\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


SEQUENCE = """
    import json, sys, threading
    import numpy as np
    import inflow
    from inflow import utils

    W = np.array([[1.0], [-2.0], [0.5]], np.float32)

    class Linear(utils.Sequence):
        # Batch i: 16 rows of x ~ N(0, 1) from seed i, y = x @ W; the first
        # column of x is the batch index, so the model's input shows which
        # batch came.
        def __init__(self, n=5):
            self.n = n
            self.calls = []
            self.ends = 0
            self.lock = threading.Lock()

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            with self.lock:
                self.calls.append(i)
            x = np.random.default_rng(i).normal(size=(16, 3)).astype(np.float32)
            return x, x @ W

        def on_epoch_end(self):
            self.ends += 1

    def record_batches(data, key):
        # The batches the model sees, in order, as key(batch), appended to
        # the list returned: a wrapper around the adapter's passes.
        seen = []
        epoch = data._epoch
        def recording_epoch():
            for batch in epoch():
                seen.append(key(batch))
                yield batch
        data._epoch = recording_epoch
        return seen
"""


def test_import_inflow_does_not_import_keras():
    out = run("""
        import json, sys
        import inflow, inflow.utils
        print(json.dumps({"keras": "keras" in sys.modules,
                          "tf": "tensorflow" in sys.modules,
                          "to_keras": callable(inflow.utils.to_keras)}))
    """)
    assert out == {"keras": False, "tf": False, "to_keras": True}


def test_fit_trains_from_an_ordered_enqueuer_with_2_threads():
    out = run(SEQUENCE + """
    import keras

    class Seen(keras.callbacks.Callback):
        # The steps fit ran, per epoch.
        def __init__(self):
            super().__init__()
            self.epochs = []
        def on_epoch_begin(self, epoch, logs=None):
            self.epochs.append(0)
        def on_train_batch_end(self, batch, logs=None):
            self.epochs[-1] += 1

    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    seq = Linear(5)
    enqueuer = utils.OrderedEnqueuer(seq)
    firsts = {float(seq[i][0][0, 0]): i for i in range(5)}
    seq.calls.clear()

    # The batches, in the order the model saw them.
    data = utils.to_keras(enqueuer, workers=2, max_queue_size=3)
    order = record_batches(data, lambda batch: firsts[float(batch[0][0, 0])])
    seen = Seen()
    with data:
        history = model.fit(data, epochs=3, verbose=0, callbacks=[seen])
        running = enqueuer.is_running()
        evaluated = model.evaluate(data, verbose=0, return_dict=True)
    print(json.dumps({
        "loss": history.history["loss"],
        "eval": evaluated["loss"],
        "steps": seen.epochs,
        "order": order,
        "ends": seq.ends,
        "running_in_fit": running,
        "running_after": enqueuer.is_running(),
        "workers": enqueuer.workers,
        "len": len(data),
    }))
    """)
    assert out["workers"] == 2 and out["len"] == 5
    # 3 epochs of 5 steps, then evaluate's pass: every index once per
    # epoch, in order, one enqueuer epoch per Keras pass.
    assert out["steps"] == [5, 5, 5]
    assert out["order"] == list(range(5)) * 4
    # on_epoch_end ran between the enqueuer's epochs (at least 3, after
    # fit's; the 4th once evaluate took its last batch).
    assert out["ends"] >= 3
    assert out["running_in_fit"] and not out["running_after"]
    loss = out["loss"]
    assert loss[2] < loss[0] / 4, loss  # y = x @ W is learnt
    assert out["eval"] < loss[0]


def test_fit_from_a_sequence_with_shuffle_and_dict_batches():
    out = run(SEQUENCE + """
    import keras

    class Named(Linear):
        def __getitem__(self, i):
            x, y = super().__getitem__(i)
            return {"x": x, "i": np.full((16, 1), i, np.float32)}, y

    inputs = {"x": keras.Input((3,), name="x"), "i": keras.Input((1,), name="i")}
    out = keras.layers.Dense(1)(keras.layers.Concatenate()([inputs["x"], inputs["i"]]))
    model = keras.Model(inputs, out)
    model.compile(optimizer="sgd", loss="mse")
    seq = Named(4)
    data = utils.to_keras(seq, workers=2, shuffle=True, seed=7)
    order = record_batches(data, lambda batch: int(batch[0]["i"][0, 0]))
    with data:
        model.fit(data, epochs=2, verbose=0)
    import random
    rng = random.Random(7)
    expected = []
    for _ in range(2):
        perm = list(range(4))
        rng.shuffle(perm)
        expected += perm
    print(json.dumps({"order": order, "expected": expected,
                      "running": data.enqueuer.is_running()}))
    """)
    assert out["order"] == out["expected"]
    assert not out["running"]


def test_fit_with_steps_per_epoch_continues_the_stream():
    out = run(SEQUENCE + """
    import keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    seq = Linear(6)
    firsts = {float(seq[i][0][0, 0]): i for i in range(6)}
    data = utils.to_keras(seq, workers=2)
    order = record_batches(data, lambda batch: firsts[float(batch[0][0, 0])])
    with data:
        model.fit(data, epochs=3, steps_per_epoch=3, verbose=0)
        first = list(order)
        model.fit(data, epochs=1, steps_per_epoch=3, verbose=0)
    print(json.dumps({"first": first, "order": order}))
    """)
    # 9 steps of a 6-batch sequence: Keras keeps its iterator across
    # epochs until it has taken 6 batches; a later fit continues the
    # enqueuer's stream where the last one stopped.
    assert out["first"] == list(range(6)) + [0, 1, 2]
    assert out["order"] == list(range(6)) * 2


def test_bad_batches_and_options_are_clear_errors():
    out = run(SEQUENCE + """
    import keras
    class Bad(Linear):
        def __getitem__(self, i):
            return "not a batch"
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    errors = {}
    try:
        with utils.to_keras(Bad(2)) as data:
            model.fit(data, epochs=1, verbose=0)
    except ValueError as e:
        errors["batch"] = str(e)
    class Failing(Linear):
        def __getitem__(self, i):
            if i == 2:
                raise KeyError("no batch 2 here")
            return super().__getitem__(i)
    data = utils.to_keras(Failing(3), workers=2)
    try:
        model.fit(data, epochs=1, verbose=0)
    except Exception as e:  # tf.errors.UnknownError from tf.data's PyFunc
        errors["worker"] = str(e)
    errors["stopped"] = not data.enqueuer.is_running()
    try:
        utils.to_keras(utils.OrderedEnqueuer(Linear()), shuffle=True)
    except ValueError as e:
        errors["option"] = str(e)
    try:
        utils.to_keras(42)
    except TypeError as e:
        errors["source"] = str(e)
    print(json.dumps(errors))
    """)
    assert "a batch for Keras must be" in out["batch"]
    assert "KeyError: 'no batch 2 here'" in out["worker"]
    assert "raised by __getitem__(2)" in out["worker"]
    assert out["stopped"]
    assert "the enqueuer's own" in out["option"]
    assert "expected a Sequence" in out["source"]


def test_validation_data_and_predict_take_their_own_enqueuers():
    out = run(SEQUENCE + """
    import keras

    class Inputs(Linear):
        # Predict's batches: x alone.
        def __getitem__(self, i):
            return super().__getitem__(i)[0]

    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    train, val, inputs = Linear(5), Linear(3), Inputs(4)
    with utils.to_keras(train, workers=2) as t, \\
            utils.to_keras(val, workers=2) as v, \\
            utils.to_keras(inputs, workers=2) as p:
        history = model.fit(t, validation_data=v, epochs=2, verbose=0)
        predicted = model.predict(p, verbose=0)
    want = np.concatenate([inputs[i] for i in range(4)]) @ model.get_weights()[0] \\
        + model.get_weights()[1]
    print(json.dumps({
        "val_loss": history.history["val_loss"],
        "shape": list(predicted.shape),
        "max_error": float(np.abs(predicted - want).max()),
        "val_calls": sorted(set(val.calls)),
        "running": [t.enqueuer.is_running(), v.enqueuer.is_running(),
                    p.enqueuer.is_running()],
    }))
    """)
    # Validation ran after each epoch from its own enqueuer; predict gave
    # one row per input row, in batch order.
    assert len(out["val_loss"]) == 2
    assert out["val_calls"] == [0, 1, 2]
    assert out["shape"] == [64, 1]
    assert out["max_error"] < 1e-4
    assert out["running"] == [False, False, False]
