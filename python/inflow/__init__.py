"""inflow: TensorFlow 1.x's queue-and-thread input pipeline, without TensorFlow.

The names follow TF1's: ``inflow.FIFOQueue`` is ``tf.queue.FIFOQueue``,
``inflow.train.shuffle_batch`` is ``tf.compat.v1.train.shuffle_batch``,
``inflow.io.TFRecordWriter`` is ``tf.io.TFRecordWriter``, and so on
(docs/python.md). Dequeued tensors are NumPy arrays over inflow's buffers.
"""

from inflow import _inflow
from inflow import errors
from inflow._queues import *  # noqa: F401,F403  FIFOQueue, ...
from inflow import io
# TF1 also has the parsing names at the top level (tf.parse_example, ...).
from inflow.io._parsing import *  # noqa: F401,F403
from inflow import train
from inflow._pipeline import *  # noqa: F401,F403  Pipeline

__version__ = _inflow.__version__ if hasattr(_inflow, "__version__") else "0.1.0"
