from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from inflow._queues import FIFOQueue, QueueBase
from inflow._steps import Node

__all__: list[str]

_Tensors = Union[Sequence[Any], Dict[str, Any], Node]
_Shapes = Optional[Sequence[Optional[Sequence[Optional[int]]]]]

def string_input_producer(string_tensor: Sequence[Union[str, bytes]], num_epochs: Optional[int] = ...,
                          shuffle: bool = ..., seed: Optional[int] = ..., capacity: int = ...,
                          shared_name: Optional[str] = ..., name: Optional[str] = ...,
                          cancel_op: None = ...) -> FIFOQueue: ...
def range_input_producer(limit: int, num_epochs: Optional[int] = ..., shuffle: bool = ...,
                         seed: Optional[int] = ..., capacity: int = ...,
                         shared_name: Optional[str] = ..., name: Optional[str] = ...) -> FIFOQueue: ...
def input_producer(input_tensor: Any, element_shape: Optional[Sequence[Optional[int]]] = ...,
                   num_epochs: Optional[int] = ..., shuffle: bool = ..., seed: Optional[int] = ...,
                   capacity: int = ..., shared_name: Optional[str] = ...,
                   summary_name: Optional[str] = ..., name: Optional[str] = ...,
                   cancel_op: None = ...) -> FIFOQueue: ...
def slice_input_producer(tensor_list: Sequence[Any], num_epochs: Optional[int] = ...,
                         shuffle: bool = ..., seed: Optional[int] = ..., capacity: int = ...,
                         shared_name: Optional[str] = ..., name: Optional[str] = ...) -> List[Node]: ...
def limit_epochs(tensor: Any, num_epochs: Optional[int] = ..., name: Optional[str] = ...) -> Node: ...

class ReaderBase:
    def read(self, queue: QueueBase, name: Optional[str] = ...) -> Tuple[Node, Node]: ...
    def read_up_to(self, queue: QueueBase, num_records: int,
                   name: Optional[str] = ...) -> Tuple[Node, Node]: ...
    def num_records_produced(self, name: Optional[str] = ...) -> int: ...
    def num_work_units_completed(self, name: Optional[str] = ...) -> int: ...
    def reset(self, name: Optional[str] = ...) -> None: ...
    @property
    def supports_serialize(self) -> bool: ...

class TFRecordReader(ReaderBase):
    def __init__(self, name: Optional[str] = ..., options: Any = ...) -> None: ...

class TextLineReader(ReaderBase):
    def __init__(self, skip_header_lines: Optional[int] = ..., name: Optional[str] = ...) -> None: ...

class FixedLengthRecordReader(ReaderBase):
    def __init__(self, record_bytes: int, header_bytes: Optional[int] = ...,
                 footer_bytes: Optional[int] = ..., hop_bytes: Optional[int] = ...,
                 name: Optional[str] = ..., encoding: Optional[str] = ...) -> None: ...

class WholeFileReader(ReaderBase):
    def __init__(self, name: Optional[str] = ...) -> None: ...

class BatchOutput(Iterator[Any]):
    """dequeue() gives the next batch (dict, array or list of arrays)."""
    def dequeue(self, timeout: Optional[float] = ...) -> Any: ...
    def __iter__(self) -> "BatchOutput": ...
    def __next__(self) -> Any: ...
    @property
    def queue(self) -> QueueBase: ...
    @property
    def output_shapes(self) -> Any: ...
    @property
    def fill_metric_tag(self) -> str: ...

def batch(tensors: _Tensors, batch_size: int, num_threads: int = ..., capacity: int = ...,
          enqueue_many: bool = ..., shapes: _Shapes = ..., dynamic_pad: bool = ...,
          allow_smaller_final_batch: bool = ..., shared_name: Optional[str] = ...,
          name: Optional[str] = ...) -> BatchOutput: ...
def maybe_batch(tensors: _Tensors, keep_input: Any, batch_size: int, num_threads: int = ...,
                capacity: int = ..., enqueue_many: bool = ..., shapes: _Shapes = ...,
                dynamic_pad: bool = ..., allow_smaller_final_batch: bool = ...,
                shared_name: Optional[str] = ..., name: Optional[str] = ...) -> BatchOutput: ...
def shuffle_batch(tensors: _Tensors, batch_size: int, capacity: int, min_after_dequeue: int,
                  num_threads: int = ..., seed: Optional[int] = ..., enqueue_many: bool = ...,
                  shapes: _Shapes = ..., allow_smaller_final_batch: bool = ...,
                  shared_name: Optional[str] = ..., name: Optional[str] = ...) -> BatchOutput: ...
def maybe_shuffle_batch(tensors: _Tensors, batch_size: int, capacity: int, min_after_dequeue: int,
                        keep_input: Any, num_threads: int = ..., seed: Optional[int] = ...,
                        enqueue_many: bool = ..., shapes: _Shapes = ...,
                        allow_smaller_final_batch: bool = ..., shared_name: Optional[str] = ...,
                        name: Optional[str] = ...) -> BatchOutput: ...
def batch_join(tensors_list: Sequence[_Tensors], batch_size: int, capacity: int = ...,
               enqueue_many: bool = ..., shapes: _Shapes = ..., dynamic_pad: bool = ...,
               allow_smaller_final_batch: bool = ..., shared_name: Optional[str] = ...,
               name: Optional[str] = ...) -> BatchOutput: ...
def maybe_batch_join(tensors_list: Sequence[_Tensors], keep_input: Any, batch_size: int,
                     capacity: int = ..., enqueue_many: bool = ..., shapes: _Shapes = ...,
                     dynamic_pad: bool = ..., allow_smaller_final_batch: bool = ...,
                     shared_name: Optional[str] = ..., name: Optional[str] = ...) -> BatchOutput: ...
def shuffle_batch_join(tensors_list: Sequence[_Tensors], batch_size: int, capacity: int,
                       min_after_dequeue: int, seed: Optional[int] = ..., enqueue_many: bool = ...,
                       shapes: _Shapes = ..., allow_smaller_final_batch: bool = ...,
                       shared_name: Optional[str] = ..., name: Optional[str] = ...) -> BatchOutput: ...
def maybe_shuffle_batch_join(tensors_list: Sequence[_Tensors], batch_size: int, capacity: int,
                             min_after_dequeue: int, keep_input: Any, seed: Optional[int] = ...,
                             enqueue_many: bool = ..., shapes: _Shapes = ...,
                             allow_smaller_final_batch: bool = ...,
                             shared_name: Optional[str] = ..., name: Optional[str] = ...
                             ) -> BatchOutput: ...
