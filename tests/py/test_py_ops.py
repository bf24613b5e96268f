"""Custom ops through Python: inflow.load_op_library over the test op
libraries of tests/ops (built by inflow_add_op_library), an op library
compiled here with inflow.sysconfig's flags, the op functions as Nodes (run,
batching), eager calls and Dataset maps; a stateful op keeps its state;
OUT_OF_RANGE ends a Dataset and a batching call; a missing file, a missing
symbol, another ABI version and attribute errors raise errors naming what is
wrong."""
import functools
import os
import subprocess
import textwrap

import numpy as np
import pytest

import inflow
from inflow import errors
from inflow._ops import _snake_case

from conftest import BUILD

LIBS = BUILD / "tests" / "ops"
JOIN_S = 60


def lib_path(name):
    return str(LIBS / f"lib{name}.so")


@pytest.fixture(scope="module")
def lib():
    return inflow.load_op_library(lib_path("inflow_test_ops"))


@pytest.fixture(autouse=True)
def fresh_collection():
    inflow.train._coordination._clear_queue_runners()
    yield
    inflow.train._coordination._clear_queue_runners()


def test_snake_case_is_tfs():
    cases = {"ZeroOut": "zero_out", "DecodeCSV": "decode_csv",
             "SkipgramWord2vec": "skipgram_word2vec",
             "NegTrainWord2vec": "neg_train_word2vec", "RGBToHSV": "rgb_to_hsv",
             "Counter": "counter"}
    for op, function in cases.items():
        assert _snake_case(op) == function, op


def test_the_module_has_a_function_per_op_with_its_declaration_as_doc(lib):
    assert lib.op_names == ["ZeroOut", "Scale", "Counter", "RunningSum",
                            "LineLength", "Lengths", "WrongShape", "AddInPlace",
                            "Fail"]
    for name in ("zero_out", "scale", "counter", "running_sum", "line_length",
                 "lengths", "wrong_shape", "add_in_place", "fail"):
        assert callable(getattr(lib, name))
    assert lib.zero_out.op_name == "ZeroOut"
    assert "Zeroes every element" in lib.zero_out.__doc__
    assert "preserve_index: int = 0" in lib.zero_out.__doc__
    assert "limit: int (required)" in lib.counter.__doc__
    # Loading again gives the same ops.
    again = inflow.load_op_library(lib_path("inflow_test_ops"))
    assert again.op_names == lib.op_names


def test_an_eager_call_runs_the_op_with_attribute_defaults(lib):
    x = np.array([5, 6, 7], np.int32)
    np.testing.assert_array_equal(lib.zero_out(x), [5, 0, 0])
    np.testing.assert_array_equal(lib.zero_out(x, preserve_index=2), [0, 0, 7])
    np.testing.assert_array_equal(lib.zero_out(to_zero=x, preserve_index=1), [0, 6, 0])
    out = lib.scale(np.array([1, 2], np.float32), factor=3, bias=0.5)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [3.5, 6.5])


def test_attribute_and_input_errors_name_the_op(lib):
    x = np.array([1], np.int32)
    with pytest.raises(TypeError, match="op 'ZeroOut' has no attribute 'nope'"):
        lib.zero_out(x, nope=1)
    with pytest.raises(TypeError,
                       match="op 'ZeroOut': attribute 'preserve_index' must be int, "
                             "got 'one'"):
        lib.zero_out(x, preserve_index="one")
    with pytest.raises(errors.InvalidArgumentError,
                       match="op 'Counter': attribute 'limit' \\(int\\) has no default"):
        lib.counter()
    with pytest.raises(TypeError, match="missing input 'to_zero'"):
        lib.zero_out(preserve_index=0)
    with pytest.raises(errors.InvalidArgumentError,
                       match="op 'ZeroOut': preserve_index 3 is not below 1"):
        lib.zero_out(x, preserve_index=3)
    with pytest.raises(errors.InvalidArgumentError,
                       match="op 'ZeroOut': preserve_index must be >= 0, got -1"):
        lib.zero_out(x, preserve_index=-1)
    with pytest.raises(errors.FailedPreconditionError, match="op 'Fail': no luck"):
        lib.fail(np.zeros(1, np.float32), message="no luck")


def test_an_output_of_another_shape_than_declared_names_the_op(lib):
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"op 'WrongShape': output 'y' must be float32 \[2\], got "
                             r"float32 \[3\]"):
        lib.wrong_shape(np.zeros(1, np.float32))


def test_a_mutable_input_is_updated_in_place_and_must_be_writeable(lib):
    acc = np.array([1, 2], np.float32)
    assert lib.add_in_place(acc, np.array([10, 20], np.float32)) == ()
    lib.add_in_place(acc, x=np.array([10, 20], np.float32))
    np.testing.assert_array_equal(acc, [21, 42])
    assert "acc: float32 any shape (updated in place)" in lib.add_in_place.__doc__
    x = np.ones(2, np.float32)
    with pytest.raises(TypeError, match="op 'AddInPlace': input 'acc' is updated in "
                                        "place: pass a writeable, C-contiguous"):
        lib.add_in_place(np.array([1, 2], np.float64), x)
    frozen = np.array([1, 2], np.float32)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="input 'acc' is updated in place"):
        lib.add_in_place(frozen, x)
    with pytest.raises(TypeError, match="input 'acc' is updated in place"):
        lib.add_in_place([1.0, 2.0], x)
    np.testing.assert_array_equal(frozen, [1, 2])


def test_on_nodes_an_op_is_a_step_with_static_shapes(lib):
    x = inflow.constant(np.array([1, 2, 3], np.int32))
    z = lib.zero_out(x, preserve_index=2)
    assert isinstance(z, inflow.Node)
    assert z.shape == [3] and z.dtype == np.int32 and z.op_name == "ZeroOut"
    np.testing.assert_array_equal(inflow.run(z), [0, 0, 3])
    with pytest.raises(TypeError, match="op 'ZeroOut': input 'to_zero' must be int32"):
        lib.zero_out(inflow.constant(np.zeros(2, np.float32)))


def test_a_stateful_op_keeps_its_state_across_runs_and_ends_with_out_of_range(lib):
    counter = lib.counter(limit=3)
    assert [int(inflow.run(counter)) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(errors.OutOfRangeError, match="op 'Counter': counted to 3"):
        inflow.run(counter)
    # Another Node has a kernel of its own.
    assert int(inflow.run(lib.counter(limit=3))) == 0


def test_out_of_range_of_an_op_ends_a_batching_call(lib):
    out = inflow.train.batch([lib.counter(limit=7)], batch_size=3,
                             allow_smaller_final_batch=True)
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    got = [b.tolist() for b in out.batches()]
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=JOIN_S)
    assert got == [[0, 1, 2], [3, 4, 5], [6]]


def test_a_dataset_maps_an_op_and_a_stateful_one_keeps_state(lib):
    sums = inflow.data.Dataset.range(1, 6).map(lib.running_sum)
    assert [int(v) for v in sums] == [1, 3, 6, 10, 15]
    x = np.arange(8, dtype=np.float32)
    for fn in (lib.scale.bind(factor=10), functools.partial(lib.scale, factor=10)):
        ds = inflow.data.Dataset.from_tensor_slices(x).map(fn, num_parallel_calls=3)
        np.testing.assert_array_equal([float(v) for v in ds], x * 10)


def test_out_of_range_of_an_op_ends_a_dataset(lib):
    lines = inflow.data.Dataset.from_tensor_slices([b"a", b"bb", b"ccc", b"dddd"])
    assert [int(v) for v in lines.map(lib.line_length.bind(limit=2))] == [1, 2]
    assert [int(v) for v in lines.map(lib.line_length)] == [1, 2, 3, 4]


def test_a_missing_file_is_not_found_naming_it():
    with pytest.raises(errors.NotFoundError,
                       match="op library /nonexistent/libx.so: no such file"):
        inflow.load_op_library("/nonexistent/libx.so")


def test_a_missing_symbol_is_an_error_naming_it():
    with pytest.raises(errors.InvalidArgumentError,
                       match="undefined symbol: inflow_test_undefined_function"):
        inflow.load_op_library(lib_path("inflow_test_missing_symbol_ops"))


def test_another_abi_version_is_an_error_naming_both_versions():
    with pytest.raises(errors.InvalidArgumentError) as e:
        inflow.load_op_library(lib_path("inflow_test_abi_mismatch_ops"))
    assert "built against inflow ABI version 999 (inflow 9.9.9), but this is " \
           "inflow ABI version 1 (inflow 0.1.0)" in str(e.value)


def test_a_library_redeclaring_an_op_is_already_exists(lib):
    with pytest.raises(errors.AlreadyExistsError,
                       match="op 'ZeroOut' is already registered"):
        inflow.load_op_library(lib_path("inflow_test_duplicate_ops"))


OP_SOURCE = textwrap.dedent("""\
    #include <cstdint>
    #include <span>

    #include "inflow/ops/op_library.h"

    namespace {
    class Square : public inflow::ops::OpKernel {
     public:
      inflow::Status Compute(inflow::ops::OpKernelContext& c) override {
        const inflow::Tensor& x = c.input(0);
        INFLOW_ASSIGN_OR_RETURN(inflow::Tensor* y, c.AllocateOutput(0, x.shape()));
        INFLOW_ASSIGN_OR_RETURN(std::span<double> out, y->mutable_flat<double>());
        std::span<const double> in = x.flat<double>();
        for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] * in[i];
        return inflow::OkStatus();
      }
    };
    }  // namespace

    INFLOW_OP_LIBRARY(library) {
      using inflow::DType;
      library.AddOp(inflow::ops::OpDef("PySysconfigSquare")
                        .Input("x", DType::kFloat64)
                        .Output("y", DType::kFloat64)
                        .SetShapeFn(inflow::ops::SameShapeAsInput(0)));
      library.AddKernel(inflow::ops::MakeKernelDef<Square>(
          "PySysconfigSquare", {DType::kFloat64}));
    }
    """)


def test_a_library_built_with_sysconfigs_flags_loads_and_runs(tmp_path):
    source = tmp_path / "square.cc"
    source.write_text(OP_SOURCE)
    out = tmp_path / "libsquare.so"
    cmd = (["g++", "-shared", "-O1", "-o", str(out), str(source)] +
           inflow.sysconfig.get_compile_flags() + inflow.sysconfig.get_link_flags())
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    lib = inflow.load_op_library(out)
    np.testing.assert_array_equal(lib.py_sysconfig_square(np.array([1.5, -2.0])),
                                  [2.25, 4.0])
    assert os.path.exists(os.path.join(inflow.sysconfig.get_include(), "inflow",
                                       "ops", "op_library.h"))
    assert os.path.exists(os.path.join(inflow.sysconfig.get_lib(), "libinflow_core.a"))



def test_a_pipeline_maps_an_op_over_each_record_and_its_end_ends_it(lib, tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("".join("x" * i + "\n" for i in range(1, 11)))
    every = inflow.Pipeline([str(path)], reader="text", num_epochs=1, shuffle=False,
                            batch_size=3, allow_smaller_final_batch=True, read_batch=4,
                            map_fn=lib.line_length, name="ops_py_all")
    got = [int(v) for batch in every for v in batch["length"]]
    assert got == list(range(1, 11))
    # The op ends after 6 lines: the first chunk of 4 goes through.
    ended = inflow.Pipeline([str(path)], reader="text", num_epochs=1, shuffle=False,
                            batch_size=3, allow_smaller_final_batch=True, read_batch=4,
                            map_fn=lib.line_length.bind(limit=6), name="ops_py_end")
    assert [int(v) for batch in ended for v in batch["length"]] == [1, 2, 3, 4]
    with pytest.raises(errors.InvalidArgumentError,
                       match="op 'Scale': a Pipeline map needs outputs of fully defined"):
        inflow.Pipeline([str(path)], reader="text", map_fn=lib.scale)
    # An op over batches, once per chunk of 4 records.
    chunks = inflow.Pipeline([str(path)], reader="text", num_epochs=1, shuffle=False,
                             batch_size=3, allow_smaller_final_batch=True, read_batch=4,
                             map_fn=lib.lengths.per_chunk(), name="ops_py_chunks")
    assert [int(v) for batch in chunks for v in batch["lengths"]] == list(range(1, 11))


def test_an_instance_keeps_one_kernel_across_eager_calls(lib):
    counter = lib.counter.instance(limit=2)
    assert counter.attrs == {"limit": 2}
    assert [int(counter()), int(counter())] == [0, 1]
    with pytest.raises(errors.OutOfRangeError, match="op 'Counter': counted to 2"):
        counter()
    sums = lib.running_sum.instance()
    assert [int(sums(np.int64(v))) for v in (1, 2, 3)] == [1, 3, 6]
    with pytest.raises(TypeError, match="an instance takes inputs only"):
        lib.zero_out.instance()(np.zeros(2, np.int32), preserve_index=1)


def test_a_stateful_op_on_several_batching_threads_runs_one_call_at_a_time(lib):
    out = inflow.train.batch([lib.counter(limit=200)], batch_size=10, num_threads=4,
                             allow_smaller_final_batch=True)
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    got = [v for b in out.batches() for v in b.tolist()]
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=JOIN_S)
    # Every count once: the kernel's calls never overlapped.
    assert sorted(got) == list(range(200))
