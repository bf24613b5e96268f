from typing import Any, Iterator, Mapping, Optional, Sequence, Union, overload

import numpy as np
import torch
import torch.utils.data

_Batch = Union[np.ndarray, Sequence[np.ndarray], Mapping[str, np.ndarray]]
_TorchBatch = Union[torch.Tensor, tuple[Any, ...], dict[str, Any]]

__all__ = ["IterableDataset", "SequenceDataset", "to_torch"]

@overload
def to_torch(batch: np.ndarray) -> torch.Tensor: ...
@overload
def to_torch(batch: Mapping[str, np.ndarray]) -> dict[str, Any]: ...
@overload
def to_torch(batch: Sequence[np.ndarray]) -> tuple[Any, ...]: ...
def to_torch(batch: _Batch) -> _TorchBatch:
    """The batch with every numeric NumPy array replaced by a torch tensor
    over the same memory (torch.from_numpy: no copy). Dicts stay dicts,
    tuples and lists become tuples; string arrays are returned unchanged."""

class IterableDataset(torch.utils.data.IterableDataset):
    """A torch IterableDataset over an inflow batch source (a Pipeline, a
    batcher, an iterable, an object with next() or dequeue(), or a callable
    called as source(*args, **kwargs)), yielding to_torch(batch) until the
    source's OutOfRangeError or StopIteration. Use with
    DataLoader(dataset, batch_size=None, num_workers=0)."""

    def __init__(self, source: Any, *args: Any, **kwargs: Any) -> None: ...
    def __iter__(self) -> Iterator[_TorchBatch]: ...

class SequenceDataset(IterableDataset):
    """An IterableDataset over an inflow.utils enqueuer (made over a
    Sequence, or given): each iteration is the next len(sequence) batches,
    as to_torch structures."""

    def __init__(self, source: Any, *, workers: int = ..., max_queue_size: int = ...,
                 use_multiprocessing: bool = ..., shuffle: bool = ...,
                 seed: Optional[int] = ..., start_method: Optional[str] = ...) -> None: ...
    @property
    def enqueuer(self) -> Any: ...
    def __len__(self) -> int: ...
    def close(self, timeout: Optional[float] = ...) -> None: ...
    def __enter__(self) -> SequenceDataset: ...
    def __exit__(self, *exc: Any) -> bool: ...
