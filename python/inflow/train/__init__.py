"""tf.compat.v1.train's names: Coordinator, QueueRunner, input producers, the
batch family, Saver and the checkpoint state functions."""

from inflow.train._coordination import *  # noqa: F401,F403
from inflow.train._input import *  # noqa: F401,F403
from inflow.train._checkpoint import *  # noqa: F401,F403
