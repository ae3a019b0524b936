"""birank's one build step: the kernels compiled ahead of time (src/birank/_kernels/ahead.py).

Everything else about the package is in pyproject.toml. The extension is optional:
where it cannot be built (no C compiler, a numba without its ahead-of-time compiler)
the install goes on, with a warning, and every kernel compiles on first use instead.
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

AHEAD = "birank._kernels._precompiled"
MANIFEST = "_precompiled.json"  # (ahead.MANIFEST)


class BuildExt(build_ext):
    def build_extension(self, ext):
        if ext.name != AHEAD:
            return super().build_extension(ext)
        # the kernels from this source tree, not from an installed birank; importing them
        # must not load a module this build is about to replace
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
        sys.path.insert(0, src)
        os.environ["BIRANK_AHEAD"] = "0"
        target = self.get_ext_fullpath(ext.name)
        try:
            from birank._kernels.ahead import build, up_to_date

            # a source checkout that holds an up-to-date module (an editable install
            # done before, `python -m birank._kernels`) is not compiled twice
            in_tree = os.path.join(src, *ext.name.split(".")[:-1], os.path.basename(target))
            if up_to_date(in_tree):
                self.mkpath(os.path.dirname(target))
                self.copy_file(in_tree, target)
                self.copy_file(os.path.join(os.path.dirname(in_tree), MANIFEST),
                               os.path.join(os.path.dirname(target), MANIFEST))
            else:
                build(target)
        except Exception as exc:
            self.warn(f"birank: kernels not compiled ahead of time ({type(exc).__name__}: "
                      f"{exc}); they compile on first use instead")

    def copy_extensions_to_source(self):
        # an editable install copies the built module into the source tree; its
        # manifest (what it was built from) goes with it
        super().copy_extensions_to_source()
        built = os.path.join(self.build_lib, *AHEAD.split(".")[:-1], MANIFEST)
        if os.path.exists(built):
            package_dir = self.get_finalized_command("build_py").get_package_dir("birank._kernels")
            self.copy_file(built, os.path.join(package_dir, MANIFEST))


setup(ext_modules=[Extension(AHEAD, sources=[], optional=True)], cmdclass={"build_ext": BuildExt})
