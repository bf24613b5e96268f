import os
import types
from typing import Any, Dict, List, Optional, Union

__all__: list[str]

class OpFunction:
    """One op of a loaded op library: Nodes for Nodes (or no inputs), arrays
    for arrays; Dataset.map runs it in C++."""
    __name__: str
    @property
    def op_name(self) -> str: ...
    def bind(self, **attrs: Any) -> OpFunction: ...
    def instance(self, **attrs: Any) -> OpInstance: ...
    def __call__(self, *inputs: Any, name: Optional[str] = ..., **kwargs: Any) -> Any: ...

class OpInstance:
    """One kernel of an op, called on arrays again and again."""
    __name__: str
    @property
    def attrs(self) -> Dict[str, Any]: ...
    def __call__(self, *inputs: Any, **kwargs: Any) -> Any: ...

def load_op_library(library_filename: Union[str, os.PathLike]) -> types.ModuleType: ...
