"""What a worker process of the enqueuers runs, and what the parent shares with it."""

from typing import Any

KEEP_HEAP_MB: int

def pickle_source(source: Any, method: str, name: str = ...) -> bytes: ...
