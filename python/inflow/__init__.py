"""inflow: TensorFlow 1.x's queue-and-thread input pipeline, without TensorFlow.

The names follow TF1's: ``inflow.FIFOQueue`` is ``tf.queue.FIFOQueue``,
``inflow.train.shuffle_batch`` is ``tf.compat.v1.train.shuffle_batch``,
``inflow.io.TFRecordWriter`` is ``tf.io.TFRecordWriter``, and so on
(docs/python.md). Dequeued tensors are NumPy arrays over inflow's buffers.
"""

from inflow import _inflow
from inflow import errors
# Graph, get_default_graph, reset_default_graph, set_random_seed, get_seed,
# get_collection, add_to_collection, GraphKeys (tf.compat.v1's names).
from inflow._graph import *  # noqa: F401,F403
from inflow._queues import *  # noqa: F401,F403  FIFOQueue, ...
from inflow import io
# TF1 also has the parsing names at the top level (tf.parse_example, ...).
from inflow.io._parsing import *  # noqa: F401,F403
from inflow import train
from inflow._steps import *  # noqa: F401,F403  Node, run, cast, one_hot, ...
from inflow._pipeline import *  # noqa: F401,F403  Pipeline
# keras.utils's names: Sequence, OrderedEnqueuer, GeneratorEnqueuer, ...
from inflow import utils
from inflow import data
# Custom ops: load_op_library (tf.load_op_library); inflow.sysconfig.
from inflow._ops import load_op_library  # noqa: F401
from inflow import sysconfig  # noqa: F401
# Data-parallel training under mpirun: rank, size, shard, allreduce.
from inflow import distributed  # noqa: F401

__version__ = _inflow.__version__ if hasattr(_inflow, "__version__") else "0.1.0"

# TF's dtype names (tf.float32, tf.string, ...) as the numpy dtypes inflow
# gives and takes; string is the object dtype of dequeued string arrays.
float16 = _inflow.as_numpy_dtype("float16")
float32 = _inflow.as_numpy_dtype("float32")
float64 = _inflow.as_numpy_dtype("float64")
int8 = _inflow.as_numpy_dtype("int8")
int16 = _inflow.as_numpy_dtype("int16")
int32 = _inflow.as_numpy_dtype("int32")
int64 = _inflow.as_numpy_dtype("int64")
uint8 = _inflow.as_numpy_dtype("uint8")
uint16 = _inflow.as_numpy_dtype("uint16")
uint32 = _inflow.as_numpy_dtype("uint32")
uint64 = _inflow.as_numpy_dtype("uint64")
bool = _inflow.as_numpy_dtype("bool")  # noqa: A001  (TF's name)
string = _inflow.as_numpy_dtype("string")


def __getattr__(name):
    # bfloat16 is ml_dtypes.bfloat16 (uint16 without ml_dtypes), looked up
    # on first use: importing ml_dtypes would cost most of `import inflow`.
    if name == "bfloat16":
        value = _inflow.as_numpy_dtype("bfloat16")
        globals()["bfloat16"] = value
        return value
    raise AttributeError(f"module 'inflow' has no attribute {name!r}")
