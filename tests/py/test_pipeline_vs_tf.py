"""inflow's reading pipeline against TensorFlow 1's, end to end.

The same small TFRecord corpora (written by TF's TFRecordWriter and by
`inflow records write`; a few files of a few dozen Examples with an int64
id, a float vector and a bytes feature) are read by
tf.compat.v1.train.string_input_producer + TFRecordReader +
parse_single_example + batch / shuffle_batch (graph mode, one reader
thread; tests/py/pipeline_tf_oracle.py) and by inflow's StringInputProducer
+ TFRecordReader + ExampleParser + Batch / ShuffleBatch
(build/<dir>/tests/pipeline_tf_driver). Where TF's order is reproducible
(one thread, op-level seeds, or graph + op seeds) every batch must be equal
(values bit for bit, shapes, dtypes), in the same order, with the same
number of steps before OUT_OF_RANGE and the same final short batch or its
absence.

shuffle_batch is reproducible only when both sides dequeue from the same
queue state: the consumer waits before every dequeue until the batching
queue is full or closed (pipeline_tf_oracle.py says why). Without seeds TF's
order is not reproducible; with a graph seed alone TF gives each seeded op
of the graph the next op seed (0, 1, ...), which inflow cannot count when
both the producer and the queue shuffle. Those cases compare the multiset of
records, the batch sizes and the step count.
"""
import json
import os
import pathlib
import subprocess
import sys
from collections import Counter

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import pipeline_tf_oracle as oracle  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("INFLOW_BUILD_DIR", ROOT / "build" / "release"))
DRIVER = BUILD / "tests" / "pipeline_tf_driver"

# Records per file; ids run on across files. 51 and 29 records: no batch
# size below is a divisor, except where a case says so.
CORPORA = {"three": [17, 23, 11], "three_inflow": [17, 23, 11], "one": [29]}


def case(name, corpus, *, num_epochs=1, shuffle=False, seed=None, graph_seed=None,
         batch="batch", batch_size=4, capacity=32, min_after_dequeue=0, batch_seed=None,
         small=False, wait_full=None):
    return {"name": name, "corpus": corpus, "features": oracle.FEATURES,
            "num_epochs": num_epochs, "shuffle": shuffle, "seed": seed,
            "graph_seed": graph_seed, "batch": batch, "batch_size": batch_size,
            "capacity": capacity, "min_after_dequeue": min_after_dequeue,
            "batch_seed": batch_seed, "allow_smaller_final_batch": small,
            "wait_full": batch == "shuffle_batch" if wait_full is None else wait_full}


SB = "shuffle_batch"
REPRODUCIBLE = [
    case("batch_1_epoch_in_order_short_final", "three", small=True),
    case("batch_1_epoch_in_order_remainder_dropped", "three"),
    case("batch_2_epochs_producer_seed_7_short_final", "three", num_epochs=2, shuffle=True,
         seed=7, batch_size=5, small=True),
    case("batch_3_epochs_producer_seed_123_remainder_dropped", "three", num_epochs=3,
         shuffle=True, seed=123, batch_size=7),
    case("batch_2_epochs_producer_seed_0_divisible_no_short_batch", "three", num_epochs=2,
         shuffle=True, seed=0, batch_size=6, small=True),
    case("batch_3_epochs_graph_seed_42_op_seed_11", "three", num_epochs=3, shuffle=True,
         seed=11, graph_seed=42, batch_size=8, small=True),
    case("batch_larger_than_input_one_short_batch", "three", batch_size=64, capacity=64,
         small=True),
    case("batch_larger_than_input_no_batch", "three", batch_size=64, capacity=64),
    case("shuffle_batch_1_epoch_files_in_order_seed_3", "three", batch=SB, capacity=20,
         min_after_dequeue=10, batch_seed=3, small=True),
    case("shuffle_batch_2_epochs_seeds_5_9_remainder_dropped", "three", num_epochs=2,
         shuffle=True, seed=5, batch=SB, capacity=16, min_after_dequeue=8, batch_seed=9),
    case("shuffle_batch_3_epochs_seeds_2_1_short_final", "three", num_epochs=3, shuffle=True,
         seed=2, batch=SB, batch_size=6, capacity=12, min_after_dequeue=4, batch_seed=1,
         small=True),
    # capacity - min_after_dequeue < batch_size: each batch is collected
    # partly as the reader enqueues, and the last one across the close.
    case("shuffle_batch_capacity_below_min_plus_batch_short_final", "three", num_epochs=2,
         shuffle=True, seed=4, batch=SB, batch_size=5, capacity=10, min_after_dequeue=7,
         batch_seed=6, small=True),
    case("shuffle_batch_capacity_below_min_plus_batch_remainder_dropped", "three",
         num_epochs=2, shuffle=True, seed=4, batch=SB, batch_size=5, capacity=10,
         min_after_dequeue=7, batch_seed=6),
    case("shuffle_batch_graph_seed_1234_op_seeds_6_8", "three", num_epochs=2, shuffle=True,
         seed=6, graph_seed=1234, batch=SB, batch_size=5, capacity=24, min_after_dequeue=12,
         batch_seed=8, small=True),
    case("shuffle_batch_min_after_dequeue_0_divisible", "three", shuffle=True, seed=3,
         batch=SB, batch_size=3, capacity=8, batch_seed=17, small=True),
    # TF's get_seed turns (0, 0) into (0, 2**31 - 1), 0 and 0 being "random".
    case("shuffle_batch_graph_seed_0_op_seeds_0", "three", num_epochs=2, shuffle=True,
         seed=0, graph_seed=0, batch=SB, capacity=16, min_after_dequeue=8, batch_seed=0,
         small=True),
    # TF reduces seeds with Python's `seed % (2**31 - 1)`, never negative.
    case("batch_producer_negative_op_seed", "three", num_epochs=3, shuffle=True, seed=-5,
         batch_size=5, small=True),
    case("shuffle_batch_negative_op_seed_files_in_order", "three", num_epochs=2, batch=SB,
         capacity=16, min_after_dequeue=8, batch_seed=-7, small=True),
    case("shuffle_batch_negative_graph_seed_files_in_order", "three", num_epochs=2,
         graph_seed=-3, batch=SB, capacity=16, min_after_dequeue=8, batch_seed=4, small=True),
    case("shuffle_batch_op_seeds_above_2_to_the_31", "three", num_epochs=2, shuffle=True,
         seed=2**40 + 3, batch=SB, capacity=16, min_after_dequeue=8, batch_seed=2**33 + 1,
         small=True),
    # A graph seed alone: TF's op seed is the number of ops in the graph
    # that asked for one before (0 here: the only seeded op).
    case("graph_seed_only_producer_shuffled_batch", "three", num_epochs=2, shuffle=True,
         graph_seed=7, batch_size=5),
    case("graph_seed_only_shuffle_batch_files_in_order", "three", num_epochs=2,
         graph_seed=7, batch=SB, capacity=16, min_after_dequeue=8, small=True),
    case("one_file_batch_2_epochs_seed_3_short_final", "one", num_epochs=2, shuffle=True,
         seed=3, small=True),
    case("one_file_shuffle_batch_3_epochs_remainder_dropped", "one", num_epochs=3,
         batch=SB, batch_size=8, capacity=30, min_after_dequeue=20, batch_seed=12),
    case("inflow_written_corpus_batch_3_epochs_seed_9", "three_inflow", num_epochs=3,
         shuffle=True, seed=9, batch_size=10, small=True),
    case("inflow_written_corpus_shuffle_batch_2_epochs", "three_inflow", num_epochs=2,
         shuffle=True, seed=1, batch=SB, capacity=18, min_after_dequeue=9, batch_seed=2,
         small=True),
]
UNREPRODUCIBLE = [
    case("unseeded_shuffle_batch_consumer_racing_the_reader", "three", num_epochs=2,
         shuffle=True, batch=SB, capacity=16, min_after_dequeue=8, small=True,
         wait_full=False),
    # Producer and queue both seeded by the graph seed alone: TF gives the
    # producer's shuffle op seed 0 and the queue op seed 1 (its per-graph
    # count); inflow has no graph, and each call counts from 0.
    case("graph_seed_only_producer_and_shuffle_batch", "three", num_epochs=3,
         shuffle=True, graph_seed=7, batch=SB, batch_size=6, capacity=20,
         min_after_dequeue=10),
]
ALL = REPRODUCIBLE + UNREPRODUCIBLE

# inflow runs of a TF case with other options: (TF's case, what changes).
# A graph seed alone on TF's side is, for inflow, the same graph seed with
# the op seeds TF's per-graph count hands out: 0 to the producer's shuffle
# (created first), 1 to shuffle_batch's queue.
OVERRIDES = {
    "graph_seed_7_with_tfs_counted_op_seeds_0_and_1":
        ("graph_seed_only_producer_and_shuffle_batch", {"seed": 0, "batch_seed": 1}),
}

# Replayed by ctest `pipeline_tf_sample` (so under the sanitizers) from
# tests/input/testdata/pipeline_sample.json, which
# `python tests/py/pipeline_tf_oracle.py` rewrites from TF.
SAMPLE_CORPUS = "three"
SAMPLE = [c for c in REPRODUCIBLE if c["name"] in (
    "batch_2_epochs_producer_seed_7_short_final",
    "shuffle_batch_3_epochs_seeds_2_1_short_final",
    "shuffle_batch_capacity_below_min_plus_batch_remainder_dropped")]
SAMPLE_FILE = ROOT / "tests" / "input" / "testdata" / "pipeline_sample.json"


def producer_name(c):
    seeds = "unshuffled" if not c["shuffle"] else f"seed_{c['seed']}_graph_seed_{c['graph_seed']}"
    return f"producer_{c['corpus']}_{c['num_epochs']}_epochs_{seeds}"


# The producer alone, for every producer configuration of a reproducible
# case: when a pipeline differs, this says whether the filename order does.
PRODUCERS = list({producer_name(c): {**c, "mode": "producer", "name": producer_name(c)}
                  for c in REPRODUCIBLE}.values())


@pytest.fixture(scope="module")
def corpora(tmp_path_factory, run_inflow):
    root = tmp_path_factory.mktemp("pipeline_corpora")
    files = {}
    for name, sizes in CORPORA.items():
        files[name] = []
        for i, records in enumerate(oracle.corpus_records(sizes)):
            path = root / f"{name}-{i}.tfrecord"
            if name.endswith("_inflow"):
                lines = "".join(json.dumps({"raw": oracle.b64(r)}) + "\n" for r in records)
                run_inflow("records", "write", path, input=lines)
            else:
                oracle.write_tf(path, records)
            files[name].append(str(path))
    return files


def with_files(c, corpora):
    out = {k: v for k, v in c.items() if k != "corpus"}
    out["files"] = corpora[c["corpus"]]
    return out


@pytest.fixture(scope="module")
def tf_results(corpora):
    out = {c["name"]: oracle.run_tf(with_files(c, corpora)) for c in ALL}
    out.update({c["name"]: oracle.run_tf_producer(with_files(c, corpora)) for c in PRODUCERS})
    return out


@pytest.fixture(scope="module")
def inflow_results(corpora):
    if not DRIVER.exists():
        pytest.fail(f"{DRIVER} is missing: build the pipeline_tf_driver target")
    by_name = {c["name"]: c for c in ALL}
    extra = [{**by_name[base], **changes, "name": name}
             for name, (base, changes) in OVERRIDES.items()]
    cases = [with_files(c, corpora) for c in ALL + PRODUCERS + extra]
    proc = subprocess.run([str(DRIVER)], input=json.dumps(cases), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    return {c["name"]: r for c, r in zip(ALL + PRODUCERS + extra, results)}


# ---- what a result says --------------------------------------------------------

def ids(result):
    return [i for b in result["batches"] for i in b["id"]["values"]]


def batch_sizes(result):
    return [b["id"]["shape"][0] for b in result["batches"]]


def rows(result):
    """Every record of every batch, as one hashable value each."""
    out = []
    for b in result["batches"]:
        n = b["id"]["shape"][0]
        for i in range(n):
            row = []
            for key in sorted(b):
                t = b[key]
                per = len(t["values"]) // n if n else 0
                row.append((key, t["dtype"], tuple(t["shape"][1:]),
                            tuple(t["values"][i * per:(i + 1) * per])))
            out.append(tuple(row))
    return out


def expected_sizes(c):
    total = sum(CORPORA[c["corpus"]]) * c["num_epochs"]
    full, rest = divmod(total, c["batch_size"])
    return [c["batch_size"]] * full + ([rest] if rest and c["allow_smaller_final_batch"] else [])


def check_tf_is_a_meaningful_reference(c, theirs):
    """TF's own result: every record num_epochs times, the batch sizes that
    the corpus size and allow_smaller_final_batch imply, OUT_OF_RANGE at the
    end, and (when something shuffles) an order that is not the files'
    order, so that the comparison can fail."""
    assert theirs["status"]["code"] == "OUT_OF_RANGE", theirs["status"]
    sizes = expected_sizes(c)
    assert batch_sizes(theirs) == sizes
    n = sum(CORPORA[c["corpus"]])
    seen = Counter(ids(theirs))
    if sum(sizes) == n * c["num_epochs"]:
        assert seen == Counter({i: c["num_epochs"] for i in range(n)})
    in_file_order = list(range(n)) * c["num_epochs"]
    if c["batch"] == SB:
        got = ids(theirs)
        runs = sum(1 for a, b in zip(got, got[1:]) if b == a + 1)
        assert runs < len(got) / 3, "shuffle_batch barely shuffled"
    elif c["shuffle"] and len(CORPORA[c["corpus"]]) > 1:
        assert ids(theirs) != in_file_order[:len(ids(theirs))]


def check_inflow_ran_cleanly(ours):
    assert "setup_error" not in ours, ours.get("setup_error")
    assert "join_error" not in ours, ours["join_error"]


def first_difference(ours, theirs, producer_agrees):
    stage = ("the producer's filename order agrees with TF's" if producer_agrees
             else "the producer's filename order differs from TF's")
    for step, (a, b) in enumerate(zip(ours["batches"], theirs["batches"])):
        if a != b:
            return (f"{stage}; step {step}: inflow ids {a['id']['values']}, "
                    f"TF ids {b['id']['values']}")
    return (f"{stage}; inflow {len(ours['batches'])} steps, TF {len(theirs['batches'])}; "
            f"inflow ids {ids(ours)}, TF ids {ids(theirs)}")


# ---- tests ------------------------------------------------------------------------

def test_corpus_written_by_inflow_is_byte_identical_to_tfs(corpora):
    for ours, theirs in zip(corpora["three_inflow"], corpora["three"]):
        assert pathlib.Path(ours).read_bytes() == pathlib.Path(theirs).read_bytes()


@pytest.mark.parametrize("c", PRODUCERS, ids=[c["name"] for c in PRODUCERS])
def test_string_input_producer_yields_tfs_filenames_in_tfs_order(c, corpora, tf_results,
                                                                 inflow_results):
    theirs, ours = tf_results[c["name"]], inflow_results[c["name"]]
    files = corpora[c["corpus"]]
    # TF's own: each epoch a permutation of the files (the files' order when
    # unshuffled), then OUT_OF_RANGE.
    assert theirs["status"]["code"] == "OUT_OF_RANGE"
    epochs = [theirs["filenames"][i:i + len(files)]
              for i in range(0, len(theirs["filenames"]), len(files))]
    assert len(epochs) == c["num_epochs"]
    assert all(sorted(e) == sorted(files) for e in epochs)
    if not c["shuffle"]:
        assert all(e == files for e in epochs)
    check_inflow_ran_cleanly(ours)
    assert ours["filenames"] == theirs["filenames"]
    assert ours["status"]["code"] == theirs["status"]["code"], ours["status"]


@pytest.mark.parametrize("c", REPRODUCIBLE, ids=[c["name"] for c in REPRODUCIBLE])
def test_pipeline_yields_tfs_batches_in_tfs_order(c, tf_results, inflow_results):
    theirs, ours = tf_results[c["name"]], inflow_results[c["name"]]
    check_tf_is_a_meaningful_reference(c, theirs)
    check_inflow_ran_cleanly(ours)
    producer = producer_name(c)
    producer_agrees = (inflow_results[producer].get("filenames")
                       == tf_results[producer]["filenames"])
    assert ours["batches"] == theirs["batches"], first_difference(ours, theirs,
                                                                  producer_agrees)
    assert ours["status"]["code"] == theirs["status"]["code"], ours["status"]


@pytest.mark.parametrize("c", UNREPRODUCIBLE, ids=[c["name"] for c in UNREPRODUCIBLE])
def test_unreproducible_pipeline_yields_tfs_records_and_steps(c, tf_results,
                                                             inflow_results):
    theirs, ours = tf_results[c["name"]], inflow_results[c["name"]]
    check_tf_is_a_meaningful_reference(c, theirs)
    check_inflow_ran_cleanly(ours)
    assert batch_sizes(ours) == batch_sizes(theirs)
    assert ours["status"]["code"] == theirs["status"]["code"], ours["status"]
    if sum(batch_sizes(theirs)) == sum(CORPORA[c["corpus"]]) * c["num_epochs"]:
        assert Counter(rows(ours)) == Counter(rows(theirs))
    else:  # a remainder was dropped: which one depends on the order
        assert set(rows(ours)) <= set(rows(theirs))
        assert max(Counter(ids(ours)).values()) <= c["num_epochs"]



def test_graph_seed_alone_is_tfs_op_seeds_counted_in_graph_order(tf_results, inflow_results):
    # Why the graph-seed-only case cannot match: TF numbered the producer's
    # and the queue's op seeds 0 and 1; inflow, given them, matches exactly.
    name = "graph_seed_7_with_tfs_counted_op_seeds_0_and_1"
    base, _ = OVERRIDES[name]
    theirs, ours = tf_results[base], inflow_results[name]
    check_inflow_ran_cleanly(ours)
    assert ours["batches"] == theirs["batches"], first_difference(ours, theirs, True)
    assert inflow_results[base]["batches"] != theirs["batches"]


def test_recorded_sample_is_what_tf_gives_today(tmp_path):
    # The sample ctest replays must stay TF's truth: regenerated, it is
    # identical to the committed file.
    recorded = json.loads(SAMPLE_FILE.read_text())
    assert len(recorded["cases"]) == len(SAMPLE) == 3
    assert oracle.make_sample(SAMPLE, CORPORA[SAMPLE_CORPUS], tmp_path) == recorded
