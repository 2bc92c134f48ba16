"""Installed package versions, recorded next to every output they produced (manifests, results)."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import metadata


def package_versions(names: Iterable[str]) -> dict[str, str]:
    """`{name: version}`; a package that is not installed is reported as "not installed"."""
    versions: dict[str, str] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions
