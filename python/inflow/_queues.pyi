"""Queues: FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue, PriorityQueue."""

from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue",
           "PriorityQueue"]

# A numpy dtype, a numpy scalar type, a Python type or a TF name ("float32",
# "string"), or a TF DType.
DTypeLike = Any
# Sequence of ints (None or -1: unknown dim), or None: unknown rank.
ShapeLike = Optional[Sequence[Optional[int]]]
# A value for a one-component queue, a list/tuple with one value per
# component, or a dict keyed by name for a queue with names.
Element = Union[Any, Sequence[Any], Mapping[str, Any]]
Timeout = Optional[float]

class QueueBase:
    @property
    def name(self) -> str: ...
    @property
    def dtypes(self) -> list[np.dtype]: ...
    @property
    def shapes(self) -> list[Optional[tuple[Optional[int], ...]]]: ...
    @property
    def names(self) -> Optional[list[str]]: ...
    @property
    def capacity(self) -> int: ...
    def enqueue(self, vals: Element, timeout: Timeout = ...,
                name: Optional[str] = ...) -> None: ...
    def enqueue_many(self, vals: Element, timeout: Timeout = ...,
                     name: Optional[str] = ...) -> None: ...
    def dequeue(self, timeout: Timeout = ..., name: Optional[str] = ...) -> Any: ...
    def dequeue_many(self, n: int, timeout: Timeout = ...,
                     name: Optional[str] = ...) -> Any: ...
    def dequeue_up_to(self, n: int, timeout: Timeout = ...,
                      name: Optional[str] = ...) -> Any: ...
    def close(self, cancel_pending_enqueues: bool = ..., timeout: Timeout = ...,
              name: Optional[str] = ...) -> None: ...
    def size(self, name: Optional[str] = ...) -> int: ...
    def is_closed(self, name: Optional[str] = ...) -> bool: ...
    def stats(self) -> dict[str, float]: ...

class FIFOQueue(QueueBase):
    def __init__(self, capacity: Optional[int], dtypes: Union[DTypeLike, Sequence[DTypeLike]],
                 shapes: Optional[Sequence[ShapeLike]] = ...,
                 names: Optional[Sequence[str]] = ...,
                 shared_name: Optional[str] = ..., name: str = ...) -> None: ...

class PaddingFIFOQueue(QueueBase):
    def __init__(self, capacity: Optional[int], dtypes: Union[DTypeLike, Sequence[DTypeLike]],
                 shapes: Sequence[ShapeLike],
                 names: Optional[Sequence[str]] = ...,
                 shared_name: Optional[str] = ..., name: str = ...) -> None: ...

class RandomShuffleQueue(QueueBase):
    def __init__(self, capacity: Optional[int], min_after_dequeue: Optional[int],
                 dtypes: Union[DTypeLike, Sequence[DTypeLike]],
                 shapes: Optional[Sequence[ShapeLike]] = ...,
                 names: Optional[Sequence[str]] = ...,
                 seed: Union[None, int, tuple[int, int]] = ...,
                 shared_name: Optional[str] = ..., name: str = ...) -> None: ...

class PriorityQueue(QueueBase):
    def __init__(self, capacity: Optional[int], types: Union[DTypeLike, Sequence[DTypeLike]],
                 shapes: Optional[Sequence[ShapeLike]] = ...,
                 names: Optional[Sequence[str]] = ...,
                 shared_name: Optional[str] = ..., name: str = ...) -> None: ...
