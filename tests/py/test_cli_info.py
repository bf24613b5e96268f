"""The CLI's dtype and status-code numbers are TensorFlow's own."""
import json

import tensorflow as tf


def test_dtype_numbers_and_sizes_match_tensorflow(run_inflow):
    info = json.loads(run_inflow("info").stdout)
    assert info["dtypes"], "no dtypes reported"
    for d in info["dtypes"]:
        tf_dtype = tf.as_dtype(d["name"])
        assert tf_dtype.as_datatype_enum == d["enum"], d
        if d["name"] != "string":
            assert tf_dtype.size == d["size"], d


def test_dtype_list_includes_uint32_and_uint64(run_inflow):
    info = json.loads(run_inflow("info").stdout)
    names = [d["name"] for d in info["dtypes"]]
    assert names == [
        "float32", "float64", "int32", "uint8", "int16", "int8", "string",
        "complex64", "int64", "bool", "bfloat16", "uint16", "complex128",
        "float16", "uint32", "uint64",
    ]
    by_name = {d["name"]: d for d in info["dtypes"]}
    for name in ("uint32", "uint64"):
        assert by_name[name]["enum"] == tf.as_dtype(name).as_datatype_enum
        assert by_name[name]["size"] == tf.as_dtype(name).size


def test_status_codes_match_tensorflow_errors(run_inflow):
    info = json.loads(run_inflow("info").stdout)
    codes = {c["name"]: c["code"] for c in info["status_codes"]}
    assert len(codes) == 16
    assert codes["OK"] == tf.errors.OK
    for name, code in codes.items():
        if name == "OK":
            continue
        assert getattr(tf.errors, name) == code, name


def test_version_and_usage_exit_codes(run_inflow):
    assert run_inflow("--version").stdout.startswith("inflow ")
    assert run_inflow("--help").returncode == 0
    assert run_inflow("--no-such-flag", check=False).returncode == 2
