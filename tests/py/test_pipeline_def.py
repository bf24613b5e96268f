"""Pipeline definitions (docs/custom_ops.md, "Pipeline definitions"): a
Dataset and a batching Pipeline kept as JSON files, with a custom op of the
test op library as a step, run by `inflow run-pipeline` and rebuilt from
Python; bad files give errors naming the file and the step's JSON path."""
import json

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors

from conftest import BUILD

LIBRARY = str(BUILD / "tests" / "ops" / "libinflow_test_ops.so")


def example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "v": tf.train.Feature(float_list=tf.train.FloatList(value=[i, i + 1, i + 2])),
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
    })).SerializeToString()


@pytest.fixture
def records(tmp_path):
    """Two files of 30 Examples each (ids 0..59)."""
    for s in range(2):
        with inflow.io.TFRecordWriter(tmp_path / f"part-{s}.tfrecord") as w:
            for i in range(30 * s, 30 * s + 30):
                w.write(example(i))
    return str(tmp_path / "part-*.tfrecord")


def write(tmp_path, name, definition):
    path = tmp_path / name
    path.write_text(json.dumps(definition, indent=2))
    return str(path)


def dataset_definition(records):
    return {
        "version": 1, "kind": "dataset", "op_libraries": [LIBRARY],
        "steps": [
            {"op": "tfrecord", "attrs": {"files": [records]}},
            {"op": "fixed_len_feature", "attrs": {"key": "v", "dtype": "float32",
                                                  "shape": [3]}},
            {"op": "Scale", "attrs": {"factor": 10, "bias": 1},
             "options": {"num_parallel_calls": 2}},
            {"op": "batch", "attrs": {"batch_size": 8}},
        ]}


def pipeline_definition(records):
    return {
        "version": 1, "kind": "pipeline", "op_libraries": [LIBRARY],
        "steps": [
            {"op": "files", "attrs": {"patterns": [records], "num_epochs": 2}},
            {"op": "tfrecord_reader", "attrs": {"num_readers": 2, "read_batch": 8}},
            {"op": "fixed_len_feature", "attrs": {"key": "v", "dtype": "float32",
                                                  "shape": [3]}},
            {"op": "Scale", "attrs": {"factor": 2.0}},
            {"op": "batch", "attrs": {"batch_size": 10, "shuffle": True,
                                      "min_after_dequeue": 5, "seed": 7}},
        ]}


def test_run_pipeline_runs_a_dataset_with_a_custom_op(tmp_path, records, run_inflow):
    path = write(tmp_path, "ds.json", dataset_definition(records))
    lines = [json.loads(l) for l in run_inflow("run-pipeline", path).stdout.splitlines()]
    batches, summary = lines[:-1], lines[-1]
    assert [b["components"][0]["shape"] for b in batches] == \
        [[8, 3]] * 7 + [[4, 3]]
    assert summary["kind"] == "dataset"
    assert summary["batches"] == 8 and summary["rows"] == 60
    stages = {s["stage"].split(" ")[0]: s for s in summary["stages"]}
    assert stages["tfrecord"]["elements"] == 60
    assert stages["batch"]["elements"] == 8
    assert all(s["elements_per_second"] > 0 for s in summary["stages"])
    assert summary["bottleneck"]


def test_run_pipeline_bench_reports_each_queue(tmp_path, records, run_inflow):
    path = write(tmp_path, "p.json", pipeline_definition(records))
    out = run_inflow("run-pipeline", path, "--bench").stdout.splitlines()
    assert len(out) == 1
    summary = json.loads(out[0])
    assert summary["kind"] == "pipeline"
    assert summary["rows"] == 120 and summary["batches"] == 12
    stages = {s["stage"]: s for s in summary["stages"]}
    # The filename queue gave 2 epochs of 2 files; the batching queue took
    # every record.
    assert stages["pipeline/input_producer"]["dequeued"] == 4
    batch = [s for name, s in stages.items() if "batch" in name]
    assert len(batch) == 1 and batch[0]["enqueued"] == 120
    assert batch[0]["enqueued_per_second"] > 0


def test_run_pipeline_bad_step_names_file_and_path(tmp_path, records, run_inflow):
    definition = dataset_definition(records)
    definition["steps"][3]["attrs"]["batch_size"] = "eight"
    path = write(tmp_path, "bad.json", definition)
    proc = run_inflow("run-pipeline", path, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        f"INVALID_ARGUMENT: {path}: $.steps[3].attrs.batch_size: must be an int")
    (tmp_path / "broken.json").write_text('{"version": 1,\n "kind": }')
    proc = run_inflow("run-pipeline", tmp_path / "broken.json", check=False)
    assert proc.returncode == 1
    assert f"{tmp_path / 'broken.json'}: line 2, column" in proc.stderr


def test_python_rebuilds_a_dataset(tmp_path, records):
    ds = inflow.load_pipeline(write(tmp_path, "ds.json", dataset_definition(records)))
    assert isinstance(ds, inflow.data.Dataset)
    batches = list(ds)
    got = np.concatenate(batches)
    ids = np.arange(60, dtype=np.float32)
    want = np.stack([ids, ids + 1, ids + 2], axis=1) * 10 + 1
    np.testing.assert_array_equal(got, want)
    # The same through Dataset.from_definition, with more steps after it.
    again = inflow.data.Dataset.from_definition(tmp_path / "ds.json").unbatch().take(2)
    np.testing.assert_array_equal(np.stack(list(again)), want[:2])


def test_python_rebuilds_a_pipeline(tmp_path, records):
    path = write(tmp_path, "p.json", pipeline_definition(records))
    with inflow.load_pipeline(path, name="from_file") as pipeline:
        assert isinstance(pipeline, inflow.Pipeline)
        assert pipeline.names == ["y"]
        rows = np.concatenate([b["y"] for b in pipeline])
    ids = np.arange(60, dtype=np.float32)
    want = np.stack([ids, ids + 1, ids + 2], axis=1) * 2
    got = rows[np.lexsort(rows.T[::-1])]
    np.testing.assert_array_equal(got, np.repeat(want, 2, axis=0))


def test_python_bad_definition_is_invalid_argument(tmp_path, records):
    definition = pipeline_definition(records)
    definition["steps"][3]["attrs"] = {"factr": 2}
    path = write(tmp_path, "bad.json", definition)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"bad\.json: \$\.steps\[3\]\.attrs\.factr: op 'Scale' has no "
                             r"such attribute"):
        inflow.Pipeline.from_definition(path)
    with pytest.raises(errors.NotFoundError):
        inflow.load_pipeline(tmp_path / "missing.json")


def test_python_pipeline_saves_its_definition(tmp_path, records):
    lib = inflow.load_op_library(LIBRARY)
    made = inflow.Pipeline(records, num_epochs=1, batch_size=6, shuffle=False,
                           map_fn=lib.line_length.bind(limit=-1), seed=3)
    with made:
        lengths = sorted(np.concatenate([b["length"] for b in made]).tolist())
    definition = made.definition()
    assert definition["kind"] == "pipeline"
    assert definition["op_libraries"] == [LIBRARY]
    assert [s["op"] for s in definition["steps"]] == \
        ["files", "tfrecord_reader", "LineLength", "batch"]
    assert definition["steps"][2] == {"op": "LineLength", "attrs": {"limit": -1},
                                      "options": {"unit": "record"}}
    path = tmp_path / "saved.json"
    made.save_definition(path)
    with inflow.Pipeline.from_definition(path) as again:
        assert again.definition() == definition
        got = sorted(np.concatenate([b["length"] for b in again]).tolist())
    assert got == lengths and len(got) == 60
    # The C++ reader takes what Python wrote.
    assert isinstance(inflow.load_pipeline(path), inflow.Pipeline)


def test_python_pipeline_with_a_python_map_has_no_definition(records):
    with inflow.Pipeline(records, num_epochs=1, map_fn=lambda rows: rows) as p:
        with pytest.raises(ValueError, match="Python function"):
            p.definition()


def test_python_dataset_saves_its_steps_as_a_definition(tmp_path, records, run_inflow):
    lib = inflow.load_op_library(LIBRARY)
    files = [str(tmp_path / f"part-{s}.tfrecord") for s in range(2)]
    made = (inflow.data.TFRecordDataset(files)
            .map(lib.line_length.bind(limit=-1), num_parallel_calls=2)
            .shuffle(16, seed=5)
            .batch(7)
            .take(6)
            .prefetch(2))
    definition = made.definition()
    assert definition == {
        "version": 1, "kind": "dataset", "op_libraries": [LIBRARY],
        "steps": [
            {"op": "tfrecord", "attrs": {"files": files, "compression": "",
                                         "num_parallel_reads": 1}},
            {"op": "LineLength", "attrs": {"limit": -1},
             "options": {"num_parallel_calls": 2, "deterministic": True}},
            {"op": "shuffle", "attrs": {"buffer_size": 16, "seed": 5,
                                        "reshuffle_each_iteration": True}},
            {"op": "batch", "attrs": {"batch_size": 7, "drop_remainder": False,
                                      "num_parallel_calls": 0}},
            {"op": "take", "attrs": {"count": 6}},
            {"op": "prefetch", "attrs": {"buffer_size": 2}},
        ]}
    path = tmp_path / "saved.json"
    made.save_definition(path)
    again = inflow.data.Dataset.from_definition(path)
    assert again.definition() == definition
    want = [b.tolist() for b in made]
    assert [b.tolist() for b in again] == want
    assert [len(b) for b in want] == [7] * 6
    # The C++ reader and run-pipeline take what Python wrote.
    summary = json.loads(run_inflow("run-pipeline", path, "--bench").stdout.splitlines()[-1])
    assert summary["kind"] == "dataset" and summary["rows"] == 42


def test_python_dataset_definition_of_each_transformation(tmp_path):
    made = (inflow.data.Dataset.range(0, 40, 2).repeat(2).skip(3).shard(2, 1)
            .enumerate(5).cache().batch(4, drop_remainder=True).unbatch())
    assert [s["op"] for s in made.definition()["steps"]] == \
        ["range", "repeat", "skip", "shard", "enumerate", "cache", "batch", "unbatch"]
    assert made.definition()["steps"][0]["attrs"] == {"start": 0, "stop": 40, "step": 2}
    assert "op_libraries" not in made.definition()
    made.save_definition(tmp_path / "t.json")
    again = inflow.data.Dataset.from_definition(tmp_path / "t.json")
    got = [(int(i), int(v)) for i, v in again]
    assert got == [(int(i), int(v)) for i, v in made]
    assert len(got) == 16 and got[0] == (5, 8)
    # Steps chained after a definition's are recorded after its steps.
    longer = again.take(3)
    assert [s["op"] for s in longer.definition()["steps"]][-2:] == ["unbatch", "take"]


def test_python_dataset_with_a_step_a_definition_cannot_hold_is_a_value_error(tmp_path):
    python_map = inflow.data.Dataset.range(5).map(lambda x: x * 2).batch(2)
    with pytest.raises(ValueError, match="map_func is a Python function.*custom op"):
        python_map.definition()
    with pytest.raises(ValueError, match="Python function"):
        python_map.save_definition(tmp_path / "never.json")
    assert not (tmp_path / "never.json").exists()
    for ds, what in [
            (inflow.data.Dataset.from_tensor_slices(np.arange(4)), "from_tensor_slices"),
            (inflow.data.Dataset.range(4).filter(lambda x: x > 1), "filter"),
            (inflow.data.Dataset.range(4).padded_batch(2), "padded_batch"),
            (inflow.data.Dataset.zip((inflow.data.Dataset.range(2),
                                      inflow.data.Dataset.range(2))), "zip")]:
        with pytest.raises(ValueError, match=what):
            ds.take(1).definition()
