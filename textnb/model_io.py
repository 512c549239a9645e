"""Model files: one ``.tnb`` file per model, arrays and JSON, never pickle.

Format (version 1)
------------------
A ZIP archive (stored, not compressed) with these members:

``header.json``
    ``{"format": "textnb-model", "version": 1, "textnb": "<package version>",
    "model": <node>, "arrays": {"<name>": {"sha256": ..., "nbytes": ...}, ...}}``.
    A *node* describes one estimator: ``{"kind": "<class name>", "params": {...},
    "state": {...}}``; ``params`` are the constructor arguments, ``state`` the fitted
    attributes. Values are JSON, nested nodes, or ``{"$array": "<name>"}`` references.
``arrays/<name>.npy``
    One numpy ``.npy`` member per array, written and read with
    ``allow_pickle=False`` (numbers and fixed-width unicode only).

Loading never executes code and never trusts a size: only classes registered with
:func:`register` can be built; the path must be a regular file (a FIFO or device is
refused before it is opened for reading, so ``load`` cannot block); every member must be
*stored* (a compressed member is refused before it is inflated, so a zip bomb costs
nothing) and unencrypted, so no member holds more bytes than the file itself; the
header is at most :data:`MAX_HEADER_BYTES` and nested at most as deep as the JSON
parser allows (deeper is refused, not a crash); every array's SHA-256 is checked
against the header; each ``.npy`` header is parsed and checked (numbers or
fixed-width strings only: no object, structured or datetime dtypes; a shape whose
size does not match the member's bytes is refused before any allocation), and the
declared total is bounded by ``max_bytes``. Any inconsistency met while the estimator
is rebuilt is reported as :class:`~textnb.errors.ModelFileError` too, so a crafted
file can neither run code, nor exhaust memory, nor raise anything else.

Files are written to a temporary file ``.tmp-<name>.<random>.part`` in the same folder,
fsync'ed, and moved into place with :func:`os.replace`, so an interrupted save (even
``SIGKILL`` or a power cut) leaves the previous file intact. The writer holds an
``flock`` on its temporary file; a temporary file left by a killed writer (unlocked
and older than a minute) is removed by the next save to the same path. ``load`` only
ever reads the named file, so stray temporary files never affect it.
"""

import hashlib
import io
import json
import math
import os
import stat
import tempfile
import time
import zipfile

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None

import numpy as np

from textnb.errors import ModelFileError

__all__ = ["save", "load", "register", "atomic_write", "remove_stale_temporaries", "FORMAT_VERSION",
           "MAX_MODEL_BYTES", "STALE_TEMP_SECONDS"]

FORMAT_NAME = "textnb-model"
FORMAT_VERSION = 1
#: Refuse model files that declare more than this many bytes of arrays in total.
MAX_MODEL_BYTES = 8 * 1024**3
MAX_HEADER_BYTES = 256 * 1024**2
#: dtype kinds an array in a model file may have: bool, integers, floats, complex,
#: fixed-width unicode and bytes (never object, structured, datetime).
_DTYPE_KINDS = "biufcUS"
_MAX_NPY_HEADER = 64 * 1024
#: Temporary files of a killed writer older than this (seconds) are removed on save.
STALE_TEMP_SECONDS = 60.0

_REGISTRY = {}


def register(cls):
    """Class decorator: allow ``cls`` to be rebuilt from model files (by class name)."""
    _REGISTRY[cls.__name__] = cls
    return cls


def _temp_prefix(path):
    return ".tmp-" + os.path.basename(path)[:100] + "."


def _lock_nb(fd):
    """Try to take an exclusive flock without blocking; True when taken (or no flock)."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def remove_stale_temporaries(path, *, age=STALE_TEMP_SECONDS):
    """Remove temporary files a killed :func:`atomic_write` to ``path`` left behind.

    A temporary file is removed only when it is older than ``age`` seconds *and* no
    process holds its lock (a live writer always does), so a concurrent save is never
    disturbed. Returns the number of files removed. Errors are ignored: this is tidying.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    prefix = _temp_prefix(path)
    removed = 0
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".part")]
    except OSError:
        return 0
    now = time.time()
    for name in names:
        tmp = os.path.join(folder, name)
        try:
            fd = os.open(tmp, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime > age and _lock_nb(fd):
                os.unlink(tmp)
                removed += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def _umask():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no /proc: read it by setting it (and put it back)
    os.umask(mask)
    return mask


def _new_file_mode(path):
    """The mode the new file gets: the replaced file's, else what ``open`` would give."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return 0o666 & ~_umask()


def atomic_write(path, write):
    """Call ``write(fileobj)`` on a temporary file next to ``path``, then move it into place.

    The temporary file is flushed and fsync'ed before :func:`os.replace`, so readers see
    either the old file or the complete new one, whatever happens mid-write (a crash or
    ``SIGKILL`` leaves the old file and, at worst, a locked-while-alive temporary
    ``.tmp-<name>.*.part`` that the next save to ``path`` removes). The new file keeps
    the mode of the file it replaces (else the usual ``0666 & ~umask``), not the
    private ``0600`` of a temporary file, so a model written by one user stays readable
    by the service that reads it.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    remove_stale_temporaries(path)
    mode = _new_file_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".part", dir=folder)
    try:
        _lock_nb(fd)  # held until closed: tells remove_stale_temporaries we are alive
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
            os.replace(tmp, path)  # before closing: the lock covers the whole life of tmp
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


class _Packer:
    def __init__(self):
        self.arrays = {}

    def array(self, a):
        a = np.asarray(a)
        if a.dtype == object:
            a = a.astype(str)
        if a.dtype.kind not in "biufcUS":
            raise TypeError(f"cannot store array of dtype {a.dtype} in a model file")
        name = f"a{len(self.arrays)}"
        self.arrays[name] = np.ascontiguousarray(a)
        return {"$array": name}

    def value(self, v):
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (int, np.integer)):
            return int(v)
        if isinstance(v, (float, np.floating)):
            f = float(v)
            if np.isfinite(f):
                return f
            return {"$float": repr(f)}
        if isinstance(v, np.ndarray):
            return self.array(v)
        if type(v).__module__.startswith("scipy.sparse"):  # scipy imported only when it is used
            import scipy.sparse as sp

            v = sp.csr_matrix(v)
            return {"$csr": [self.array(v.data), self.array(v.indices), self.array(v.indptr)],
                    "shape": list(v.shape)}
        if isinstance(v, tuple):
            return {"$tuple": [self.value(x) for x in v]}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            if all(isinstance(k, str) for k in v):
                return {"$dict": {k: self.value(x) for k, x in v.items()}}
            return {"$items": [[self.value(k), self.value(x)] for k, x in v.items()]}
        if type(v).__name__ == "Attribute":  # table metadata (textnb.tables.Attribute)
            return {"$attribute": [str(v.name), str(v.kind), [str(x) for x in v.values]]}
        if type(v).__name__ in _REGISTRY:
            return self.node(v)
        raise TypeError(f"cannot store a {type(v).__name__} in a model file")

    def node(self, est):
        params = est.get_params(deep=False) if hasattr(est, "get_params") else {}
        # how a model was computed (worker count, batch size) is not part of it: the
        # file is the same for every value
        for name in getattr(est, "_execution_params", ()):
            params.pop(name, None)
        if not _is_fitted(est):
            state = {}  # e.g. the unfitted template held in a meta-estimator's parameters
        elif hasattr(est, "_get_state"):
            state = est._get_state()
        else:
            state = _default_state(est)
        return {
            "kind": type(est).__name__,
            "params": {k: self.value(v) for k, v in params.items()},
            "state": {k: self.value(v) for k, v in state.items()},
        }


def _is_fitted(est):
    if hasattr(est, "__sklearn_is_fitted__") and not hasattr(est, "__sklearn_tags__"):
        return bool(est.__sklearn_is_fitted__())  # a textnb estimator that does not use scikit-learn
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(est)
    except NotFittedError:
        return False
    return True


def _default_state(est):
    """Fitted attributes: public ones ending in ``_`` plus those named in ``_extra_state``."""
    names = [k for k in vars(est) if k.endswith("_") and not k.startswith("__")]
    names += [k for k in getattr(est, "_extra_state", ()) if hasattr(est, k)]
    return {k: getattr(est, k) for k in names}


class _Unpacker:
    def __init__(self, arrays):
        self.arrays = arrays

    def value(self, v):
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "$array" in v:
            try:
                return self.arrays[v["$array"]]
            except (KeyError, TypeError):
                raise ModelFileError(f"references a missing array {v['$array']!r}") from None
        if "$float" in v:
            return float(v["$float"])
        if "$csr" in v:
            data, indices, indptr = (self.value(x) for x in v["$csr"])
            import scipy.sparse as sp

            return sp.csr_matrix((data, indices, indptr), shape=tuple(v["shape"]))
        if "$tuple" in v:
            return tuple(self.value(x) for x in v["$tuple"])
        if "$dict" in v:
            return {k: self.value(x) for k, x in v["$dict"].items()}
        if "$items" in v:
            return {_hashable(self.value(k)): self.value(x) for k, x in v["$items"]}
        if "$attribute" in v:
            return _attribute(v["$attribute"])
        if "kind" in v:
            return self.node(v)
        raise ModelFileError("has an unknown value in its header")

    def node(self, node):
        if not isinstance(node, dict):
            raise ModelFileError("has an unknown value in its header")
        kind = node.get("kind")
        cls = _registered(kind)
        if cls is None:
            raise ModelFileError(f"holds an unknown model kind {kind!r}")
        params = {k: self.value(v) for k, v in node.get("params", {}).items()}
        try:
            est = cls(**params)
        except TypeError as exc:
            raise ModelFileError(f"has parameters {kind} does not take ({exc})") from None
        state = {k: self.value(v) for k, v in node.get("state", {}).items()}
        if not state:
            return est
        try:
            if hasattr(est, "_set_state"):
                est._set_state(state)
            else:
                for k, v in state.items():
                    setattr(est, k, v)
        except (ModelFileError, RecursionError, MemoryError):
            raise
        except Exception as exc:  # the estimator's own checks on a crafted state
            raise ModelFileError(
                f"holds an inconsistent {kind} state ({type(exc).__name__}: {_one_line(exc)})") from None
        return est


def _attribute(fields):
    """A :class:`textnb.tables.Attribute` from its stored ``[name, kind, values]``."""
    from textnb.tables import Attribute

    ok = (isinstance(fields, list) and len(fields) == 3 and isinstance(fields[0], str)
          and isinstance(fields[1], str) and isinstance(fields[2], list)
          and all(isinstance(x, str) for x in fields[2]))
    if not ok:
        raise ModelFileError("has a malformed attribute description")
    return Attribute(fields[0], fields[1], list(fields[2]))


def _hashable(k):
    return tuple(k) if isinstance(k, list) else k


def _import_models():
    """Kept for callers that want every model class registered at once."""
    import importlib

    from textnb import MODEL_MODULES

    for module in sorted(set(MODEL_MODULES.values())):
        importlib.import_module(module)


def _registered(kind):
    """The class registered under ``kind``, importing its textnb module on first use."""
    cls = _REGISTRY.get(kind)
    if cls is None and isinstance(kind, str):
        import importlib

        from textnb import MODEL_MODULES

        module = MODEL_MODULES.get(kind)
        if module is not None:
            importlib.import_module(module)
            cls = _REGISTRY.get(kind)
    return cls


def save(model, path):
    """Write ``model`` (a fitted textnb estimator) to ``path`` atomically.

    The same model always gives the same bytes (fixed member order, no timestamps).
    """
    from textnb import __version__

    packer = _Packer()
    root = packer.node(model)
    header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "textnb": __version__,
        "model": root,
        "arrays": {},
    }
    members = []
    for name, a in packer.arrays.items():
        buf = io.BytesIO()
        np.save(buf, a, allow_pickle=False)
        data = buf.getvalue()
        header["arrays"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "nbytes": len(data)}
        members.append((f"arrays/{name}.npy", data))
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()

    def write(f):
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as z:
            for member, data in [("header.json", head)] + members:
                info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                z.writestr(info, data)

    path = os.fspath(path)
    if os.path.isdir(path):
        raise ModelFileError(f"{path}: is a folder; give the model file's name")
    try:
        atomic_write(path, write)
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot write model file ({exc.strerror or exc})") from None


def load(path, *, max_bytes=MAX_MODEL_BYTES):
    """Read a model written by :func:`save`.

    Raises
    ------
    ModelFileError
        One line naming the file and the problem: missing, not a regular file, not a
        textnb model, truncated or corrupted (checksum), compressed or encrypted
        members, a bad or oversized array, an inconsistent state, written by a newer
        textnb, or too large. No other exception escapes for any file content.
    """
    path = os.fspath(path)
    try:
        return _load(path, max_bytes)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    except (OSError, EOFError) as exc:
        raise ModelFileError(f"{path}: cannot read model file ({getattr(exc, 'strerror', None) or _one_line(exc) or type(exc).__name__})") from None
    except RecursionError:
        raise ModelFileError(f"{path}: not a valid textnb model file (header nested too deeply)") from None
    except MemoryError:
        raise ModelFileError(f"{path}: not a valid textnb model file (too large to load)") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, KeyError, TypeError, IndexError,
            AttributeError, OverflowError, UnicodeDecodeError, json.JSONDecodeError,
            NotImplementedError) as exc:
        raise ModelFileError(f"{path}: not a valid textnb model file ({_one_line(exc)})") from None


def _one_line(exc):
    text = " ".join(str(exc).split())
    return text[:200] + ("..." if len(text) > 200 else "")


def _open_regular(path):
    """Open ``path`` for reading without blocking; refuse anything but a regular file."""
    if os.path.isdir(path):
        raise ModelFileError("is a folder, not a model file")
    if not os.path.exists(path):
        raise ModelFileError("no such model file")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once instead of waiting
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ModelFileError("is not a regular file (a FIFO, socket or device)")
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


def _read_npy(data, name, max_bytes):
    """An array from the bytes of one ``.npy`` member, its header checked before use."""
    from numpy.lib import format as npy

    f = io.BytesIO(data)
    version = npy.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = npy.read_array_header_1_0(f, max_header_size=_MAX_NPY_HEADER)
    elif version in ((2, 0), (3, 0)):
        shape, fortran, dtype = npy.read_array_header_2_0(f, max_header_size=_MAX_NPY_HEADER)
    else:
        raise ModelFileError(f"array {name} has an unknown .npy version {version}")
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in _DTYPE_KINDS:
        raise ModelFileError(f"array {name} has dtype {dtype.str}, which a model file may not hold")
    if not isinstance(shape, tuple) or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise ModelFileError(f"array {name} has an invalid shape {shape!r}")
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    if nbytes > max_bytes or nbytes != len(data) - f.tell():
        raise ModelFileError(
            f"array {name} declares shape {shape} ({nbytes} bytes) but holds {len(data) - f.tell()}")
    a = np.frombuffer(data, dtype=dtype, count=count, offset=f.tell())
    return a.reshape(shape, order="F" if fortran else "C").copy(order="K")


def _load(path, max_bytes):
    f, file_size = _open_regular(path)
    with f:
        if not zipfile.is_zipfile(f):
            raise ModelFileError("not a textnb model file (truncated, or another format)")
        f.seek(0)
        with zipfile.ZipFile(f) as z:
            return _load_zip(z, file_size, max_bytes)


def _load_zip(z, file_size, max_bytes):
    infolist = z.infolist()
    for info in infolist:
        # textnb writes stored members; a compressed one could inflate to any size
        if info.compress_type != zipfile.ZIP_STORED:
            raise ModelFileError(f"member {info.filename!r} is compressed; textnb model files never are")
        if info.flag_bits & 0x1:
            raise ModelFileError(f"member {info.filename!r} is encrypted")
        if info.file_size != info.compress_size or info.file_size > file_size:
            raise ModelFileError(f"member {info.filename!r} declares a size the file does not hold")
    infos = {i.filename: i for i in infolist}
    if "header.json" not in infos:
        raise ModelFileError("not a textnb model file (no header)")
    if infos["header.json"].file_size > MAX_HEADER_BYTES:
        raise ModelFileError("header is larger than the limit")
    header = json.loads(z.read("header.json").decode("utf-8"))
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise ModelFileError("not a textnb model file")
    version = header.get("version")
    if type(version) is not int or version < 1:
        raise ModelFileError(f"has an invalid format version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"model format version {version} is newer than this textnb reads "
            f"({FORMAT_VERSION}); upgrade textnb"
        )
    declared = header.get("arrays", {})
    if not isinstance(declared, dict) or not isinstance(header.get("model"), dict):
        raise ModelFileError("not a valid textnb model file (bad header)")
    sizes = {}
    for name, meta in declared.items():
        n = meta.get("nbytes") if isinstance(meta, dict) else None
        if type(n) is not int or n < 0 or not isinstance(meta.get("sha256"), str):
            raise ModelFileError(f"array {name} has an invalid entry in the header")
        sizes[name] = n
    total = sum(sizes.values())
    if total > max_bytes:
        raise ModelFileError(f"declares {total} bytes of arrays, over the limit of {max_bytes}")
    arrays = {}
    for name, meta in declared.items():
        member = f"arrays/{name}.npy"
        info = infos.get(member)
        if info is None:
            raise ModelFileError(f"is truncated (array {name} missing)")
        if info.file_size != sizes[name]:
            raise ModelFileError(f"array {name} has the wrong size (corrupted)")
        data = z.read(member)
        if hashlib.sha256(data).hexdigest() != meta["sha256"]:
            raise ModelFileError(f"array {name} fails its checksum (corrupted)")
        arrays[name] = _read_npy(data, name, max_bytes)
    return _Unpacker(arrays).node(header["model"])
