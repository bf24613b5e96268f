"""Checkpoints: Saver, latest_checkpoint, get_checkpoint_state,
load_checkpoint.

The files are TensorFlow's V2 checkpoints (``P.index`` and
``P.data-00000-of-00001``) and its ``checkpoint`` state file: TF's
``tf.compat.v1.train.Saver`` and ``tf.train.load_checkpoint`` read what
this Saver writes, and it restores what they write.
"""

import collections
import os

import numpy as np

from inflow import _inflow, errors

__all__ = ["Saver", "CheckpointState", "CheckpointReader", "latest_checkpoint",
           "get_checkpoint_state", "load_checkpoint", "list_variables",
           "checkpoint_exists", "NewCheckpointReader"]


def _array(value):
    """The NumPy array behind a variable: an array, an object with numpy()
    (a view for torch tensors and TF variables' numpy() copies), or any
    array-like."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return np.asarray(value)


def _step(global_step):
    if global_step is None:
        return None
    if hasattr(global_step, "numpy"):
        global_step = global_step.numpy()
    return int(np.asarray(global_step))


def _var_dict(var_list):
    if isinstance(var_list, dict):
        return dict(var_list)
    if var_list is None:
        raise ValueError("Saver: var_list is required (a dict name -> array); inflow "
                         "has no graph to collect variables from")
    out = {}
    for v in var_list:
        name = getattr(v, "name", None)
        if name is None:
            raise ValueError("Saver: a var_list list needs objects with a .name; "
                             "pass a dict name -> array")
        name = name[:-2] if name.endswith(":0") else name
        if name in out:
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = v
    return out


def _iterator_dict(iterators, var_names):
    if iterators is None:
        return {}
    if not isinstance(iterators, dict):
        raise TypeError("Saver: iterators must be a dict name -> "
                        f"inflow.data.Iterator, not {type(iterators).__name__}")
    out = {}
    for name, it in iterators.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"Saver: an iterator's name must be a non-empty str, not {name!r}")
        if name in var_names:
            raise ValueError(f"Saver: {name!r} names both a variable and an iterator")
        if not (hasattr(it, "save") and hasattr(it, "_restore_swap")):
            raise TypeError(f"Saver: iterator {name!r} is a {type(it).__name__}, not an "
                            "inflow.data.Iterator")
        out[name] = it
    return out


class Saver:
    """``tf.compat.v1.train.Saver`` for named NumPy arrays.

    ``var_list``: a dict name -> array (or an object with ``numpy()``, such
    as a torch tensor, whose numpy() is a view). save() writes their current
    values; restore() writes into them in place (C-contiguous writable
    arrays without a copy). ``max_to_keep`` newest checkpoints are listed in
    the ``checkpoint`` state file and kept; older ones are deleted unless
    ``keep_checkpoint_every_n_hours`` preserves them. ``iterators``: a dict
    name -> ``inflow.data.Iterator`` whose positions are saved beside the
    variables (each a string scalar of a few dozen bytes, as ``inflow
    train`` stores ``input/iterator``; tf.train.load_checkpoint reads it)
    and restored with them. The other arguments are TF's (those about
    graphs are accepted and unused).
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None,
                 restore_sequentially=False, saver_def=None, builder=None,
                 defer_build=False, allow_empty=False, write_version=2,
                 pad_step_number=False, save_relative_paths=False, filename=None,
                 iterators=None):
        if write_version != 2:
            raise ValueError("Saver: only write_version=2 (V2 checkpoints) is supported")
        if var_list is None and iterators is not None:
            var_list = {}
        self._vars = _var_dict(var_list if var_list is not None or not allow_empty else {})
        self._iterators = _iterator_dict(iterators, self._vars)
        self._names = sorted(list(self._vars) + list(self._iterators))
        self._saver = _inflow._Saver(self._names, int(max_to_keep or 0),
                                     float(keep_checkpoint_every_n_hours),
                                     bool(pad_step_number), bool(save_relative_paths),
                                     bool(allow_empty), "checkpoint")
        self._filename = filename

    def save(self, sess=None, save_path=None, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Writes ``save_path`` (or ``save_path-STEP``) and returns its prefix.

        ``sess`` is accepted for TF's signature and unused (``save(path)``
        also works). ``write_state`` records the checkpoint in the state file
        of its directory and applies max_to_keep. No .meta file is written.
        """
        if save_path is None and isinstance(sess, (str, os.PathLike)):
            sess, save_path = None, sess
        if save_path is None:
            save_path = self._filename
        if save_path is None:
            raise ValueError("Saver.save: save_path is required")
        if latest_filename not in (None, "checkpoint"):
            raise NotImplementedError("Saver.save: latest_filename other than "
                                      "'checkpoint' is not supported")
        arrays = [np.array(self._iterators[n].save(), dtype=object)
                  if n in self._iterators else _array(self._vars[n])
                  for n in self._names]
        return self._saver.save(arrays, os.fspath(save_path), _step(global_step),
                                bool(write_state))

    def restore(self, sess=None, save_path=None):
        """Restores every variable from the checkpoint ``save_path`` (a
        prefix), in place (each variable is a writable array, or has a
        numpy() view; a string variable an object array), and returns a
        dict name -> restored array. All or nothing: every tensor is read and
        its CRC checked before the first variable is written, so an error
        (NotFoundError naming a missing variable, InvalidArgumentError a
        dtype or shape mismatch, DataLossError for damage,
        FailedPreconditionError for a read-only array) leaves every variable
        as it was. The iterators are restored first, each into a new
        iterator of its pipeline that replaces its own only once every
        variable is written: a state of another pipeline
        (InvalidArgumentError) leaves the variables and the iterators as
        they were.
        """
        if save_path is None and isinstance(sess, (str, os.PathLike)):
            sess, save_path = None, sess
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        # The iterators' new positions, in new iterators (nothing of the
        # caller's is touched until every variable is written too).
        moved = {}
        if self._iterators:
            reader = CheckpointReader(save_path)
            for name, it in self._iterators.items():
                state = reader.get_tensor(name)
                if not isinstance(state, bytes):
                    state = np.asarray(state, dtype=object).item()
                if not isinstance(state, bytes):
                    raise errors.InvalidArgumentError(
                        None, None, f"Restoring iterator {name} from {save_path}: the "
                        "checkpoint's value is not a string scalar")
                moved[name] = it._restored(state)
        targets = [np.empty((), dtype=object) if n in self._iterators
                   else _array(self._vars[n]) for n in self._names]
        # Every target is checked before anything is read: a restore writes
        # all variables or none.
        for name, target in zip(self._names, targets):
            if not target.flags.writeable:
                raise errors.FailedPreconditionError(
                    None, None, f"Restoring {name} from {save_path}: the array is "
                    "read-only")
            if target.dtype.kind in "SU":
                raise TypeError(
                    f"Restoring {name} from {save_path}: a string variable restores "
                    f"into an object array (np.empty(shape, object)), not {target.dtype}")
        restored = self._saver.restore(targets, save_path)
        out = {}
        for name, target, value in zip(self._names, targets, restored):
            if name in moved:
                self._iterators[name]._restore_swap(moved[name])
                out[name] = self._iterators[name]
                continue
            if value is not None:
                # Not viewable in place (not C-contiguous, or strings): the
                # verified value is copied in, which cannot fail.
                np.copyto(target, np.asarray(value, dtype=target.dtype),
                          casting="unsafe")
            out[name] = target
        return out

    @property
    def last_checkpoints(self):
        """The retained checkpoint prefixes, oldest first."""
        return [p for p, _ in self._saver.last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """Replaces the retention list (these are never deleted, as TF's)."""
        self._saver.set_last_checkpoints_with_time(
            [(os.fspath(p), float("inf")) for p in last_checkpoints])

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Replaces the retention list: (prefix, seconds since the epoch),
        oldest first."""
        self._saver.set_last_checkpoints_with_time(
            [(os.fspath(p), float(t)) for p, t in last_checkpoints_with_time])

    def recover_last_checkpoints(self, checkpoint_paths):
        """The retention list from the prefixes whose files still exist."""
        self._saver.recover_last_checkpoints([os.fspath(p) for p in checkpoint_paths])


CheckpointState = collections.namedtuple(
    "CheckpointState", ["model_checkpoint_path", "all_model_checkpoint_paths",
                        "all_model_checkpoint_timestamps", "last_preserved_timestamp"])
CheckpointState.__doc__ = """The `checkpoint` state file's contents
(``tf.compat.v1.train.get_checkpoint_state``): the newest prefix and every
retained one, oldest first."""


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint prefix of ``checkpoint_dir`` whose files exist,
    or None (``tf.train.latest_checkpoint``)."""
    return _inflow._latest_checkpoint(os.fspath(checkpoint_dir), latest_filename)


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of ``checkpoint_dir``, or None without a state
    file (``tf.compat.v1.train.get_checkpoint_state``). Relative paths are
    joined onto the directory. A state file that does not parse raises
    DataLossError (TF logs and returns None)."""
    state = _inflow._get_checkpoint_state(os.fspath(checkpoint_dir), latest_filename)
    if state is None:
        return None
    path, paths, stamps, preserved = state
    return CheckpointState(path, list(paths), list(stamps), preserved)


def checkpoint_exists(checkpoint_prefix):
    """True when the V2 checkpoint's index (or a V1 file) exists."""
    prefix = os.fspath(checkpoint_prefix)
    return os.path.exists(prefix + ".index") or os.path.isfile(prefix)


class CheckpointReader:
    """Reads the tensors of one checkpoint (``tf.train.load_checkpoint``'s
    reader). Each get_tensor reads only that tensor and checks its CRC."""

    def __init__(self, prefix):
        self._reader = _inflow._BundleReader.open(prefix)
        self._entries = self._reader.entries()

    def get_tensor(self, tensor_str):
        """The stored value (a new array). NotFoundError for an unknown name."""
        return self._reader.get_tensor(tensor_str)

    def has_tensor(self, tensor_str):
        return self._reader.has_tensor(tensor_str)

    def get_variable_to_shape_map(self):
        """{name: [dims]} for every tensor."""
        return {name: list(shape) for name, _, shape, _ in self._entries}

    def get_variable_to_dtype_map(self):
        """{name: numpy dtype} (object for strings)."""
        return {name: dtype for name, dtype, _, _ in self._entries}

    def debug_string(self):
        return "".join(f"{n} ({np.dtype(d).name}) {list(s)}\n"
                       for n, d, s, _ in self._entries).encode()


NewCheckpointReader = CheckpointReader


def _prefix(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(
                f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint prefix, or for the newest
    checkpoint of a directory (``tf.train.load_checkpoint``)."""
    return CheckpointReader(_prefix(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of every tensor, sorted by name
    (``tf.train.list_variables``)."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted(reader.get_variable_to_shape_map().items())
