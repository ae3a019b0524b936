"""Kernels compiled ahead of time, at install, so that a first run does not compile them.

numba compiles a kernel on its first call and caches it on disk (``cache=True``).
With an empty cache -- a fresh environment, a container, a CI job -- the README
example spent about 13 CPU s compiling some 40 specializations before its first
result (issue 25). :data:`ENTRIES` lists the specializations that every public
estimator's default fit, scores, predictions and probabilities call from Python
on float64 data, dense or CSR with int32 indices (the README example and
``birank demo`` among them). The install compiles them with
numba's ahead-of-time compiler (:mod:`numba.pycc`, for the installing machine's
CPU) into the extension module ``birank._kernels._precompiled`` (``setup.py``'s
``build_ext``; ``python -m birank._kernels`` rebuilds it in place in a
source checkout). Importing :mod:`birank._kernels` hands each compiled function
to its kernel's dispatcher for exactly those argument types; a call with any
other types (float32, int64 indices, read-only or strided arrays) goes through
numba's just-in-time path as before, and so do kernels called from other kernels.

The module is used only if it was built from the same kernel sources (a digest
of this folder's ``.py`` files) for this CPU (name and features) by this numba
version (another one may compile the JIT path's code differently). Otherwise, or
where it could not be built (no C compiler), or with ``BIRANK_AHEAD=0``, every
kernel compiles on first use as before; :func:`status` says which. The compiled
code is the same numba pipeline on the same source for the same CPU, so the
results are the same bits (a test fits the README's models both ways).

Kernels declared ``nogil=True`` (the threaded ones) are compiled to release the
GIL as well: their threads would otherwise run one at a time.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from typing import Any

from numba import types as nt

#: the extension module (next to this file) and its manifest
MODULE = "_precompiled"
MANIFEST = "_precompiled.json"

F8 = nt.float64[::1]
F8_2 = nt.float64[:, ::1]
F8_3 = nt.float64[:, :, ::1]
I8 = nt.int64[::1]
U8 = nt.uint64[::1]
I8_2 = nt.int64[:, ::1]
I4 = nt.int32[::1]
I4_2 = nt.int32[:, ::1]
I4_3 = nt.int32[:, :, ::1]
I1 = nt.int8[::1]
U4_2 = nt.uint32[:, ::1]
B1 = nt.boolean[::1]
i8, f8, b1, none = nt.int64, nt.float64, nt.boolean, nt.none
#: a CSR matrix as the kernels take it: (data, indices, indptr)
CSR = nt.Tuple((F8, I4, I4))
CSR_I8 = nt.Tuple((F8, I4, I8))  # (rows built by the solver: int64 row pointers)
#: a CSR matrix whose stored values are all 1, without them (CombinedRanking's SGD,
#: ActiveRankSVM's sampling)
CSR_ONES = nt.Tuple((none, I4, I4))

#: (kernel module, kernel, signature): what the README example, ``birank demo`` and
#: every public estimator's default fit, ``decision_function`` and ``predict_proba``
#: call from Python on float64 data, dense and CSR with int32 indices (recorded from
#: numba's compiles of those runs with an empty cache; ``bench_cold_start.py
#: --compiled`` lists what a run still compiles)
ENTRIES = (
    # LIBSVM text (load_svmlight and the bundled datasets: np.frombuffer of bytes is
    # read-only)
    ("svmlight_text", "parse_svmlight_text",
     nt.UniTuple(i8, 6)(nt.Array(nt.uint8, 1, "C", readonly=True), b1, i8, F8, I8, I4, I4,
                        F8, I8_2)),
    # every fit's check of X's values (finite, and their largest magnitude)
    ("value_scan", "finite_magnitude", none(F8, F8_2, i8, i8, i8)),
    # RankSVM: two-label and many-label sweeps, calibration, products
    ("labels", "two_values", nt.Tuple((i8, f8, f8))(F8)),
    ("labels", "ranks_in_order", none(F8, I8, I8, I8, I8)),
    # one group of two labels: ranks against the upper rows' thresholds
    ("threshold_sweep", "upper_thresholds", none(F8, I8, f8, F8, F8)),
    ("threshold_sweep", "bucket_table", nt.UniTuple(f8, 2)(F8, I4)),
    ("threshold_sweep", "upper_ranks", none(F8, F8, b1, F8, I8, I8, F8_2)),
    ("threshold_sweep", "lower_ranks", none(F8, I8, F8, I4, f8, f8, I4, i8, i8)),
    ("threshold_sweep", "lower_sums", none(F8, I8, F8, b1, I4, F8_2)),
    ("threshold_sweep", "upper_rows",
     f8(F8, I8, F8, b1, I8, I8, F8_2, f8, i8, F8, F8, F8, F8)),
    ("threshold_sweep", "lower_rows", none(F8, I8, F8, b1, I4, F8_2, f8, i8, F8, F8, i8, i8)),
    ("threshold_sweep", "hess_upper_prefix", none(F8, I8, F8, b1, I8, F8, F8)),
    ("threshold_sweep", "hess_upper", none(F8, I8, F8, I8, F8, b1, I4, I8, F8, F8, F8)),
    ("threshold_sweep", "hess_lower", none(F8, I8, F8, b1, I4, F8, F8, F8, i8, i8)),
    # groups (queries) of two labels
    ("pair_sweep", "sweep_loss_grad_binary",
     f8(F8, I8, I8, I8, F8, i8, F8, F8, I8, I8, F8_2, f8, b1)),
    ("pair_sweep", "sweep_hess_vec_binary", none(F8, I8, I8, I8, F8, I8, I8, F8, F8_2)),
    ("pair_sweep", "two_label_diag_rows", none(I8, I8, I8, F8_2, F8)),
    ("pair_sweep", "sweep_loss_grad",
     f8(F8, I8, I8, I8, I8, F8, F8, i8, F8, F8, I8, I8, F8_2, I4_3, f8, b1, b1)),
    ("pair_sweep", "sweep_hess_vec",
     none(F8, I8, I8, I8, I8, F8, F8, I8, I8, F8, F8_2, I4_3, b1)),
    ("pair_sweep", "_digit_bits", nt.UniTuple(i8, 2)(i8, i8)),
    # rows sorted by score within each query (fewer than RADIX_MIN rows)
    ("radix_sort", "argsort_groups", none(F8, I8, I8, I8, F8)),
    # one array of scores sorted (every size: radix_sort.argsort_scores)
    ("radix_sort", "_radix_argsort", b1(F8, I8, U8, U8, F8, U4_2)),
    ("blocked_products", "csr_matvec_block", none(F8, I4, I4, F8, F8, i8, i8)),
    ("blocked_products", "csr_rmatvec_block", none(F8, I4, I4, F8, F8, i8, i8, b1)),
    # the same on indicator features (values all 1, not passed)
    ("blocked_products", "csr_matvec_block", none(none, I4, I4, F8, F8, i8, i8)),
    ("blocked_products", "csr_rmatvec_block", none(none, I4, I4, F8, F8, i8, i8, b1)),
    # the diagonal preconditioner's (X o X)' D on dense float64 X (no square of X)
    ("dense_products", "dense_sq_rmatvec", F8(F8_2, F8, F8)),
    # a Newton step's gradient and preconditioner products in one pass
    *(("blocked_products", "csr_grad_diag_block", none(data, I4, I4, F8, F8, F8_2, i8, i8, b1))
      for data in (F8, none)),
    # Newton's score vectors (trial scores, the direction's scores)
    ("vector_ops", "add_scaled", none(F8, F8, f8, F8, i8, i8)),
    # the weighted rows' squared hinge (WeightedSVM's and ActiveRankSVM's Newton solves)
    ("vector_ops", "squared_hinge_rows", none(F8, F8, f8, F8, F8, F8, i8, i8)),
    ("vector_ops", "multiply", none(F8, F8, F8, i8, i8)),
    ("platt", "platt_block_sums",
     none(F8, B1, F8, f8, f8, f8, f8, f8, f8, f8, f8, i8, F8_2, i8, i8)),
    ("platt", "platt_moments", none(F8, B1, F8, f8, f8, i8, F8_2, i8, i8)),
    ("platt", "platt_spread", none(F8, B1, F8, f8, f8, f8, f8, f8, f8, i8, F8_2, i8, i8)),
    ("platt", "split_sides", nt.UniTuple(i8, 2)(F8, B1, F8, F8, B1, F8)),
    # ActiveRankSVM: sampling, the pair rows, dual coordinate descent (WeightedSVM's too)
    *(("soft_sample", "soft_sample",
       nt.Tuple((I8, F8, i8, i8, b1))(rows, F8, f8, I8, I8, B1, i8, i8, i8, f8, i8, I8, i8, i8,
                                      i8))
      for rows in (CSR, CSR_ONES, F8_2)),
    ("soft_sample", "item_rows", nt.UniTuple(I8, 2)(I8, I8, I8, B1, i8)),
    ("id_set", "new_table", I8(i8)),
    ("id_set", "take_new", i8(I8, I8, I8, I8, i8)),
    ("id_set", "table_contains", B1(I8, I8)),
    ("id_set", "table_insert", none(I8, I8)),
    ("dual_cd", "merge_pair_rows", none(F8, I4, I4, I8, I8, F8, i8, F8, I4, I8, i8)),
    ("dual_cd", "map_local_rows", nt.Tuple((I8_2, i8))(I8_2, I4, i8, I8)),
    ("dual_cd", "all_ones", b1(F8)),
    *(("dual_cd", "pair_q", none(rows, pairs, F8_2, i8, i8, b1))
      for rows, pairs in ((CSR_I8, I8_2), (CSR, I4_2), (F8_2, I4_2))),
    # (the passes resumable: the state of start_passes, then calls up to a pass)
    ("dual_cd", "start_passes", nt.Tuple((I8, I8, I8, F8))(i8, i8)),
    *(("dual_cd", "dual_cd_run",
       none(rows, F8, pairs, F8_2, i8, b1, b1, f8, b1, I8, I8, I8, F8, i8))
      for rows, pairs in ((CSR_I8, I8_2), (CSR, I4_2), (F8_2, I4_2))),
    *(("dual_cd", "pair_margins", F8(rows, F8, I4_2, i8, b1)) for rows in (CSR, F8_2)),
    *(("dual_cd", "dual_cd_points_run",
       none(*rows, b1, F8, I4_2, F8_2, i8, b1, b1, f8, b1, I8, I8, I8, F8, i8))
      for rows in ((none, F8, I4, I4), (F8_2, none, none, none))),
    # BBR, LCBR
    ("pair_moments", "class_scatter_csr", nt.Tuple((F8, F8_2))(F8, I4, I4, i8, I8)),
    ("pair_moments", "sampled_pair_sums_csr", nt.Tuple((F8, F8_2))(F8, I4, I4, i8, I8, I8)),
    ("pair_moments", "sampled_pair_sums_dense", nt.Tuple((F8, F8_2))(F8_2, I8, I8)),
    # CombinedRanking
    *(("sgd", "crr_sgd", i8(rows, F8, F8, I8, I8, F8, f8, i8, i8, f8, i8, b1, b1, I8))
      for rows in (CSR_ONES, F8_2)),
    # the online learners and the generated data of birank demo
    ("generators", "fill_sparse_bipartite",
     i8(I8_2, i8, i8, i8, i8, F8, f8, f8, f8, I4, F8, I1)),
    ("buffered_stream", "max_row_nnz", i8(I4, i8, i8)),
    ("buffered_stream", "buffered_stream",
     none(i8, F8, I4, I4, I1, F8, i8, i8, F8, F8, F8_2, I8_2, F8_2, I8, I8, I8_2, F8_2, I8, I8, i8,
          I8, f8, f8, I8, F8, F8, F8, i8, I8, B1, I8)),
    *(("sparse_rows", "row_sqnorms", F8(rows)) for rows in (CSR, F8_2)),
    ("sparse_rows", "rng_init", I8(i8)),
    *(("opauc", "opauc_full_pass",
       none(rows, I1, F8, i8, i8, F8, F8, F8_2, F8_3, f8, f8, F8, F8, F8)) for rows in (CSR, F8_2)),
    *(("spam", "spam_pass", i8(rows, I1, F8, i8, i8, F8, F8, F8_2, F8, F8, i8, f8, f8, f8, f8))
      for rows in (CSR, F8_2)),
    *(("uniexp", "uniexp_pass", i8(rows, I1, F8, i8, i8, F8, F8, f8, f8)) for rows in (CSR, F8_2)),
    ("adaoam_updates", "adaoam_stream",
     none(F8, I4, I4, I1, F8, i8, i8, F8, F8, F8_2, F8_3, F8, f8, f8, f8, F8, F8)),
    ("pgd", "pgd_stream",
     i8(F8, I4, I4, I1, F8, i8, i8, F8, i8, f8, f8, f8, i8, I8_2, F8_2, I8, I8, I8_2, F8_2, I8,
        I8, i8, I8, F8)),
    # graded labels' pairs (OrdinalPairs: ActiveRankLearner, the ranking metrics)
    ("ordinal_levels", "ordinal_runs",
     nt.Tuple((I8, I4, I4, I4, I4))(F8, I1, nt.NumberClass(nt.int32))),
    ("ordinal_levels", "decode_ordinal_ids", nt.UniTuple(I4, 2)(I8, I8, I4, I4)),
    ("ordinal_levels", "level_pair_counts", I8(I4, I4, I4, i8)),
)

_STATUS = "not loaded"
#: symbol -> compiled function, once :func:`install` loaded them
_FUNCTIONS: dict[str, Any] = {}


def _here():
    return os.path.dirname(os.path.abspath(__file__))


def source_digest(folder: str | os.PathLike[str] | None = None) -> str:
    """SHA-256 over every kernel source ``*.py`` of ``folder`` (default: this one), names
    and bytes in name order. Also what the tests compare the numba cache against."""
    folder = _here() if folder is None else os.fspath(folder)
    h = hashlib.sha256()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read() + b"\0")
    return h.hexdigest()


def host_cpu() -> dict[str, str]:
    """The CPU the code is compiled for (numba's JIT targets the same one)."""
    from llvmlite import binding as ll

    return {"cpu_name": ll.get_host_cpu_name(), "cpu_features": ll.get_host_cpu_features().flatten()}


def symbol(module: str, name: str, k: int = 0) -> str:
    """The compiled function's name in the extension module (``k``: its specialization's
    place among the entries of the same kernel)."""
    return f"{module}__{name.lstrip('_')}" + (f"__{k}" if k else "")


def _symbols() -> list[str]:
    """:func:`symbol` of every entry, in order."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for module, name, _ in ENTRIES:
        k = seen[module, name] = seen.get((module, name), -1) + 1
        out.append(symbol(module, name, k))
    return out


def _dispatcher(module: str, name: str) -> Any:
    return getattr(importlib.import_module(f".{module}", __package__), name)


def _manifest_path(extension_path: str) -> str:
    return os.path.join(os.path.dirname(extension_path), MANIFEST)


def _part_module(part: int) -> str:
    """The module name of a part: ``_precompiled`` (part 0), ``_precompiled_1``, ..."""
    return MODULE if part == 0 else f"{MODULE}_{part}"


def _part_path(extension_path: str, part: int) -> str:
    """The file of a part, beside ``extension_path`` (the file of part 0)."""
    folder, name = os.path.split(extension_path)
    return os.path.join(folder, name.replace(MODULE, _part_module(part), 1))


def _read_manifest(extension_path: str) -> dict[str, Any] | None:
    """The manifest beside ``extension_path``, None when there is none readable."""
    try:
        with open(_manifest_path(extension_path)) as f:
            built = json.load(f)
        return built if isinstance(built, dict) and isinstance(built.get("parts"), list) else None
    except (OSError, ValueError):
        return None


def _mismatch(built: dict[str, Any]) -> str | None:
    """Why a module with this manifest cannot be used here (None: it can)."""
    if built.get("digest") != source_digest():
        return "stale (built from other kernel sources; python -m birank._kernels rebuilds it)"
    if {k: built.get(k) for k in ("cpu_name", "cpu_features")} != host_cpu():
        return f"built for another CPU ({built.get('cpu_name')})"
    import numba

    if built.get("numba") != numba.__version__:
        return (f"built by numba {built.get('numba')}, this is {numba.__version__} "
                "(reinstalling birank, or python -m birank._kernels in a checkout, rebuilds it)")
    return None


def built_files(extension_path: str) -> list[str]:
    """The module's files as its manifest lists them, the manifest last ([] if none)."""
    built = _read_manifest(extension_path)
    if built is None:
        return []
    return ([_part_path(extension_path, k) for k in range(len(built["parts"]))]
            + [_manifest_path(extension_path)])


def up_to_date(extension_path: str) -> bool:
    """Whether the module at ``extension_path`` (all its parts) can be used here: built
    from these sources for this CPU by this numba (:func:`_mismatch`)."""
    built = _read_manifest(extension_path)
    return (built is not None and _mismatch(built) is None
            and all(os.path.exists(p) for p in built_files(extension_path)))


def _compile_part(part: int, parts: int, output_path: str) -> None:
    """Compile every ``parts``-th entry from ``part`` on into the module ``output_path``
    (run in its own process by :func:`build`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc's pending-deprecation notice
        from numba.pycc import CC
        from numba.pycc import compiler as pycc_compiler

    cc = CC(_part_module(part), source_module=__name__)
    cc.output_dir = os.path.dirname(output_path)
    cc.output_file = os.path.basename(output_path)
    cc.target_cpu = "host"
    # numba's pycc wraps every function holding the GIL; the kernels declared
    # nogil=True get the wrapper numba's JIT gives them (the GIL released while
    # they run), so that their threads still run at once
    nogil = set()
    for (module, kernel_name, sig), sym in list(zip(ENTRIES, _symbols()))[part::parts]:
        kernel = _dispatcher(module, kernel_name)
        cc.export(sym, sig)(kernel.py_func)
        if kernel.targetoptions.get("nogil"):
            nogil.add(kernel.py_func)
    plain_compile = pycc_compiler.compile_extra

    def compile_extra(typingctx, targetctx, func, args, return_type, flags, *rest, **kw):
        if func in nogil:
            flags = flags.copy()
            flags.release_gil = True
        return plain_compile(typingctx, targetctx, func, args, return_type, flags, *rest, **kw)

    pycc_compiler.compile_extra = compile_extra
    try:
        cc.compile()
    finally:
        pycc_compiler.compile_extra = plain_compile


def build(extension_path: str, *, force: bool = False, jobs: int | None = None) -> bool:
    """Compile :data:`ENTRIES` into the extension module at ``extension_path``.

    The entries are split over ``jobs`` modules (default: one per core, at most 4),
    compiled at once in as many processes (numba compiles one function at a time).
    Writes them and the manifest (digest, CPU, numba version, each part's entries);
    returns False when an up-to-date module is already there (``force``: build
    anyway). New files replace old ones by a rename, never by writing into them.
    """
    if not force and up_to_date(extension_path):
        return False
    import numba

    parts = max(1, min(jobs or os.cpu_count() or 1, 4, len(ENTRIES)))
    out_dir = os.path.dirname(os.path.abspath(extension_path))
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="birank-ahead-", dir=out_dir)
    try:
        # the kernels of this source tree (the one this module was imported from), put
        # first on the path by the child itself (pip's build isolation rewrites the path)
        root = os.path.dirname(os.path.dirname(_here()))
        env = dict(os.environ, BIRANK_AHEAD="0")
        names = [os.path.join(tmp, os.path.basename(_part_path(extension_path, k)))
                 for k in range(parts)]
        logs = [os.path.join(tmp, f"part{k}.log") for k in range(parts)]
        procs = []
        for k in range(parts):
            with open(logs[k], "w") as log:  # (a file, not a pipe: nothing can fill up)
                procs.append(subprocess.Popen(
                    [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[4]); "
                     "from birank._kernels.ahead import _compile_part; "
                     "_compile_part(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])",
                     str(k), str(parts), names[k], root], env=env, cwd=tmp, stderr=log))
        # every process ends before a failure is raised: none may still be writing into
        # ``tmp`` when it is removed
        codes = [p.wait() for p in procs]
        for code, path in zip(codes, logs):
            if code != 0:
                with open(path) as f:
                    err = f.read().strip()
                raise RuntimeError(err.splitlines()[-1] if err else "failed")
        symbols = _symbols()
        manifest = {"digest": source_digest(), **host_cpu(), "numba": numba.__version__,
                    "parts": [symbols[k::parts] for k in range(parts)]}
        for k in range(parts):
            os.replace(names[k], _part_path(extension_path, k))
        with open(os.path.join(tmp, MANIFEST), "w") as f:
            json.dump(manifest, f, indent=1)
        os.replace(os.path.join(tmp, MANIFEST), _manifest_path(extension_path))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return True


def install() -> int:
    """Hand the compiled functions to their dispatchers; returns how many (0: none).

    Called once when :mod:`birank._kernels` is imported. Never raises: any problem
    leaves every kernel on numba's just-in-time path, and :func:`status` says why.
    """
    global _STATUS
    from numba.core import config

    if os.environ.get("BIRANK_AHEAD", "1") == "0":
        _STATUS = "off (BIRANK_AHEAD=0): kernels compile on first use"
        return 0
    if config.DISABLE_JIT:
        _STATUS = "off (NUMBA_DISABLE_JIT): kernels run as Python"
        return 0
    built = _read_manifest(_extension_path())
    if built is None:
        _STATUS = ("not built (no C compiler at install, or a source checkout: "
                   "python -m birank._kernels): kernels compile on first use")
        return 0
    reason = _mismatch(built)
    if reason is not None:
        _STATUS = f"{reason}: kernels compile on first use"
        return 0
    try:
        functions: dict[str, Any] = {}
        for k, symbols in enumerate(built["parts"]):
            compiled = importlib.import_module(f".{_part_module(k)}", __package__)
            functions.update((sym, getattr(compiled, sym)) for sym in symbols)
        for (module, name, sig), sym in zip(ENTRIES, _symbols()):
            _dispatcher(module, name)._insert([a._code for a in sig.args], functions[sym], False)
    except Exception as exc:  # an extension numba cannot take: fall back, say why
        _STATUS = f"not usable ({type(exc).__name__}: {exc}): kernels compile on first use"
        return 0
    _FUNCTIONS.update(functions)
    _STATUS = f"loaded: {len(ENTRIES)} kernel specializations compiled at install"
    return len(ENTRIES)


def compiled(module: str, name: str, k: int = 0) -> Any:
    """The function compiled at install for the ``k``-th entry of kernel ``module.name``
    (KeyError when none is loaded)."""
    return _FUNCTIONS[symbol(module, name, k)]


def status() -> str:
    """Whether the kernels compiled ahead of time are in use, and if not, why."""
    return _STATUS


def _extension_path() -> str:
    from importlib.machinery import EXTENSION_SUFFIXES

    return os.path.join(_here(), MODULE + EXTENSION_SUFFIXES[0])


def main(argv: list[str] | None = None) -> int:
    """``python -m birank._kernels [--force]``: (re)build the module in place."""
    argv = sys.argv[1:] if argv is None else argv
    path = _extension_path()
    try:
        built = build(path, force="--force" in argv)
    except Exception as exc:  # no C compiler, no numba.pycc: say so, leave the kernels just in time
        print(f"birank: kernels not compiled ahead of time ({type(exc).__name__}: {exc}); "
              "they compile on first use", file=sys.stderr)
        return 1
    print(f"birank: {'compiled' if built else 'up to date:'} {path}")
    return 0
