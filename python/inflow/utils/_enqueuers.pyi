"""OrderedEnqueuer, GeneratorEnqueuer."""

from typing import Any, Iterator, Literal, Optional

__all__ = ["OrderedEnqueuer", "GeneratorEnqueuer", "WorkerProcessError", "RemoteTraceback"]

StartMethod = Optional[Literal["fork", "forkserver", "spawn"]]

class WorkerProcessError(RuntimeError):
    index: Optional[int]
    pid: Optional[int]
    exitcode: Optional[int]
    def __init__(self, message: str, index: Optional[int] = ..., pid: Optional[int] = ...,
                 exitcode: Optional[int] = ...) -> None: ...

class RemoteTraceback(Exception):
    text: str
    def __init__(self, text: str) -> None: ...

class _EnqueuerBase:
    use_multiprocessing: bool
    start_method: StartMethod
    restart_workers: bool
    workers: int
    def is_running(self) -> bool: ...
    def start(self, workers: int = ..., max_queue_size: int = ...) -> None: ...
    def stop(self, timeout: Optional[float] = ...) -> None: ...
    def get(self) -> Iterator[Any]: ...
    def __enter__(self) -> _EnqueuerBase: ...
    def __exit__(self, *exc: Any) -> Literal[False]: ...

class OrderedEnqueuer(_EnqueuerBase):
    sequence: Any
    shuffle: bool
    def __init__(self, sequence: Any, use_multiprocessing: bool = ...,
                 shuffle: bool = ..., *, seed: Optional[int] = ...,
                 start_method: StartMethod = ...,
                 restart_workers: bool = ...) -> None: ...
    def __enter__(self) -> OrderedEnqueuer: ...

class GeneratorEnqueuer(_EnqueuerBase):
    sequence: Any
    random_seed: Optional[int]
    def __init__(self, generator: Any, use_multiprocessing: bool = ...,
                 random_seed: Optional[int] = ..., *,
                 start_method: StartMethod = ...,
                 restart_workers: bool = ...) -> None: ...
    def __enter__(self) -> GeneratorEnqueuer: ...
