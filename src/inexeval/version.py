"""The installed inexeval's version, read from the package metadata (a module of its own so
that ``inexeval --version`` imports nothing else)."""

from __future__ import annotations


def package_version() -> str:
    """The installed version of inexeval (``unknown`` when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("inexeval")
    except PackageNotFoundError:
        return "unknown"
