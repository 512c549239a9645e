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

Loading never executes code: only classes registered with :func:`register` can be
built, ``.npy`` members are read without pickle, every member's SHA-256 is checked
against the header, and declared sizes are bounded before anything is read, so a
crafted file can neither run code nor exhaust memory. Files are written to a
temporary file in the same folder and moved into place with :func:`os.replace`, so an
interrupted save leaves the previous file intact.
"""

import hashlib
import io
import json
import os
import tempfile
import zipfile

import numpy as np
import scipy.sparse as sp

from textnb.errors import ModelFileError

__all__ = ["save", "load", "register", "atomic_write", "FORMAT_VERSION", "MAX_MODEL_BYTES"]

FORMAT_NAME = "textnb-model"
FORMAT_VERSION = 1
#: Refuse model files that declare more than this many bytes of arrays in total.
MAX_MODEL_BYTES = 8 * 1024**3
MAX_HEADER_BYTES = 256 * 1024**2

_REGISTRY = {}


def register(cls):
    """Class decorator: allow ``cls`` to be rebuilt from model files (by class name)."""
    _REGISTRY[cls.__name__] = cls
    return cls


def atomic_write(path, write):
    """Call ``write(fileobj)`` on a temporary file next to ``path``, then move it into place.

    The temporary file is flushed and fsync'ed before :func:`os.replace`, so readers see
    either the old file or the complete new one, whatever happens mid-write.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
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
        if sp.issparse(v):
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
            return sp.csr_matrix((data, indices, indptr), shape=tuple(v["shape"]))
        if "$tuple" in v:
            return tuple(self.value(x) for x in v["$tuple"])
        if "$dict" in v:
            return {k: self.value(x) for k, x in v["$dict"].items()}
        if "$items" in v:
            return {_hashable(self.value(k)): self.value(x) for k, x in v["$items"]}
        if "kind" in v:
            return self.node(v)
        raise ModelFileError("has an unknown value in its header")

    def node(self, node):
        kind = node.get("kind")
        cls = _REGISTRY.get(kind)
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
        if hasattr(est, "_set_state"):
            est._set_state(state)
        else:
            for k, v in state.items():
                setattr(est, k, v)
        return est


def _hashable(k):
    return tuple(k) if isinstance(k, list) else k


def _import_models():
    # make sure every model class is registered before a file is read
    import textnb  # noqa: F401


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

    atomic_write(path, write)


def load(path, *, max_bytes=MAX_MODEL_BYTES):
    """Read a model written by :func:`save`.

    Raises
    ------
    ModelFileError
        One line naming the file and the problem: missing, not a textnb model,
        truncated or corrupted (checksum), written by a newer textnb, or too large.
    """
    _import_models()
    path = os.fspath(path)
    try:
        return _load(path, max_bytes)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    except (OSError, EOFError) as exc:
        raise ModelFileError(f"{path}: cannot read model file ({exc.strerror or exc})") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, KeyError, TypeError,
            UnicodeDecodeError, json.JSONDecodeError, NotImplementedError) as exc:
        raise ModelFileError(f"{path}: not a valid textnb model file ({exc})") from None


def _load(path, max_bytes):
    if os.path.isdir(path):
        raise ModelFileError("is a folder, not a model file")
    if not os.path.exists(path):
        raise ModelFileError("no such model file")
    if not zipfile.is_zipfile(path):
        raise ModelFileError("not a textnb model file (truncated, or another format)")
    with zipfile.ZipFile(path) as z:
        infos = {i.filename: i for i in z.infolist()}
        if "header.json" not in infos:
            raise ModelFileError("not a textnb model file (no header)")
        if infos["header.json"].file_size > MAX_HEADER_BYTES:
            raise ModelFileError("header is larger than the limit")
        header = json.loads(z.read("header.json").decode("utf-8"))
        if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
            raise ModelFileError("not a textnb model file")
        version = header.get("version")
        if not isinstance(version, int) or version > FORMAT_VERSION:
            raise ModelFileError(
                f"model format version {version} is newer than this textnb reads "
                f"({FORMAT_VERSION}); upgrade textnb"
            )
        declared = header.get("arrays", {})
        total = sum(int(d["nbytes"]) for d in declared.values())
        if total > max_bytes:
            raise ModelFileError(f"declares {total} bytes of arrays, over the limit of {max_bytes}")
        arrays = {}
        for name, meta in declared.items():
            member = f"arrays/{name}.npy"
            info = infos.get(member)
            if info is None:
                raise ModelFileError(f"is truncated (array {name} missing)")
            if info.file_size != int(meta["nbytes"]):
                raise ModelFileError(f"array {name} has the wrong size (corrupted)")
            data = z.read(member)
            if hashlib.sha256(data).hexdigest() != meta["sha256"]:
                raise ModelFileError(f"array {name} fails its checksum (corrupted)")
            arrays[name] = np.load(io.BytesIO(data), allow_pickle=False)
        return _Unpacker(arrays).node(header["model"])
