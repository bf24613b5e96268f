import os
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from inflow._steps import Node as Node, constant as constant, py_func as py_func, \
    reshape as reshape, run as run
from inflow.io._parsing import FixedLenFeature, SparseTensorValue, VarLenFeature
from inflow.train._input import FixedLengthRecordReader as FixedLengthRecordReader, \
    ReaderBase as ReaderBase, TextLineReader as TextLineReader, \
    TFRecordReader as TFRecordReader, WholeFileReader as WholeFileReader

__all__: list[str]

_Batch = Dict[str, Union[np.ndarray, SparseTensorValue]]

class Pipeline(Iterator[_Batch]):
    """Files -> producer -> readers -> parse -> batch, in C++; batches are
    dicts of NumPy arrays (SparseTensorValue for a VarLenFeature)."""
    def __init__(self, files: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
                 features: Optional[Dict[str, Union[FixedLenFeature, VarLenFeature]]] = ...,
                 num_epochs: Optional[int] = ..., shuffle: bool = ..., seed: Optional[int] = ...,
                 reader: str = ..., num_readers: int = ..., batch_size: int = ...,
                 shuffle_batch: bool = ..., min_after_dequeue: int = ..., capacity: int = ...,
                 allow_smaller_final_batch: bool = ...,
                 raw_to_float: Optional[Dict[str, Union[int, Tuple[int, float]]]] = ...,
                 map_fn: Optional[Callable[[_Batch], Any]] = ...,
                 map_output: Optional[Dict[str, Tuple[Sequence[int], Any]]] = ...,
                 compression_type: Optional[str] = ..., read_batch: int = ...,
                 skip_header_lines: int = ..., record_bytes: int = ..., header_bytes: int = ...,
                 footer_bytes: int = ..., hop_bytes: int = ..., include_key: bool = ...,
                 name: str = ..., nice: int = ...) -> None: ...
    @property
    def names(self) -> List[str]: ...
    @property
    def files(self) -> List[str]: ...
    @property
    def fill_metric_tag(self) -> str: ...
    def get_next(self, timeout: Optional[float] = ...) -> _Batch: ...
    def next(self, timeout: Optional[float] = ...) -> _Batch: ...
    def __iter__(self) -> "Pipeline": ...
    def __next__(self) -> _Batch: ...
    def close(self) -> None: ...
    def definition(self) -> Dict[str, Any]: ...
    def save_definition(self, path: Union[str, os.PathLike]) -> None: ...
    @classmethod
    def from_definition(cls, path: Union[str, os.PathLike],
                        name: str = ...) -> "Pipeline": ...
    def __enter__(self) -> "Pipeline": ...
    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool: ...

def load_pipeline(path: Union[str, os.PathLike],
                  name: str = ...) -> Union["Pipeline", Any]: ...
