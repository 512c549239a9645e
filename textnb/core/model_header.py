"""What a model file's header must say for textnb to read it: its format name and version.

One check for every reader of ``.tnb`` files: :func:`textnb.core.model_io.load` (which
reads the whole archive) and the reader of the compact form in front of it
(:func:`textnb.core.compact.read_payload`, the numpy-free spam filter's), so that a file
one of them refuses for its header the other does not read either. Standard library only.
"""

from textnb.core.errors import ModelFileError

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "check_header"]

FORMAT_NAME = "textnb-model"
#: The newest format version this textnb reads. A file is written as version 1 unless it
#: uses an encoding of a later version (2: arrays stored by their non-zero entries,
#: ``{"$nonzero": ...}``), so a model that does not need one reads in older textnb too.
FORMAT_VERSION = 2


def check_header(header):
    """Raise :class:`~textnb.core.errors.ModelFileError` (without the path: the caller adds
    it) unless ``header`` (the parsed ``header.json``) names the textnb model format in a
    version this textnb reads."""
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
