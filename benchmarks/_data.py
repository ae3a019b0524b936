"""The benchmarks' data files, found where the reproductions find them.

``data_file(data_home, "a9a/a9a.t")``: the file in a data folder laid out by hand
(``NAME/FILE``), else the download of ``birank datasets fetch NAME`` (or
``fetch_letor``) kept in that folder; a FileNotFoundError names every place looked in.
"""

from pathlib import Path


def data_file(data_home, rel):
    try:
        from birank.datasets._locate import find_data_file
    except ImportError:  # an older birank on PYTHONPATH (before/after runs): its layout only
        path = Path(data_home) / rel
        if not path.is_file():
            raise FileNotFoundError(f"no {path}") from None
        return path
    return find_data_file(data_home, rel, required=True)
