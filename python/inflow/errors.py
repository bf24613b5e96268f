"""Exception classes named as TensorFlow's tf.errors, one per status code."""

__all__ = []
