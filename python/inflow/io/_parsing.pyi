from typing import Any, Dict, NamedTuple, Optional, Sequence, Tuple, Union, overload

import numpy as np

from inflow._steps import Node

__all__: list[str]

_Shape = Union[int, Sequence[int]]
_DType = Any  # a numpy dtype or scalar type, a TF dtype, or a name ("int64")
_Serialized = Union[bytes, str, np.ndarray]

class FixedLenFeature(NamedTuple):
    """prod(shape) values per Example (tf.io.FixedLenFeature)."""
    shape: _Shape
    dtype: _DType
    default_value: Any = None

class VarLenFeature(NamedTuple):
    """Any number of values, as a SparseTensorValue (tf.io.VarLenFeature)."""
    dtype: _DType

class FixedLenSequenceFeature(NamedTuple):
    """Elements of shape stacked along a new first dimension
    (tf.io.FixedLenSequenceFeature)."""
    shape: _Shape
    dtype: _DType
    allow_missing: bool = False
    default_value: Any = None

class SparseTensorValue(NamedTuple):
    """indices int64 [n, rank], values [n], dense_shape int64 [rank]."""
    indices: Any
    values: Any
    dense_shape: Any

SparseTensor = SparseTensorValue
_Feature = Union[FixedLenFeature, VarLenFeature, FixedLenSequenceFeature]

@overload
def parse_single_example(serialized: Node, features: Dict[str, _Feature], name: Optional[str] = ...,
                         example_names: Any = ...) -> Dict[str, Union[Node, SparseTensorValue]]: ...
@overload
def parse_single_example(serialized: _Serialized, features: Dict[str, _Feature],
                         name: Optional[str] = ..., example_names: Any = ...
                         ) -> Dict[str, Union[np.ndarray, SparseTensorValue]]: ...
def parse_single_sequence_example(
    serialized: _Serialized, context_features: Optional[Dict[str, _Feature]] = ...,
    sequence_features: Optional[Dict[str, _Feature]] = ..., example_name: Any = ...,
    name: Optional[str] = ...
) -> Tuple[Dict[str, Union[np.ndarray, SparseTensorValue]],
           Dict[str, Union[np.ndarray, SparseTensorValue]]]: ...
@overload
def parse_example(serialized: Node, features: Dict[str, _Feature], name: Optional[str] = ...,
                  example_names: Any = ...) -> Dict[str, Union[Node, SparseTensorValue]]: ...
@overload
def parse_example(serialized: Union[Sequence[bytes], np.ndarray], features: Dict[str, _Feature],
                  name: Optional[str] = ..., example_names: Any = ...
                  ) -> Dict[str, Union[np.ndarray, SparseTensorValue]]: ...
@overload
def decode_raw(input_bytes: Node, out_type: _DType, little_endian: bool = ...,
               fixed_length: None = ..., name: Optional[str] = ..., bytes: Any = ...) -> Node: ...
@overload
def decode_raw(input_bytes: Union[bytes, Sequence[bytes], np.ndarray], out_type: _DType,
               little_endian: bool = ..., fixed_length: None = ..., name: Optional[str] = ...,
               bytes: Any = ...) -> np.ndarray: ...
@overload
def decode_raw_to_float(input_bytes: Node, scale: float = ...) -> Node: ...
@overload
def decode_raw_to_float(input_bytes: Union[bytes, Sequence[bytes], np.ndarray],
                        scale: float = ...) -> np.ndarray: ...
