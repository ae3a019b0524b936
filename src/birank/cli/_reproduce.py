"""``birank reproduce PAPER``: run a paper's experiments, write tables and figures."""

from __future__ import annotations

import functools
import importlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from .._progress import end_line
from ._common import add_deprecated_name, take_deprecated_name

# paper name on the command line -> experiment module (add_arguments, run)
# (run writes into ``args.output``; this wrapper makes it write into a staging folder first,
# then moves the files into place: never over existing files without --force, quick runs
# under ``*-quick.*`` names with stamped figures, no machine paths in the text files)
EXPERIMENTS = {
    "shen-lin": ("birank.experiments.shen_lin",
                 "Shen & Lin: active sampling of pairs and points (ASRankSVM, ASCRC)"),
    "gultekin": ("birank.experiments.gultekin_paisley",
                 "Gultekin & Paisley: BBR and LCBR, pairwise squared loss"),
    "donmez": ("birank.experiments.donmez",
               "Donmez & Carbonell: active sampling for rank learning (LossMin)"),
    "khalid": ("birank.experiments.khalid",
               "Khalid, Ray & Chitsaz: confidence-weighted bipartite ranking (online, Tables 3-6)"),
    "lin-jan-lin": ("birank.experiments.lin_jan_lin",
                    "Lin, Jan & Lin: Closest and Pruned RankSVM (Tables I-VI, Fig. 1, 3)"),
}


def register(subparsers, full=True):
    """Add ``reproduce`` and one sub-parser per paper.

    With ``full=False`` (another command was asked for) the experiment modules
    are not imported: their options are only needed to run or describe a paper,
    and importing them costs seconds at every CLI start.
    """
    parser = subparsers.add_parser(
        "reproduce", help="reproduce a paper's tables and figures",
        description="Reproduce the published experiments of a paper birank builds on.")
    papers = parser.add_subparsers(dest="paper", metavar="PAPER")
    papers.required = True
    for name, (module_name, help_text) in EXPERIMENTS.items():
        if not full:
            papers.add_parser(name, help=help_text, description=help_text)
            continue
        module = importlib.import_module(module_name)
        sub = papers.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(sub)
        _add_safety_options(sub)
        sub.set_defaults(func=functools.partial(_run_safely, name, module))


#: paper -> stem of its main report (``<stem>.md``), to refuse early instead of after a run
REPORT_STEM = {"shen-lin": "shen-lin", "gultekin": "gultekin-paisley", "donmez": "donmez",
               "khalid": "khalid", "lin-jan-lin": "lin-jan-lin"}
QUICK_MARK = "QUICK RUN - a smoke test, not the paper's protocol"


#: help for experiment options that have none (the formatter adds their default)
_HELP_FILL = {"seed": "random seed of the splits and the models", "datasets": "data sets to run",
              "methods": "methods to compare"}
#: the name shown for one value of a list option with choices (default: its dest, upper case)
_CHOICE_METAVAR = {"datasets": "NAME", "methods": "METHOD"}


def _add_safety_options(sub):
    """--force, --skip-missing, the birank data folder as --data-home's default, and
    --data-dir, --data-home's deprecated name."""
    actions = {a.dest: a for a in sub._actions}
    for action in actions.values():  # an option without help still says what it is
        if action.option_strings and not action.help:
            action.help = _HELP_FILL.get(action.dest, action.dest.replace("_", " "))
        if action.choices and action.nargs in ("+", "*") and action.metavar is None:
            # usage and help would print the choices twice on one line ("{a,b,c} [{a,b,c}
            # ...]", 100-170 characters): a name there, the choices in the (wrapped) help
            action.metavar = _CHOICE_METAVAR.get(action.dest, action.dest.upper())
            every = list(action.default or ()) == list(action.choices)
            action.help = (f"{action.help}: one or more of "
                           f"{', '.join(map(str, action.choices))}"
                           + (" (default: all)" if every else ""))
    sub.add_argument("--force", action="store_true",
                     help="overwrite existing result files in --output (default: refuse)")
    # one spelling for every command: -q/--quiet, with --no-progress kept as its synonym
    taken = set(sub._option_string_actions)
    if "no_progress" in actions and "--quiet" not in taken:
        sub.add_argument(*[o for o in ("-q", "--quiet") if o not in taken], dest="no_progress",
                         action="store_true", help="no progress lines (same as --no-progress)")
    elif "quiet" in actions:
        extra = [o for o in ("-q", "--no-progress") if o not in taken]
        if extra:
            sub.add_argument(*extra, dest="quiet", action="store_true",
                             help="no progress lines (same as --quiet)")
    if "skip_missing" not in actions:
        sub.add_argument("--skip-missing", action="store_true",
                         help="exit 0 even when data sets were missing (they are listed in the "
                              "report)")
    action = actions.get("data_home")
    if action is not None:
        action.default = None
        action.help = ("folder holding the data sets (default: the birank data folder, "
                       "$BIRANK_DATA or ~/.cache/birank; see `birank datasets list`); sets "
                       "bundled with birank need nothing")
        # the option's name before 1.0, hidden from --help; _run_safely resolves it
        add_deprecated_name(sub, "--data-dir", "data_home")


def _quick_name(name):
    """``khalid-fig1.png`` -> ``khalid-fig1-quick.png``; names saying quick stay as they are."""
    if "quick" in name:
        return name
    stem, dot, ext = name.rpartition(".")
    return f"{stem}-quick.{ext}" if dot else f"{name}-quick"


def _scrub(text, replacements):
    for old, new in replacements:
        if old:
            text = text.replace(old, new)
    return text


def _run_safely(paper, module, args):
    """Run ``module.run`` into a staging folder, then move its files into ``--output``."""
    from ..datasets import get_data_home
    from ..exceptions import UserError
    from ..experiments import _report

    take_deprecated_name(args, "--data-dir", "--data-home", "data_home")
    quick = bool(getattr(args, "quick", False))
    force = bool(args.force)
    out = Path(args.output)
    stem = getattr(args, "stem", None) or REPORT_STEM.get(paper, paper)
    main = out / (f"{_quick_name(stem)}.md" if quick else f"{stem}.md")
    if main.exists() and not force:
        raise UserError(f"{main} exists; pass --force to overwrite it, or --output another "
                        "folder" + ("" if quick else " (or --quick for a smoke run, written "
                                    "as *-quick.*)") + ".")
    # matplotlib checked before the run, not found missing when its figures are drawn
    # (a module may say that a run draws nothing: gultekin --from-json)
    if getattr(module, "draws_figures", lambda _: True)(args):
        _report.check_plotting(f"birank reproduce {paper} (its figures)")
    if hasattr(args, "data_home") and args.data_home is None:
        args.data_home = get_data_home()
    data_home = getattr(args, "data_home", None)
    stage = Path(tempfile.mkdtemp(prefix=f"birank-reproduce-{paper}-"))
    args.output = str(stage)
    _report.QUICK_MARK = QUICK_MARK if quick else None
    _report.STAGED = True
    try:
        result = module.run(args)
    except BaseException:
        if any(stage.iterdir()):
            end_line()  # (not glued to a progress line)
            print(f"birank reproduce {paper}: partial results are in {stage}", file=sys.stderr)
        else:
            shutil.rmtree(stage, ignore_errors=True)
        raise
    finally:
        _report.QUICK_MARK = None
        _report.STAGED = False
        args.output = str(out)
    files = sorted(p for p in stage.rglob("*") if p.is_file())
    names = {p.relative_to(stage).as_posix(): p.relative_to(stage).as_posix() for p in files}
    if quick:
        names = {k: "/".join(k.split("/")[:-1] + [_quick_name(k.split("/")[-1])])
                 for k in names}
    clashes = [n for n in names.values() if (out / n).exists()]
    if clashes and not force:
        raise UserError(f"would overwrite {', '.join(clashes)} in {out}; nothing was written "
                        f"(the new results are in {stage}); pass --force to overwrite.")
    # machine paths out of the text files: the staging folder, the data folder, the home
    replacements = [(str(stage) + os.sep, ""), (str(stage), ".")]
    if data_home:
        for form in {str(data_home), os.path.abspath(str(data_home))}:
            replacements.append((form.rstrip(os.sep) + os.sep, "DATA_HOME/"))
            replacements.append((form.rstrip(os.sep), "DATA_HOME"))
    if quick:
        replacements += [(old.split("/")[-1], new.split("/")[-1])
                         for old, new in names.items() if old != new]
    replacements.append((os.path.expanduser("~"), "~"))
    out.mkdir(parents=True, exist_ok=True)
    for old, new in names.items():
        src, dst = stage / old, out / new
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix in (".md", ".json", ".txt", ".csv"):
            text = _scrub(src.read_text(), replacements)
            tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
            tmp.write_text(text)
            os.replace(tmp, dst)
        else:
            shutil.copyfile(src, dst)
    shutil.rmtree(stage, ignore_errors=True)
    end_line()
    print(f"birank reproduce {paper}: wrote {len(names)} file(s) to {out}"
          + (" (quick run: *-quick.* names)" if quick else ""), file=sys.stderr)
    # modules with their own check (khalid, donmez) stopped before running, or were told
    # --skip-missing; for the others, a set they skipped is an error after the fact
    own_check = hasattr(module, "missing_sets") or hasattr(module, "missing_data")
    missing = [] if own_check else _missing_in(
        out / names.get(f"{stem}.json", _quick_name(f"{stem}.json") if quick else f"{stem}.json"))
    if missing and not getattr(args, "skip_missing", False):
        raise UserError(f"data not found for {', '.join(missing)} (under {data_home}); those "
                        "parts were skipped. Get them with `birank datasets fetch NAME "
                        f"--data-home {data_home}`, or give the folder that holds them with "
                        "--data-home; --skip-missing accepts the partial run.")
    return result


def _missing_in(json_path):
    """Data sets a run recorded as missing (keys ``missing`` / ``missing_datasets``, at any
    depth: gultekin records them per section)."""
    import json

    try:
        doc = json.loads(Path(json_path).read_text())
    except (OSError, ValueError):
        return []
    found = []

    def visit(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("missing", "missing_datasets") and isinstance(value, list):
                    found.extend(item[0] if isinstance(item, (list, tuple)) else str(item)
                                 for item in value)
                else:
                    visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(doc)
    return list(dict.fromkeys(found))
