"""The package version (one place: the root package and model files read it here)."""

__version__ = "0.1.0"
