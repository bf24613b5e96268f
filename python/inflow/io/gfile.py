"""``tf.io.gfile``'s local-file subset: glob, exists, isdir, listdir,
mkdir, makedirs, remove and GFile, with TF's results and TF's error
classes (``inflow.errors.NotFoundError`` where TF raises
``tf.errors.NotFoundError``, ...). The file-system calls are inflow's Env
(the one its readers use); glob is Env's GetMatchingPaths: wildcards in
the file name part only, matches sorted (docs/conformance.md, "Python:
inflow.io.gfile"). Only local paths: no gs://, hdfs:// or other schemes.
"""

import errno
import io
import os

from inflow import _inflow, errors
from inflow._validate import check_path

__all__ = ["glob", "exists", "isdir", "listdir", "mkdir", "makedirs", "remove",
           "GFile"]


def glob(pattern):
    """The paths matching ``pattern`` (or any of a list of patterns, their
    matches concatenated in order), sorted per pattern; [] when nothing
    matches or the directory is missing. Wildcards (``*``, ``?``, ``[...]``)
    in a directory part are InvalidArgumentError."""
    if isinstance(pattern, (list, tuple)):
        out = []
        for i, p in enumerate(pattern):
            out.extend(_inflow._glob(check_path("gfile.glob", f"pattern[{i}]", p)))
        return out
    return list(_inflow._glob(check_path("gfile.glob", "pattern", pattern)))


def exists(path):
    """True when a file or directory ``path`` exists."""
    return _inflow._file_exists(check_path("gfile.exists", "path", path))


def isdir(path):
    """True when ``path`` is a directory (False when missing or a file)."""
    return _inflow._is_directory(check_path("gfile.isdir", "path", path))


def listdir(path):
    """The names in directory ``path`` (not "." or ".."), in directory
    order, as TF. NotFoundError when it is missing or not a directory."""
    return list(_inflow._list_directory(check_path("gfile.listdir", "path", path)))


def mkdir(path):
    """Creates directory ``path`` (its parent must exist: NotFoundError
    otherwise); an existing directory is fine, as TF."""
    _inflow._make_dir(check_path("gfile.mkdir", "path", path))


def makedirs(path):
    """Creates ``path`` and its missing parents; FailedPreconditionError when
    a component is a file."""
    _inflow._make_dirs(check_path("gfile.makedirs", "path", path))


def remove(path):
    """Deletes file ``path``: NotFoundError when missing,
    FailedPreconditionError for a directory."""
    _inflow._delete_file(check_path("gfile.remove", "path", path))


# TF's error classes for the errno values of opening and reading files.
_ERRNO_CLASSES = {
    errno.ENOENT: errors.NotFoundError,
    errno.EISDIR: errors.FailedPreconditionError,
    errno.ENOTDIR: errors.FailedPreconditionError,
    errno.EACCES: errors.PermissionDeniedError,
    errno.EPERM: errors.PermissionDeniedError,
    errno.EROFS: errors.PermissionDeniedError,
    errno.EEXIST: errors.AlreadyExistsError,
    errno.ENOSPC: errors.ResourceExhaustedError,
}

_MODES = ("r", "w", "a", "r+", "w+", "a+")


def _os_error(e, path):
    cls = _ERRNO_CLASSES.get(e.errno, errors.UnknownError)
    return cls(None, None, f"{path}; {e.strerror or e}")


class GFile:
    """A local file as ``tf.io.gfile.GFile``: ``mode`` "r", "w", "a", "r+",
    "w+" or "a+", each with an optional "b". Text modes read str (UTF-8),
    binary modes bytes; write() takes str or bytes in every mode (TypeError
    otherwise). Unlike TF, the file opens at once: a missing file for
    reading is NotFoundError from the constructor (TF: from the first
    read). Reading a write-only file, or writing a read-only one, is
    PermissionDeniedError, as TF."""

    def __init__(self, name, mode="r"):
        path = check_path("GFile", "name", name)
        if not isinstance(mode, str) or mode.replace("b", "", 1) not in _MODES:
            raise errors.InvalidArgumentError(
                None, None, f"GFile: mode must be one of {_MODES} with an optional "
                            f"'b', got {mode!r}")
        self._name = path
        self._mode = mode
        self._binary = "b" in mode
        base = mode.replace("b", "")
        self._readable = base[0] == "r" or "+" in base
        self._writable = base[0] in "wa" or "+" in base
        try:
            self._file = io.open(path, base + "b")
        except OSError as e:
            raise _os_error(e, path) from None

    @property
    def name(self):
        return self._name

    @property
    def mode(self):
        return self._mode

    def _check(self, reading):
        if self._file.closed:
            raise errors.FailedPreconditionError(None, None,
                                                 f"GFile {self._name} is closed")
        if reading and not self._readable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        if not reading and not self._writable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")

    def _out(self, data):
        return data if self._binary else data.decode("utf-8")

    def _io(self, call, *args):
        try:
            return call(*args)
        except OSError as e:
            raise _os_error(e, self._name) from None

    def size(self):
        """The file's size in bytes."""
        self._io(self._file.flush)
        return self._io(os.fstat, self._file.fileno()).st_size

    def write(self, file_content):
        """Writes str (as UTF-8) or bytes-like data."""
        self._check(reading=False)
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        elif not isinstance(file_content, (bytes, bytearray, memoryview)):
            raise TypeError(f"GFile.write: expected str or bytes, got "
                            f"{type(file_content).__name__}")
        self._io(self._file.write, file_content)

    def read(self, n=-1):
        """``n`` bytes (all that is left for -1), as str in text modes."""
        self._check(reading=True)
        return self._out(self._io(self._file.read, -1 if n is None else n))

    def readline(self):
        self._check(reading=True)
        return self._out(self._io(self._file.readline))

    def readlines(self):
        self._check(reading=True)
        return [self._out(line) for line in self._io(self._file.readlines)]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def tell(self):
        return self._io(self._file.tell)

    def seek(self, offset=None, whence=0, position=None):
        """Moves to ``offset`` (or ``position``, TF's older name) from
        ``whence`` (0 start, 1 current, 2 end)."""
        if position is not None:
            offset = position
        self._io(self._file.seek, 0 if offset is None else offset, whence)

    def seekable(self):
        return True

    def flush(self):
        self._io(self._file.flush)

    def close(self):
        self._io(self._file.close)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
