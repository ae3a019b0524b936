"""``birank reproduce PAPER``: run a paper's experiments, write tables and figures."""

from __future__ import annotations

import importlib

# paper name on the command line -> experiment module (add_arguments, run)
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
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # an experiment not written yet
            if exc.name == module_name:
                continue
            raise
        sub = papers.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(sub)
        sub.set_defaults(func=module.run)
