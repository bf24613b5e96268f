"""Records and Examples: TFRecordWriter, tf_record_iterator, TFRecordOptions,
parse_single_example, parse_example, parse_single_sequence_example and the
feature specs, decode_raw; and
gfile (tf.io.gfile's local-file subset)."""

from inflow.io._records import *  # noqa: F401,F403
from inflow.io._parsing import *  # noqa: F401,F403
from inflow.io import gfile  # noqa: F401
