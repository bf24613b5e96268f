"""TensorBoard event files: inflow's EventsWriter (through
tests/events_tf_driver) writes files that TensorFlow's
tf.compat.v1.train.summary_iterator reads with the file version first and
every tag, step and value; the file is named as TF names it; and every
scalar record is byte for byte what TF's protobuf serializes for the same
Event."""
import json
import socket
import subprocess

import pytest
import tensorflow as tf

from conftest import BUILD, tf_testdata_file

DRIVER = BUILD / "tests" / "events_tf_driver"


def write(spec):
    proc = subprocess.run([str(DRIVER)], input=json.dumps(spec), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    return lines[0]["file"], [bytes.fromhex(l["record"]) for l in lines[1:]]


EVENTS = [
    {"step": 0, "wall_time": 1700000000.25, "scalars": {"loss": 2.302585, "accuracy": 0.0}},
    {"step": 100, "wall_time": 1700000001.5, "scalars": {"loss": 0.5}},
    {"step": 469, "wall_time": 1700000009.75,
     "scalars": {"loss": 0.31, "queue/fill": 1.0, "examples_per_s": 41234.5,
                 "input_wait": 1e-7}},
    {"step": -1, "wall_time": 0.0, "scalars": {"negative step": -3.5}},
]


def test_summary_iterator_reads_file_version_then_every_tag_step_and_value(tmp_path):
    path, _ = write({"logdir": str(tmp_path / "logs"), "clock": 1700000000.9,
                     "events": EVENTS})
    events = list(tf.compat.v1.train.summary_iterator(path))
    assert len(events) == 1 + len(EVENTS)
    first = events[0]
    assert first.WhichOneof("what") == "file_version"
    assert first.file_version == "brain.Event:2"
    assert first.wall_time == 1700000000.0
    assert first.step == 0
    for want, got in zip(EVENTS, events[1:]):
        assert got.step == want["step"]
        assert got.wall_time == want["wall_time"]
        assert got.WhichOneof("what") == "summary"
        values = {v.tag: v for v in got.summary.value}
        assert list(values) == list(want["scalars"])
        for tag, value in want["scalars"].items():
            assert values[tag].WhichOneof("value") == "simple_value"
            assert values[tag].simple_value == pytest.approx(value, rel=1e-7)


def test_the_file_is_named_as_tensorflow_names_it(tmp_path):
    path, _ = write({"logdir": str(tmp_path), "suffix": ".eval", "clock": 1234567890.5,
                     "events": []})
    assert path == f"{tmp_path}/events.out.tfevents.1234567890.{socket.gethostname()}.eval"


def test_scalar_records_are_the_bytes_tensorflow_serializes(tmp_path):
    _, records = write({"logdir": str(tmp_path), "clock": 5.0, "events": EVENTS})
    for want, record in zip(EVENTS, records):
        event = tf.compat.v1.Event(
            wall_time=want["wall_time"], step=want["step"],
            summary=tf.compat.v1.Summary(value=[
                tf.compat.v1.Summary.Value(tag=t, simple_value=v)
                for t, v in want["scalars"].items()]))
        assert record == event.SerializeToString(), want


def test_tensorboard_file_writer_output_reads_back_in_tensorflow_like_ours(tmp_path):
    """TF's own FileWriter, for comparison: the same first event, apart
    from the writer named in source_metadata."""
    with tf.Graph().as_default():
        writer = tf.compat.v1.summary.FileWriter(str(tmp_path / "tf"))
        writer.add_summary(tf.compat.v1.Summary(value=[
            tf.compat.v1.Summary.Value(tag="loss", simple_value=0.5)]), 100)
        writer.close()
    [tf_path] = (tmp_path / "tf").iterdir()
    ours, _ = write({"logdir": str(tmp_path / "ours"), "clock": 1.0, "events": EVENTS[1:2]})
    tf_events = list(tf.compat.v1.train.summary_iterator(str(tf_path)))
    our_events = list(tf.compat.v1.train.summary_iterator(ours))
    assert [e.WhichOneof("what") for e in tf_events] == \
        [e.WhichOneof("what") for e in our_events]
    assert tf_events[0].file_version == our_events[0].file_version
    assert tf_events[0].source_metadata.writer == "tensorflow.core.util.events_writer"
    assert our_events[0].source_metadata.writer == "inflow.train.events_writer"
    assert tf_events[1].summary == our_events[1].summary


def test_events_cat_prints_what_summary_iterator_reads(run_inflow):
    """`inflow events cat` on TF-written files (TF1's FileWriter, TF2's
    tf.summary): every event's wall time, step, kind and simple values as
    TF's summary_iterator gives them."""
    for name in ("events.out.tfevents.tf1_file_writer", "events.out.tfevents.tf2_summary"):
        path = str(tf_testdata_file("events/" + name))
        lines = [json.loads(l) for l in run_inflow("events", "cat", path).stdout.splitlines()]
        events = list(tf.compat.v1.train.summary_iterator(path))
        assert len(lines) == len(events)
        for line, event in zip(lines, events):
            assert line["wall_time"] == event.wall_time
            assert line["step"] == event.step
            assert line["what"] == event.WhichOneof("what")
            if line["what"] == "summary":
                for v in event.summary.value:
                    if v.WhichOneof("value") == "simple_value":
                        assert line["values"][v.tag] == v.simple_value
                    else:
                        assert line["values"][v.tag]["kind"] == v.WhichOneof("value")


def test_events_tags_summarises_our_file_and_damage_is_exit_1(tmp_path, run_inflow):
    path, _ = write({"logdir": str(tmp_path), "clock": 9.0, "events": EVENTS[:3]})
    [line] = [json.loads(l) for l in run_inflow("events", "tags", path).stdout.splitlines()]
    assert line["events"] == 4
    assert line["tags"]["loss"] == {"count": 3, "first_step": 0, "last_step": 469,
                                    "last": pytest.approx(0.31, rel=1e-7)}
    data = open(path, "rb").read()
    cut = tmp_path / "cut"
    cut.write_bytes(data[:-3])
    proc = run_inflow("events", "cat", cut, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("DATA_LOSS: ") and str(cut) in proc.stderr, proc.stderr
    assert len(proc.stdout.splitlines()) == 3  # the events before the damage


def test_events_cat_of_a_file_that_is_not_an_event_file_is_exit_1_naming_it(tmp_path,
                                                                            run_inflow):
    """An Example file is a valid TFRecord file whose records protobuf (and
    TF's summary_iterator) read as Events with no field set; `inflow
    events` says it is not an event file, naming the record."""
    path = tmp_path / "examples.tfrecord"
    example = tf.train.Example(features=tf.train.Features(feature={
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))}))
    with tf.io.TFRecordWriter(str(path)) as w:
        w.write(example.SerializeToString())
    [event] = list(tf.compat.v1.train.summary_iterator(str(path)))
    assert event.ListFields() == []  # what TF makes of it
    for command in ("cat", "tags"):
        proc = run_inflow("events", command, path, check=False)
        assert proc.returncode == 1, proc.stdout
        assert proc.stderr.startswith(
            f"INVALID_ARGUMENT: {path}: record 0 at offset 0 is not an Event"), proc.stderr
        assert "is not a TensorBoard event file" in proc.stderr
        assert proc.stdout == ""
