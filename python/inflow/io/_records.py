"""TFRecord files: TFRecordOptions, TFRecordWriter and tf_record_iterator.

Files are byte-identical to TensorFlow's for the same records and options
(plain, ZLIB or GZIP), and each side reads the other's. A damaged record
raises ``inflow.errors.DataLossError`` naming the file and the byte offset.
"""

import os

from inflow import _inflow

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter",
           "tf_record_iterator"]


class TFRecordCompressionType:
    """The compression kinds, as ``tf.compat.v1.io.TFRecordCompressionType``."""
    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {None: "", "": "", "NONE": "", "ZLIB": "ZLIB", "GZIP": "GZIP",
          TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
          TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """How a TFRecord file is compressed (``tf.io.TFRecordOptions``).

    ``compression_type`` is None or "" (none), "ZLIB" or "GZIP" (or a
    TFRecordCompressionType). The zlib settings default to TensorFlow's,
    which makes the files byte-identical to TF's; ``flush_mode`` and
    ``compression_method`` are accepted for TF's signature (inflow always
    deflates and flushes as TF's writer does).
    """

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB",
                            TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        key = compression_type.upper() if isinstance(compression_type, str) else compression_type
        if key not in _NAMES:
            raise ValueError(f'Unsupported compression type: {compression_type!r} '
                             '(None, "", "ZLIB" or "GZIP")')
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """"", "ZLIB" or "GZIP" for an options object, a string or None."""
        if options is None:
            return ""
        if isinstance(options, TFRecordOptions):
            options = options.compression_type
        key = options.upper() if isinstance(options, str) else options
        if key not in _NAMES:
            raise ValueError(f"Unsupported compression type: {options!r}")
        return _NAMES[key]

    def _zlib(self):
        return _inflow._zlib_options(self.compression_level, self.mem_level,
                                     self.compression_strategy, self.window_bits,
                                     self.input_buffer_size, self.output_buffer_size)

    def __repr__(self):
        return f"TFRecordOptions(compression_type={self.compression_type!r})"


def _options(options):
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(options)


class TFRecordWriter:
    """Writes records to a TFRecord file (``tf.io.TFRecordWriter``).

    ``options``: a TFRecordOptions, a compression type string or None. The
    file is created or truncated. Use as a context manager, or call close();
    write() after close() raises FailedPreconditionError.
    """

    def __init__(self, path, options=None):
        opts = _options(options)
        self._writer = _inflow._RecordWriter(
            os.fspath(path), TFRecordOptions.get_compression_type_string(opts), opts._zlib())

    def write(self, record):
        """Appends one record: bytes, bytearray or memoryview (its bytes), or
        str (encoded as UTF-8). Anything else is a TypeError, as TF: an int
        or a list is no record (``bytes(5)`` would be five zero bytes)."""
        if isinstance(record, str):
            record = record.encode()
        elif isinstance(record, (bytearray, memoryview)):
            record = bytes(record)
        elif not isinstance(record, bytes):
            raise TypeError(f"TFRecordWriter.write: record must be bytes (or str, "
                            f"bytearray, memoryview), got {type(record).__name__}")
        self._writer.write(record)

    def flush(self):
        """Hands what was written to the file (a complete, readable prefix)."""
        self._writer.flush()

    def close(self):
        """Ends the compressed stream, if any, and closes the file; idempotent."""
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def tf_record_iterator(path, options=None):
    """Yields the records of a TFRecord file as bytes
    (``tf.compat.v1.io.tf_record_iterator``).

    Both CRCs of every record are checked; a damaged or truncated record
    raises DataLossError naming the file and the offset of the record. A
    missing file raises NotFoundError when iteration starts... as TF, at
    the call.
    """
    opts = _options(options)
    it = _inflow._RecordIterator(
        os.fspath(path), TFRecordOptions.get_compression_type_string(opts), opts._zlib())
    return _Records(it)


class _Records:
    """The iterator tf_record_iterator returns."""

    def __init__(self, it):
        self._it = it

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def close(self):
        self._it.close()
