"""birank's one build step: the kernels compiled ahead of time (src/birank/_kernels/ahead.py).

Everything else about the package is in pyproject.toml. The extension is optional:
where it cannot be built (no C compiler, a numba without its ahead-of-time compiler)
the install goes on, with a warning, and every kernel compiles on first use instead.
"""

import os
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

AHEAD = "birank._kernels._precompiled"
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")


def _ahead():
    """birank._kernels.ahead of this source tree (not of an installed birank), with the
    compiled module left unloaded: this build may replace it."""
    if SRC not in sys.path:
        sys.path.insert(0, SRC)
    os.environ["BIRANK_AHEAD"] = "0"
    from birank._kernels import ahead

    return ahead


class BuildExt(build_ext):
    def build_extension(self, ext):
        if ext.name != AHEAD:
            return super().build_extension(ext)
        target = self.get_ext_fullpath(ext.name)
        try:
            ahead = _ahead()
            # a source checkout that holds an up-to-date module (an editable install
            # done before, `python -m birank._kernels`) is not compiled twice
            in_tree = os.path.join(SRC, *ext.name.split(".")[:-1], os.path.basename(target))
            if ahead.up_to_date(in_tree):
                self.mkpath(os.path.dirname(target))
                for path in ahead.built_files(in_tree):
                    shutil.copyfile(path, os.path.join(os.path.dirname(target),
                                                       os.path.basename(path)))
            else:
                ahead.build(target)
        except Exception as exc:
            self.warn(f"birank: kernels not compiled ahead of time ({type(exc).__name__}: "
                      f"{exc}); they compile on first use instead")

    def copy_extensions_to_source(self):
        # an editable install copies the built module into the source tree; its other
        # parts and its manifest (what it was built from) go with it
        super().copy_extensions_to_source()
        built = os.path.join(self.build_lib, *AHEAD.split(".")[:-1],
                             os.path.basename(self.get_ext_fullpath(AHEAD)))
        package_dir = self.get_finalized_command("build_py").get_package_dir("birank._kernels")
        for path in _ahead().built_files(built):
            if os.path.exists(path):
                self.copy_file(path, os.path.join(package_dir, os.path.basename(path)))


setup(ext_modules=[Extension(AHEAD, sources=[], optional=True)], cmdclass={"build_ext": BuildExt})
