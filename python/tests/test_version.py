"""One version everywhere: the project's (CMakeLists.txt, which the wheel's metadata also reads),
the package's __version__ (wr.h's WR_VERSION_STRING the extension was built against), the loaded
libwr's wr_version_string(), and the configured header's WR_VERSION_* macros. (The installed
pkg-config file and the C consumer's wr_version() are checked by tests/find_package.)"""

from __future__ import annotations

import os
import pathlib
import re

import pytest

import warp_raycaster as wr
from warp_raycaster import _wr

from conftest import REPO


def project_version() -> str:
    # The regex of pyproject.toml's [tool.scikit-build.metadata.version].
    text = (REPO / "CMakeLists.txt").read_text()
    match = re.search(r"project\(warp_raycaster VERSION (?P<value>[0-9.]+)", text)
    assert match, "no project(warp_raycaster VERSION ...) in CMakeLists.txt"
    return match["value"]


def test_package_and_library_say_the_project_version() -> None:
    version = project_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    assert wr.__version__ == version
    assert _wr.version() == version  # the libwr.so the extension loaded, wr_version_string()


def test_configured_header_says_the_project_version() -> None:
    build = os.environ.get("WR_BUILD_DIR")
    if not build:
        pytest.skip("WR_BUILD_DIR is not set (run under CTest): the configured header is in the build tree")
    header = (pathlib.Path(build) / "include" / "wr" / "wr_version.h").read_text()
    macros = dict(re.findall(r"#define WR_VERSION_(MAJOR|MINOR|PATCH) (\d+)", header))
    assert f"{macros['MAJOR']}.{macros['MINOR']}.{macros['PATCH']}" == project_version()
    assert f'#define WR_VERSION_STRING "{project_version()}"' in header
