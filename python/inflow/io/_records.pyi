import os
from typing import Iterator, Optional, Union

_Path = Union[str, bytes, os.PathLike]
_Compression = Union[None, str, int, "TFRecordOptions"]

__all__: list[str]

class TFRecordCompressionType:
    NONE: int
    ZLIB: int
    GZIP: int

class TFRecordOptions:
    """How a TFRecord file is compressed (tf.io.TFRecordOptions)."""
    compression_type: Union[None, str, int]
    flush_mode: Optional[int]
    input_buffer_size: Optional[int]
    output_buffer_size: Optional[int]
    window_bits: Optional[int]
    compression_level: Optional[int]
    compression_method: Optional[int]
    mem_level: Optional[int]
    compression_strategy: Optional[int]
    def __init__(self, compression_type: Union[None, str, int] = ..., flush_mode: Optional[int] = ...,
                 input_buffer_size: Optional[int] = ..., output_buffer_size: Optional[int] = ...,
                 window_bits: Optional[int] = ..., compression_level: Optional[int] = ...,
                 compression_method: Optional[int] = ..., mem_level: Optional[int] = ...,
                 compression_strategy: Optional[int] = ...) -> None: ...
    @classmethod
    def get_compression_type_string(cls, options: _Compression) -> str: ...

class TFRecordWriter:
    """Writes records to a TFRecord file (tf.io.TFRecordWriter)."""
    def __init__(self, path: _Path, options: _Compression = ...) -> None: ...
    def write(self, record: Union[bytes, bytearray, memoryview, str]) -> None: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> "TFRecordWriter": ...
    def __exit__(self, *exc: object) -> bool: ...

class _Records(Iterator[bytes]):
    def __iter__(self) -> "_Records": ...
    def __next__(self) -> bytes: ...
    def close(self) -> None: ...

def tf_record_iterator(path: _Path, options: _Compression = ...) -> _Records:
    """The records of a TFRecord file as bytes; DataLossError names the file
    and offset of a damaged record."""
    ...
