"""Pages written at build time from ``docs/results`` and the published numbers.

``generate_all(srcdir)`` writes ``generated/``: one page per reproduction (its
main tables rebuilt from ``docs/results/<paper>.json`` beside the numbers
transcribed from the paper in ``birank.experiments.*_published``, the figures,
then the run's full report), the benchmark page, and the toctree of the
project notes that exist (``conventions.md``, ``distributed.md`` ...).

``rewrite_repo_links`` turns markdown links to repository files that are not
pages of the site (tests, source files, logs) into plain code spans, so the
notes written for the repository read well on the site and no link is broken.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

import bench_figures

# -- cleaning: no machine paths, no development history ----------------------

_PATH = re.compile(r"(?:/work/shared/data|\.\./shared/data|/work/shared|/work/main/?|"
                   r"\.\./shared/reference)(/[^\s'\"`)|,;]*)?")
_TMP = re.compile(r"/tmp/[^\s'\"`)|,;]*")
_I = re.IGNORECASE
_SESSION_PAREN = re.compile(r"\s*\((?:since |in |from )?session \d+(?:[^()]*)\)", _I)
_SESSION_LEAD = re.compile(r"\((?:since |in |from )?session \d+[:;,]\s*", _I)
_SESSION_START = re.compile(r"(^|\n)Session \d+(?: and \d+)?[,:]?\s*")
_SESSION = re.compile(r"(?:,\s*|\s+)(?:rerun |remeasured |measured )?(?:since |in |from |of )?"
                      r"session \d+(?: and \d+)?(?=[\s,.;:)])", _I)
_SESSION_WORD = re.compile(r"\bsessions? \d+\b", _I)
_ISSUES = ((re.compile(r"\s*\(issues? \d+(?:(?:,| and) \d+)*(?: item \d+)?\)", _I), ""),
           (re.compile(r"[;,] issues? \d+(?:(?:,| and) \d+)*(?=\))", _I), ""),
           (re.compile(r"\(issues? \d+(?: item \d+)?; ", _I), "("),
           (re.compile(r"\bbefore issue \d+\b", _I), "formerly"))
_ISSUE = re.compile(r"\s*\(issue \d+(?: item \d+)?\)|\bissue \d+(?: item \d+)?'s\s*|"
                    r"\bissue \d+(?: item \d+)?\b", _I)


def clean(text: str) -> str:
    """Replace machine paths and drop development-history phrases."""
    def path(m):
        rest = m.group(1) or ""
        return "PATH" + rest if "data" in m.group(0) else rest.lstrip("/") or "."

    text = _PATH.sub(path, text)
    text = _TMP.sub("OUTDIR", text)
    text = _SESSION_START.sub(lambda m: m.group(1) + "An earlier run: ", text)
    text = _SESSION_PAREN.sub("", text)
    text = _SESSION_LEAD.sub("(", text)
    text = _SESSION.sub("", text)
    text = _SESSION_WORD.sub("an earlier run", text)
    text = re.sub(r"\b([Tt])his session\b", r"\1his run", text)
    text = re.sub(r"\bthe session\b", "the run", text)
    text = text.replace("shared data folder", "data folder")
    for pattern, repl in _ISSUES:
        text = pattern.sub(repl, text)
    text = _ISSUE.sub(lambda m: " " if m.group(0).endswith("'s ") else "", text)
    text = text.replace("the lead's ", "the ")
    return text


# -- small formatting helpers -------------------------------------------------

def _ms(values, scale=1.0, digits=4):
    v = np.asarray([x for x in np.ravel(values) if x is not None], dtype=float) * scale
    if v.size == 0:
        return "n/a"
    return f"{v.mean():.{digits}f} ± {v.std():.{digits}f}" if v.size > 1 else f"{v[0]:.{digits}f}"


def _pub(cell, digits=4):
    if cell is None:
        return "–"
    if isinstance(cell, (tuple, list)):
        return f"{cell[0]:.{digits}f} ± {cell[1]:.{digits}f}"
    if isinstance(cell, str):
        return cell
    return f"{cell:.{digits}f}"


def _pair(name, ours, paper):
    """Two table rows: ours under the data set's name, the paper's below it."""
    return [[f"**{name}**"] + list(ours), ["  paper"] + list(paper)]


def _numeric(cell):
    return re.match(r"^\s*(?:[-+]?[\d.]|–|n/a|\*\*\s*$|$)", str(cell)) is not None


def _table(headers, rows):
    """A markdown table: the first column left, numeric columns right, text left."""
    align = [":---"] + ["---:" if all(_numeric(r[i]) for r in rows if i < len(r)) else ":---"
                        for i in range(1, len(headers))]
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join(align) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def _figure(name, caption, folder="../results/", width="95%"):
    return f"```{{figure}} {folder}{name}\n:width: {width}\n\n{caption}\n```\n"


def _run_info(meta, seconds=None):
    if not meta:
        return ""
    parts = [f"birank {meta.get('birank', '?')}", f"Python {meta.get('python', '?')}",
             f"NumPy {meta.get('numpy', '?')}", f"SciPy {meta.get('scipy', '?')}",
             f"scikit-learn {meta.get('scikit-learn', '?')}", f"numba {meta.get('numba', '?')}",
             f"{meta.get('cpus', '?')} CPU cores"]
    text = "Run: " + ", ".join(parts)
    if seconds:
        text += f"; {seconds / 60:.1f} minutes in all"
    return text + ".\n"


def _report(results, stem):
    path = results / f"{stem}.md"
    if not path.exists():
        return ""
    text = clean(path.read_text())
    text = re.sub(r"^# .*\n", "", text, count=1)              # the page has its own title
    text = re.sub(r"^(#+) ", lambda m: "#" + m.group(1) + " ", text, flags=re.M)
    # figures and sibling reports are one folder up from generated/
    text = re.sub(r"\]\((?!https?:|#|\.\./)([^)]+\.png)\)", r"](../results/\1)", text)
    text = re.sub(r"\]\((?!https?:|#)([\w.-]+)\.md\)",
                  lambda m: f"]({_REPORT_PAGE.get(m.group(1), '../results/' + m.group(1))}.md)"
                  if m.group(1) in _REPORT_PAGE else f"]({m.group(1)}.md)", text)
    return "\n## The run's full report\n\n" + text


_REPORT_PAGE = {"shen-lin": "shen-lin", "shen-lin-gamma": "shen-lin", "khalid": "khalid",
                "gultekin-paisley": "gultekin-paisley", "lin-jan-lin": "lin-jan-lin",
                "lin-jan-lin-art100": "lin-jan-lin", "donmez": "donmez"}


def _load(results, name):
    path = results / name
    return json.loads(path.read_text()) if path.exists() else None


# -- one function per reproduction -------------------------------------------

def _shen_lin(results):
    from birank.experiments import shen_lin_published as pub

    data = _load(results, "shen-lin.json")
    if data is None:
        return None
    md = ["# Shen & Lin (2014): active sampling of pairs and points\n",
          "*Active Sampling of Pairs and Points for Large-scale Linear Bipartite Ranking* "
          "(ACML 2013, extended 2014). Methods: {class}`~birank.ActiveRankSVM` (Soft/Hard "
          "Close/Correct, Random), {class}`~birank.WeightedSVM` (WSVM), "
          "{class}`~birank.RankSVM` (in place of SVMperf's ERankSVM), "
          "{class}`~birank.CombinedRanking` (CRR).\n",
          "```bash\nbirank reproduce shen-lin --data-home PATH\n```\n",
          _run_info(data.get("metadata"), data.get("seconds")),
          "\n## Table 4: AUC, ours beside the paper's\n",
          f"Budget {data['config']['budget']} pairs, batch {data['config']['batch_size']}, "
          f"C = {data['config']['C']}; mean ± std over the initial pools (and folds). "
          "Under each data set, the paper's number (– where the paper has no such "
          "data set).\n"]
    cols = pub.TABLE4_COLUMNS
    rows = []
    for ds, rec in data["datasets"].items():
        methods = rec["methods"]
        paper = pub.TABLE4.get(ds)
        rows += _pair(ds, [_ms(methods[c]["auc"]) if c in methods else "n/a" for c in cols],
                      [_pub(paper[cols.index(c)]) if paper else "–" for c in cols])
    md.append(_table(["data set"] + list(cols), rows))
    md.append("\n## Table 6: fit seconds, ours and the paper's CPU seconds\n")
    md.append("The paper's machine differs: compare the ratios between methods.\n")
    rows = []
    cols6 = pub.TABLE6_COLUMNS
    for ds, rec in data["datasets"].items():
        methods = rec["methods"]
        paper = pub.TABLE6.get(ds)
        rows += _pair(ds, [_ms(methods[c]["seconds"], digits=3) if c in methods else "n/a"
                           for c in cols6],
                      [_pub(paper[cols6.index(c)], 2) if paper else "–" for c in cols6])
    md.append(_table(["data set"] + list(pub.TABLE6_COLUMNS), rows))
    md.append("\n## Figures\n")
    for fig, cap in (("shen-lin-fig2.png", "Fig. 2: AUC against the number of chosen pairs."),
                     ("shen-lin-fig5.png", "Fig. 5: the pair weight (the paper's gamma)."),
                     ("shen-lin-fig6.png", "Fig. 6: with a larger budget.")):
        if (results / fig).exists():
            md.append(_figure(fig, cap))
    md.append(_report(results, "shen-lin"))
    gamma = _report(results, "shen-lin-gamma")
    if gamma:
        md.append(gamma.replace("## The run's full report", "## The pair-weight run's report"))
    return "\n".join(md)


def _khalid(results):
    from birank.experiments import khalid_published as pub

    data = _load(results, "khalid.json")
    if data is None:
        return None
    md = ["# Khalid, Ray & Chitsaz (2016): confidence-weighted bipartite ranking\n",
          "*Confidence-weighted Bipartite Ranking* (ADMA 2016). Methods: "
          "{class}`~birank.CBR` (reservoir and FIFO buffers, full and diagonal covariance) "
          "against {class}`~birank.OAM`, {class}`~birank.AdaOAM`, {class}`~birank.OPAUC`, "
          "{class}`~birank.OnlineUniExp` (and {class}`~birank.SPAM`, {class}`~birank.PGD`, "
          "not in the paper).\n",
          "```bash\nbirank reproduce khalid --data-home PATH\n```\n",
          _run_info(data.get("meta")),
          "\n## Table 3: test AUC on the benchmark sets, ours and the paper's\n",
          "Mean ± std over the runs; parameters chosen by cross-validation as in the "
          "paper's section 4.\n"]
    cols = pub.BENCH_COLUMNS
    rows = []
    for ds, rec in data.get("benchmark", {}).items():
        rows += _pair(ds, [_ms(rec[c]["auc"], digits=3) if c in rec else "n/a" for c in cols],
                      [_pub(pub.published(pub.TABLE3, ds, c, cols), 3) for c in cols])
    md.append(_table(["data set"] + list(cols), rows))
    hd = data.get("high_dimensional") or data.get("hd") or {}
    hd = {k: v for k, v in hd.items() if isinstance(v, dict) and any(c in v for c in
                                                                      pub.HD_COLUMNS)}
    if hd:
        md.append("\n## Table 5: test AUC on the high-dimensional sets, ours and the paper's\n")
        rows = []
        for ds, rec in hd.items():
            hc = pub.HD_COLUMNS
            rows += _pair(ds, [_ms(rec[c]["auc"], digits=3) if c in rec else "n/a" for c in hc],
                          [_pub(pub.published(pub.TABLE5, ds, c, hc), 3) for c in hc])
        md.append(_table(["data set"] + list(pub.HD_COLUMNS), rows))
    md.append("\n## Figures\n")
    for fig, cap in (("khalid-fig1.png", "Fig. 1."), ("khalid-fig2.png", "Fig. 2.")):
        if (results / fig).exists():
            md.append(_figure(fig, cap))
    md.append(_report(results, "khalid"))
    return "\n".join(md)


def _lin_jan_lin(results):
    from birank.experiments import lin_jan_lin_published as pub

    data = _load(results, "lin-jan-lin.json")
    if data is None:
        return None
    art = data.get("artificial", {})
    md = ["# Lin, Jan & Lin (2010): data selection for large-scale RankSVM\n",
          "*Data Selection Techniques for Large-scale RankSVM* (TAAI 2010). Methods: "
          "{class}`~birank.PrunedRankSVM` (closest, random and pruned pairs; linear and RBF) "
          "and {class}`~birank.RankSVM` (total pairs).\n",
          "```bash\nbirank reproduce lin-jan-lin --data-home PATH\n```\n",
          _run_info(data.get("metadata")),
          "\n## Tables I–III: artificial data, pairwise accuracy (%), ours and the paper's\n",
          f"d = {data['config'].get('d')}, {data['config'].get('art_rounds')} rounds; "
          "noise is the standard deviation of the label noise. Ours: mean ± standard deviation "
          "over the rounds; the paper's ± is a standard error of the mean.\n"]
    methods = ("closest", "random", "pruned", "total")
    rows = []
    for noise in pub.NOISES:
        rec = art.get(str(noise)) or art.get(repr(noise))
        if rec is None:
            continue
        paper = {**pub.TABLE1_2.get(noise, {}), **{k: v for k, v in pub.TABLE3.get(noise, {}).items()
                                                   if k == "pruned"}}
        rows += _pair(pub.NOISE_NAMES[noise],
                      [_ms(rec[m]["acc"], 100, 2) if m in rec else "n/a" for m in methods],
                      [_pub(paper.get(m), 2) for m in methods])
    md.append(_table(["noise", "1-closest S", "random S", "closest S + random S",
                      "total pairs"], rows))
    for kernel, table, title in (("linear", pub.TABLE4, "Table IV: real data, linear kernel"),
                                 ("rbf", pub.TABLE5, "Table V: real data, RBF kernel")):
        rows = []
        for ds, rec in data.get("real", {}).items():
            k = rec.get(kernel, {})
            paper = table.get(ds, {})
            ms = ("pruned", "pruned2", "total")
            rows += _pair(ds, [_ms(k[m]["acc"], 100, 2) if m in k else "n/a" for m in ms],
                          [_pub(paper.get(m), 2) for m in ms])
        if rows:
            md.append(f"\n## {title}, pairwise accuracy (%), ours and the paper's\n")
            md.append(_table(["data set", "closest S + random S", "closest 2S + random 2S",
                              "total pairs"], rows))
    md.append("\n## Figures\n")
    for fig, cap in (("lin-jan-lin-fig1.png", "Fig. 1: the dual solution over the pairs."),
                     ("lin-jan-lin-fig3.png", "Fig. 3: accuracy against the number of pairs."),
                     ("lin-jan-lin-pairs.png", "How many pairs are needed.")):
        if (results / fig).exists():
            md.append(_figure(fig, cap))
    md.append(_report(results, "lin-jan-lin"))
    art100 = _report(results, "lin-jan-lin-art100")
    if art100:
        md.append(art100.replace("## The run's full report", "## Tables I–III over 100 rounds"))
    return "\n".join(md)


def _gultekin(results):
    data = _load(results, "gultekin-paisley.json")
    if data is None:
        return None
    md = ["# Gultekin & Paisley: risk bounds for low-cost bipartite ranking\n",
          "*Risk Bounds for Low Cost Bipartite Ranking*. Methods: {class}`~birank.BBR` "
          "(all pairs, from class moments) and {class}`~birank.LCBR` (sampled pairs), against "
          "{class}`~birank.RankSVM` and {class}`~birank.CombinedRanking`.\n",
          "```bash\nbirank reproduce gultekin --data-home PATH\n```\n",
          _run_info(data.get("metadata"), data.get("elapsed_s")),
          "\nThe paper prints no tables; its statements are listed beside what we measured.\n",
          "\n## Section 5.1: Gaussian mixtures\n"]
    rows = []
    for s in data.get("section_5_1", {}).get("summary", []):
        rows.append([s.get("K"), s.get("sigma"), _pub((s["auc_bbr"]["mean"], s["auc_bbr"]["std"])),
                     _pub((s["auc_lcbr_S5000"]["mean"], s["auc_lcbr_S5000"]["std"])),
                     _pub((s["auc_best_linear"]["mean"], s["auc_best_linear"]["std"])),
                     _pub((s["auc_bayes"]["mean"], s["auc_bayes"]["std"])),
                     s.get("smallest_S_within_0.005_auc"),
                     f"{s.get('speedup_naive_over_lcbr', float('nan')):.0f}x"])
    md.append(_table(["K", "sigma", "BBR AUC", "LCBR (S = 5000) AUC", "best linear AUC",
                      "Bayes AUC", "smallest S within 0.005 of BBR",
                      "LCBR speed-up over all pairs"], rows))
    pub51 = data.get("published", {}).get("5.1", {})
    md.append("\nThe paper: " + "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in pub51.items())
              + ".\n")
    sec = data.get("section_5_2", {})
    if sec.get("datasets"):
        md.append("\n## Section 5.2: real data, test AUC by training fraction\n")
        for ds, rec in sec["datasets"].items():
            fr = sec.get("fractions", [])
            rows = []
            for method, by_frac in rec.get("auc", {}).items():
                rows.append([method] + [_ms(by_frac.get(str(f), []), digits=4) for f in fr])
            md.append(f"\n**{ds}** ({rec.get('n_train')} training rows, {rec.get('split')}; "
                      f"ball radius {rec.get('radius')})\n\n")
            md.append(_table(["method"] + [str(f) for f in fr], rows))
        pub52 = data.get("published", {}).get("5.2", {})
        md.append("\nThe paper: " + "; ".join(f"{k.replace('_', ' ')}: {v}"
                                             for k, v in pub52.items()) + ".\n")
    md.append("\n## Figures\n")
    for fig, cap in (("gultekin-paisley-fig1.png", "Fig. 1: section 5.1."),
                     ("gultekin-paisley-fig2.png", "Fig. 2: section 5.2.")):
        if (results / fig).exists():
            md.append(_figure(fig, cap))
    md.append(_report(results, "gultekin-paisley"))
    return "\n".join(md)


def _donmez(results):
    data = _load(results, "donmez.json")
    if data is None:
        return None
    md = ["# Donmez & Carbonell (2009): active sampling for rank learning\n",
          "*Active Sampling for Rank Learning via Optimizing the Area Under the ROC Curve* "
          "(ECIR 2009). Method: {class}`~birank.ActiveRankLearner` with the "
          "LossMin strategy and four baselines.\n",
          "```bash\nbirank reproduce donmez --data-home PATH\n```\n",
          _run_info(data.get("metadata"), data.get("elapsed_s")),
          "\n## Mean over the operating range, and the ordering of Table 1\n",
          "The paper's Table 1 orders the methods by a paired t-test over the operating "
          "range (`>>` p < 0.01, `>` p < 0.05, `~` not significant) on TD2003/TD2004, which "
          "are not available here; the same protocol runs on the sets below.\n"]
    methods = ("lossmin", "entropy", "uncertain", "diverse", "random")
    for metric, key in (("MAP", "map"), ("NDCG@10", "ndcg"), ("AUC", "auc")):
        rows = []
        for ds, rec in data.get("datasets", {}).items():
            summ = rec.get("summary", {})
            orm = summ.get("operating_range_mean", {}).get(key, {})
            rows.append([ds] + [f"{orm[m]:.4f}" if m in orm else "n/a" for m in methods]
                        + [summ.get("table1", {}).get(key, "")])
        pub_rows = data.get("published", {}).get("table1", {}).get(
            {"map": "MAP", "ndcg": "NDCG10", "auc": "AUC"}[key], {})
        for ds, order in pub_rows.items():
            rows.append([f"paper, {ds}"] + ["–"] * len(methods) + [order])
        md.append(f"\n### {metric}\n\n")
        md.append(_table(["data set"] + list(methods) + ["ordering"], rows))
    md.append("\n## Figures\n")
    for ds, rec in data.get("datasets", {}).items():
        fig = rec.get("figure")
        if fig and (results / fig).exists():
            md.append(_figure(fig, f"Fig. 3 protocol on {ds}."))
    md.append(_report(results, "donmez"))
    return "\n".join(md)


REPRODUCTIONS = (("shen-lin", _shen_lin), ("gultekin-paisley", _gultekin),
                 ("khalid", _khalid), ("lin-jan-lin", _lin_jan_lin), ("donmez", _donmez))


def _measured_table(results):
    """AUC and fit seconds per method on the shen-lin data sets (for "Which method when")."""
    data = _load(results, "shen-lin.json")
    if data is None:
        return "(no shen-lin results)\n"
    cols = (("WeightedSVM (point-wise)", "WSVM"), ("RankSVM (all pairs, hinge)", "ERankSVM"),
            ("ActiveRankSVM, 8000 pairs", "Soft-Correct"), ("CombinedRanking (SGD)", "CRR"))
    rows = []
    for ds, rec in data["datasets"].items():
        info, methods = rec.get("info", {}), rec["methods"]
        row = [f"{ds} ({info.get('train_rows', '?'):,} rows, {info.get('features', '?')} features)"]
        for _, key in cols:
            m = methods.get(key)
            row.append(f"{np.mean(m['auc']):.4f} in {np.mean(m['seconds']):.2f} s" if m else "n/a")
        rows.append(row)
    return (_table(["data set"] + [c for c, _ in cols], rows)
            + f"\nTest (or cross-validated) AUC and fit seconds, mean over the runs of "
              f"`birank reproduce shen-lin` ({data['config'].get('pools')} pools; "
              f"C = {data['config'].get('C')}), generated from its results when this site "
              f"is built.\n")


# -- benchmarks ---------------------------------------------------------------

_BENCHMARKS = (
    ("Online learners against plain NumPy", "bench_online.md",
     "python benchmarks/bench_online.py"),
    ("One-pass AUC baselines (OPAUC, SPAM, PGD, OnlineUniExp)", "bench_auc_baselines.txt",
     "python benchmarks/bench_auc_baselines.py"),
    ("Closest and Pruned RankSVM against LinearSVC on the same pairs", "bench-pruned.txt",
     "python benchmarks/bench_pruned.py --repeats 3"),
    ("Active learning to rank: selection cost", "bench_active_learning.txt",
     "python benchmarks/bench_active_learning.py --data-home PATH"),
)


# benchmarks/bench_references.py appends one block per run to this file: a
# "# <date> ..." header, then one line per comparison. The page shows each
# comparison's latest line, so its figures follow the latest run.
_REFERENCES = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "bench_references.txt"
_REFERENCE_LINE = re.compile(
    r"^\(([a-e])\) (?P<what>[^:]+): birank (?P<b>[\d.]+) s wall / [\d.]+ s CPU; "
    r"tool (?P<t>[\d.]+) s / [\d.]+ s; ratio wall (?P<r>[\d.]+), CPU [\d.]+; "
    r"(?P<kind>objective|test AUC) birank (?P<ob>\S+) vs tool (?P<ot>\S+)")


#: a tool's test AUC on a9a.t beside birank's counterpart (bench_references.py's "aucs")
_TOOL_AUC_LINE = re.compile(
    r"^\(f\) test AUC on a9a\.t, (?P<tool>[^:]+): tool (?P<t>[\d.]+); "
    r"birank (?P<what>.+) (?P<b>[\d.]+)$")


def _latest_matches(pattern, key, path):
    """``{m[key]: (run date, m)}``: the latest line of bench_references.py's results
    matching ``pattern`` for each key. Runs of other source trees (``PYTHONPATH=``
    before/after pairs) are skipped."""
    latest, date, skip = {}, None, False
    if not path.exists():
        return latest
    for line in path.read_text().splitlines():
        if line.startswith("# 20") and "command:" in line:
            date = line[2:18]
            skip = "PYTHONPATH=" in line
            continue
        m = pattern.match(line)
        if m and not skip:
            latest[m[key]] = (date, m)
    return latest


def _latest_references(path=_REFERENCES):
    """The latest line of every comparison of bench_references.py, with its run's date."""
    return _latest_matches(_REFERENCE_LINE, "what", path)


def _latest_tool_aucs(path=_REFERENCES):
    """The latest test AUC of each tool on a9a.t (bench_references.py ``--only aucs``)."""
    return _latest_matches(_TOOL_AUC_LINE, "tool", path)


def _references_section(latest):
    if not latest:
        return ""
    rows = []
    for what, (date, m) in latest.items():
        b, o = float(m["ob"]), float(m["ot"])
        compare = (f"objective {b / o:.5f}x the tool's" if m["kind"] == "objective"
                   else f"test AUC {b:.4f} vs {o:.4f}")
        rows.append([what, m["b"], m["t"], m["r"], compare, date[:10]])
    return "\n".join([
        "\n### Speed against the tools, in the same process\n",
        "`python benchmarks/bench_references.py --data-home PATH --tools DIR` (the tools "
        "built outside the repository) runs each tool and birank's counterpart in "
        "alternating processes on the same machine and prints wall seconds (medians), "
        "their ratio and the objective each reached; the latest run of each comparison "
        "(`benchmarks/results/bench_references.txt`):\n",
        _table(["comparison", "birank s", "tool s", "ratio", "result", "run"], rows),
        "\nbirank's times include input checks and the probability calibration; an "
        "objective below 1x the tool's is a more accurate solution.\n"])


def _tool_auc(aucs, tool):
    """A tool's latest test AUC on a9a.t (4 decimals), or :data:`NOT_MEASURED`."""
    got = aucs.get(tool)
    return f"{float(got[1]['t']):.4f}" if got else NOT_MEASURED


def _dates_of(latest):
    """The distinct run dates (days) of ``_latest_matches`` entries."""
    return ", ".join(dict.fromkeys(date[:10] for date, _ in latest.values()))


def _dates(*runs):
    return ", ".join(dict.fromkeys(r.date for r in runs if r.date)) or "–"


def _a9a_table(figures, refs, results):
    """The a9a table: each row's figures from the latest run of its benchmark."""
    ranksvm_run, ranksvm, hinge, _, _ = figures["ranksvm"]
    active_run, active, _ = figures["active"]
    squared_run, bbr, lcbr = figures["squared"]
    crr_run, crr = figures["crr"]
    nm = NOT_MEASURED
    ref = refs.get("RankSVM a9a C=1 vs liblinear-ranksvm -s 8")
    ref_s = f"{ref[1]['b']} ({ref[1]['r']}x liblinear-ranksvm)" if ref else "see below"
    ref_dates = [ref[0][:10]] if ref else []
    rows = [["`RankSVM(C=1)` squared hinge, exact", f"{float(ranksvm['auc']):.4f}" if ranksvm
             else nm, ref_s, "time: `python benchmarks/bench_references.py --data-home PATH "
             f"--tools DIR`; AUC: `{ranksvm_run.command}`",
             ", ".join(dict.fromkeys(ref_dates + [d for d in [ranksvm_run.date] if d])) or "–"],
            ["`RankSVM(loss='hinge')`, C as SVMperf `-c 100`",
             f"{float(hinge['auc']):.4f}" if hinge else nm, "see below",
             f"`{ranksvm_run.command}`", _dates(ranksvm_run)]]
    if active:
        ratio = float(active["s"]) / float(active["svc"])
        rows.append([f"`ActiveRankSVM` soft-correct, B = {active['B']}",
                     f"{active['auc']} (every round solved, as in the paper: "
                     f"{active['paper_auc']})",
                     f"{active['s']} ({ratio:.2f}x LinearSVC; every round solved: "
                     f"{active['paper_s']})", f"`{active_run.command}`", _dates(active_run)])
    else:
        rows.append(["`ActiveRankSVM` soft-correct, B = 8000", nm, nm,
                     f"`{active_run.command}`", "–"])
    for name, m in ((f"`BBR(radius={float(bbr['r']):g})` exact pairwise squared loss"
                     if bbr else "`BBR` exact pairwise squared loss", bbr),
                    (f"`LCBR(n_pairs=5000, radius={float(lcbr['r']):g})`" if lcbr
                     else "`LCBR(n_pairs=5000)`", lcbr)):
        rows.append([name, f"{float(m['auc']):.4f}" if m else nm, m["s"] if m else nm,
                     f"`{squared_run.command}`",
                     _dates(squared_run)])
    rows.append(["`CombinedRanking`, 10^6 steps", _crr_auc(crr),
                 f"{np.median([float(m['s']) for m in crr]):.3f} "
                 f"({min(float(m['ratio']) for m in crr):.2f}–"
                 f"{max(float(m['ratio']) for m in crr):.2f}x SGDClassifier)" if crr else nm,
                 f"`{crr_run.command}`",
                 _dates(crr_run)])
    wsvm_run, wsvm, _, _ = _wsvm_defaults()
    rows.append(["`WeightedSVM` balanced, hinge", wsvm["auc"] if wsvm else nm,
                 _weighted_svm_time(results),
                 f"AUC: `{wsvm_run.command}`; time: "
                 "`python benchmarks/bench_solvers.py --data-home PATH --only 1`",
                 _dates(wsvm_run)])
    return _table(["method", "test AUC", "fit s", "command", "run"], rows)


def _crr_auc(crr):
    if not crr:
        return NOT_MEASURED
    aucs = [float(m["auc"]) for m in crr]
    return f"{min(aucs):.4f}–{max(aucs):.4f} ({len(crr)} seeds)"


def _option(command, name, default):
    """The value of ``--name`` on a benchmark's command line, or the script's default."""
    m = re.search(rf"--{name}[= ](\S+)", command or "")
    return m.group(1) if m else default


def _scale_paragraphs(figures):
    """Exact RankSVM and ActiveRankSVM against N, from bench_ranksvm.py and bench_active.py."""
    md = []
    run, _, _, sizes, growth = figures["ranksvm"]
    if sizes:
        big = sizes[-1]
        n = float(big["n"])
        mantissa, exponent = f"{float(big['pairs']):.1e}".split("e")
        its = " and ".join(f"x{g['it']}" for g in growth)
        nlogn = " and ".join(f"x{g['nlogn']}" for g in growth)
        md.append(f"\n**Scale** (`{run.command}`, run {run.date}; planted sparse data, "
                  f"{_pow10(big['d'])} features, {float(big['nnz']) / n:.0f} non-zeros a row): "
                  f"exact RankSVM over {mantissa} x 10^{int(exponent)} pairs at {_pow10(n)} "
                  f"rows fits in {float(big['rk']):.1f} s, LinearSVC in "
                  f"{float(big['svc']):.1f} s (RankSVM / LinearSVC {big['ratio']})"
                  + (f"; per Newton iteration the time grows {its} per tenfold N against "
                     f"N log N's {nlogn}" if growth else "") + ".\n")
    else:
        md.append(f"\n**Scale** (`{run.command}`): {NOT_MEASURED}.\n")
    run, a9a, sizes = figures["active"]
    if sizes:
        big, n = sizes[-1], _pow10(sizes[-1]["n"])
        sampled = [float(m["select"]) + float(m["solve"]) for m in sizes]
        gap = float(big["rk_auc"]) - float(big["auc"])
        smaller = ", ".join(f"at {_pow10(m['n'])} rows, {m['s']} s against {m['rk']} s "
                            f"({m['ratio']}x)" for m in sizes[:-1])
        md.append(f"\n**ActiveRankSVM at scale** (`{run.command}`, run {run.date}; "
                  f"{_option(run.command, 'features', 200)} features, "
                  f"{_option(run.command, 'nnz', 20)} non-zeros a row, a budget of "
                  f"{_option(run.command, 'budget', 8000)} pairs; exact RankSVM at the "
                  "per-pair cost whose sum is the budget's): ActiveRankSVM fits "
                  f"{n} rows in {big['s']} s, exact RankSVM in {big['rk']} s "
                  f"(RankSVM / ActiveRankSVM {big['ratio']}x), with test AUC {big['auc']} "
                  f"against {big['rk_auc']} ({gap:.4f} lower)"
                  + (f"; {smaller}" if smaller else "") + ". Sampling and solving take "
                  f"{big['select']} s + {big['solve']} s of the {n} fit and stay within "
                  f"{min(sampled):.2f}–{max(sampled):.2f} s at every N: the budget bounds "
                  "them. The rest grows as O(N): it is mostly the decision cut and the "
                  f"probability calibration over all {n} training scores, with the input "
                  "checks.\n")
    else:
        md.append(f"\n**ActiveRankSVM at scale** (`{run.command}`): {NOT_MEASURED}.\n")
    return md


def _metrics_paragraph(figures):
    run, auc, pairwise = figures["metrics"]
    if not auc:
        return f"\n**Metrics** (`{run.command}`): {NOT_MEASURED}.\n"
    speed = " and ".join(f"{m['r']}x at {_pow10(m['n'])}" for m in auc)
    weighted = " and ".join(f"{m['wr']}x" for m in auc if m["wr"])
    diff = max(float(m[k]) for m in auc for k in ("d", "wd") if m[k])
    text = (f"\n**Metrics** (`{run.command}`, run {run.date}): `roc_auc` against "
            f"`sklearn.metrics.roc_auc_score`, sklearn's time / birank's: {speed} scores"
            + (f" ({weighted} with sample weights)" if weighted else "")
            + f"; the same AUC to {diff:.0e}")
    if pairwise:
        text += (f"; `pairwise_accuracy` on {_pow10(pairwise[0]['n'])} rows: "
                 + ", ".join(f"{m['s']} s ({m['what']})" for m in pairwise))
    return text + ".\n"


def _drawn(draw, args, name, out, file, caption, width):
    """``draw(*args, out / name)`` and the figure's markdown (beside the page, in
    ``generated/``); a warning naming ``file`` and no figure if its run lacks the data."""
    try:
        Path(out).mkdir(parents=True, exist_ok=True)
        draw(*args, Path(out) / name)
    except ValueError as error:
        _report_missing(f"{file}: figure {name} not drawn: {error}")
        return ""
    return "\n" + _figure(name, caption, folder="", width=width)


def _bench_figures(figures, refs, out):
    """The page's three figures, drawn into ``out``: markdown by where each goes."""
    ranksvm_run, *_, sizes, _ = figures["ranksvm"]
    active_run, _, active_sizes = figures["active"]
    metrics_run, auc, _ = figures["metrics"]
    dates = ", ".join(sorted({date[:10] for date, _ in refs.values()}))
    return {
        "references": _drawn(
            bench_figures.references, (refs,), "bench-references.png", out,
            "benchmarks/results/bench_references.txt",
            "birank's wall time as a multiple of each tool's, per comparison of the table "
            "above (left of the line: birank is faster). From the latest line of each "
            f"comparison in `benchmarks/results/bench_references.txt` (runs of {dates}); "
            "command: `python benchmarks/bench_references.py --data-home PATH --tools DIR`.",
            "95%"),
        "scale": _drawn(
            bench_figures.scale, (sizes, active_sizes), "bench-scale.png", out,
            f"{ranksvm_run.file} and {active_run.file}",
            "Fit seconds against rows, one panel per benchmark (their generated data "
            "differ). Left: RankSVM and LinearSVC from "
            f"`{ranksvm_run.file}` (run {ranksvm_run.date}; `{ranksvm_run.command}`; "
            + (f"{_pow10(sizes[0]['d'])} features); " if sizes else "); ") + "right: "
            f"ActiveRankSVM and the exact RankSVM of the same run, from `{active_run.file}` (run {active_run.date}; `{active_run.command}`; "
            f"{_option(active_run.command, 'features', 200)} features, a budget of "
            f"{_option(active_run.command, 'budget', 8000)} pairs). The dotted line grows "
            "as N log N from RankSVM's smallest run.",
            "95%"),
        "metrics": _drawn(
            bench_figures.metrics, (auc,), "bench-metrics.png", out, metrics_run.file,
            "`roc_auc` and `sklearn.metrics.roc_auc_score` on the same scores, seconds "
            f"(log scale). From `{metrics_run.file}` (run {metrics_run.date}); command: "
            f"`{metrics_run.command}`.",
            "70%"),
    }


def _benchmarks(results, out):
    """The benchmarks page; its figures are drawn into ``out`` (the page's folder)."""
    refs = _latest_references()
    aucs = _latest_tool_aucs()
    figures = {"ranksvm": _ranksvm(), "active": _active(), "squared": _a9a_squared(),
               "crr": _a9a_crr(), "metrics": _metrics()}
    drawn = _bench_figures(figures, refs, out)
    _, ranksvm, hinge, _, _ = figures["ranksvm"]
    weighted = _weighted_svm(results)
    _, wsvm, svc, svc_balanced = _wsvm_defaults()
    opauc = _opauc(results)
    md = ["# Benchmarks\n",
          "Every speed figure below comes from a script in `benchmarks/` that times birank "
          "and a reference (scikit-learn, plain NumPy, or the same computation over "
          "materialized pairs) in the same process and prints the ratio. Run them from a "
          "clone of the repository; `--data-home PATH` is the folder that holds the LIBSVM "
          "files (a9a, w8a, ...; `birank datasets fetch NAME` downloads them).\n",
          "Timings are wall seconds on a 2-core machine; compare the ratios, which do not "
          "depend on the machine as much as the absolute times do.\n",
          "\n## birank on a9a\n",
          "32,561 training rows, 123 features, 193,829,520 pairs; test on a9a.t. Ratios are "
          "against a reference run in the same process. The figures are read, when this "
          "site is built, from the latest run of each benchmark as appended to "
          "`benchmarks/results/<script>.txt` (the run column gives its date).\n",
          _a9a_table(figures, refs, results),
          *_scale_paragraphs(figures),
          drawn["scale"],
          _metrics_paragraph(figures),
          drawn["metrics"],
          "\n## The C and C++ tools on a9a\n",
          "The field's own tools on the same problems (test AUC with ties counted 1/2):\n",
          _table(["tool", "problem", "test AUC", "birank counterpart (test AUC)"], [
              ["liblinear-ranksvm 2.11 `train -s 8 -c 1`", "all-pairs RankSVM, squared hinge",
               _tool_auc(aucs, "liblinear-ranksvm -s 8 -c 1"), "`RankSVM(C=1)`: "
               + (f"{float(ranksvm['auc']):.4f}" if ranksvm else NOT_MEASURED)],
              ["SVMperf 3.00 `-c 100 -l 10 -w 3`", "ROC-area SVM, hinge",
               _tool_auc(aucs, "SVMperf -c 100 -l 10 -w 3"), "`RankSVM(loss='hinge')`: "
               + (f"{float(hinge['auc']):.4f}" if hinge else NOT_MEASURED)],
              ["sofia-ml `--loop_type combined-ranking`", "CRR, SGD",
               _tool_auc(aucs, "sofia-ml combined-ranking"),
               "`CombinedRanking`: " + _crr_auc(figures["crr"][1])],
              ["LIBLINEAR 2.50 `-s 2 -c 1 -B 1`", "point-wise L2-SVM",
               _tool_auc(aucs, "LIBLINEAR -s 2 -c 1 -B 1"),
               "`WeightedSVM`: " + (wsvm["auc"] if wsvm else NOT_MEASURED)],
              ["scikit-learn `LinearSVC(C=1)` / balanced", "point-wise",
               f"{svc['auc']} / {svc_balanced['auc']}" if svc and svc_balanced
               else NOT_MEASURED,
               "`WeightedSVM` " + (f"({weighted[1]}x LinearSVC's time)" if weighted
                                   else "(time: see below)")],
              ["OPAUC, authors' Matlab (Octave)", "one-pass AUC, squared loss", "0.900107",
               "`OPAUC`: " + (f"{opauc['auc']}, {float(opauc['cpu']):.2f} CPU s against the "
                              f"Matlab code's {opauc['matlab']} s ({float(opauc['ratio']):.0f}x)"
                              if opauc else NOT_MEASURED)],
          ]),
          "\nThe four tools' test AUCs come from `python benchmarks/bench_references.py "
          "--data-home PATH --tools DIR --only aucs` (each tool run once at the settings "
          "shown, its weights scored on a9a.t; "
          + (f"run {_dates_of(aucs)}" if aucs else "not run yet") + "); "
          "the Matlab OPAUC's test AUC and time from one run of the authors' code under "
          "Octave (not rerun by the benchmarks; the time is `OCTAVE_OPAUC_S` in "
          "`benchmarks/bench_auc_baselines.py`). birank's "
          "figures come from the commands of the a9a table above; OPAUC's from "
          "`python benchmarks/bench_auc_baselines.py` (below).\n",
          _references_section(refs),
          drawn["references"]]
    for title, name, cmd in _BENCHMARKS:
        path = results / name
        if not path.exists():
            continue
        md.append(f"\n## {title}\n\n```bash\n{cmd}\n```\n")
        text = clean(path.read_text())
        if name.endswith(".md"):
            text = text.replace("max |dw|", "max abs(dw)")  # a bar inside a cell splits it
            md.append(re.sub(r"^(#+) ", r"#\1 ", text, flags=re.M))
        else:
            md.append("```text\n" + text.rstrip() + "\n```\n")
    md.append(_solvers_section(results))
    md.append(_scale_section(results))
    md.append(_engine_section())
    return "\n".join(md)


def _weighted_svm(results):
    """``(seconds, ratio)``: WeightedSVM's a9a hinge fit and its time ratio to LinearSVC,
    from the latest ``bench_solvers.py --only 1`` run (``docs/results/solvers.log``)."""
    path = results / "solvers.log"
    found = re.findall(r"^\s*a9a\s+hinge\s+WeightedSVM\s+([\d.]+) s .*?time ratio\s+([\d.]+)",
                       path.read_text(), flags=re.M) if path.exists() else []
    return found[-1] if found else None


def _weighted_svm_time(results):
    found = _weighted_svm(results)
    if not found:
        return "see below"
    seconds, ratio = found
    return f"{float(seconds):.2f} ({ratio}x LinearSVC)"


# -- figures of the committed one-run results (docs/results) -------------------
# The tools table and the guide's "Which method" quote these; each reader returns
# None (reported, as for the latest runs above) when its file lacks the line.

def _match(path, pattern, what):
    found = re.search(pattern, path.read_text(), flags=re.M) if path.exists() else None
    if found is None:
        _report_missing(f"docs/results/{path.name}: no {what} (no line matches "
                        f"{pattern!r}); shown as '{NOT_MEASURED}'")
    return found


def _opauc(results):
    """bench_auc_baselines.py on a9a: OPAUC's CPU seconds and test AUC, and the authors'
    Matlab code's seconds with the CPU-time ratio."""
    path = results / "bench_auc_baselines.txt"
    row = _match(path, r"^OPAUC\s+(?P<s>[\d.]+)\s+(?P<cpu>[\d.]+)\s+\d+\s+(?P<auc>[\d.]+)\s",
                 "OPAUC line")
    matlab = _match(path, r"authors' Matlab.*?: (?P<matlab>[\d.]+) s -> .*?(?P<ratio>[\d.]+)x "
                          r"\(CPU s\)", "authors' Matlab line")
    return {**row.groupdict(), **matlab.groupdict()} if row and matlab else None


def _pruned(results):
    """bench_pruned.py: PrunedRankSVM against LinearSVC on the same pairs at the largest N
    (``b``, ``svc``, ``ratio``), and the RBF line at N = 3000 (all pairs: ``total``)."""
    path = results / "bench-pruned.txt"
    text = path.read_text() if path.exists() else ""
    same = list(re.finditer(r"^\s*(?P<n>\d+)\s+(?P<pairs>\d+) \|\s+(?P<b>[\d.]+)\s+\w+\s+"
                            r"(?P<svc>[\d.]+)\s+(?P<ratio>[\d.]+) \|", text, flags=re.M))
    if not same:
        _report_missing(f"docs/results/{path.name}: no PrunedRankSVM vs LinearSVC line; "
                        f"shown as '{NOT_MEASURED}'")
    rbf = _match(path, r"^rbf\s+3000 \|\s+[\d.]+\s+[\d.]+\s+(?P<total>[\d.]+) \|\s+\d+\s+\d+\s+"
                       r"(?P<pairs>\d+)", "rbf N=3000 line")
    return (max(same, key=lambda m: int(m["n"])) if same else None), rbf


def _online(results):
    """bench_online.py: CBR-diag (FIFO buffer) on a9a, one pass: CPU seconds and test AUC."""
    return _match(results / "bench_online.md", r"^\| CBR-diag FIFO \| (?P<s>[\d.]+) \| "
                  r"(?P<cpu>[\d.]+) \| [\d,]+ \| (?P<auc>[\d.]+) \|", "a9a CBR-diag FIFO row")


def _distributed(results_dir=None):
    """bench_distributed.py: ``{rows: line}``, each number of rows' latest line (RankSVM on a
    2-worker LocalCluster: ``wall``, ``cpu``: Dask's time / in-memory's)."""
    path = Path(results_dir or _RESULTS) / "bench_distributed.txt"
    latest = {}
    for _, lines in _runs(path) if path.exists() else []:
        for line in lines:
            m = re.match(r"^\s*(?P<rows>\d+)\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+\s+(?P<wall>[\d.]+)"
                         r"\s+[\d.]+\s+[\d.]+\s+(?P<cpu>[\d.]+)\s", line)
            if m:
                latest[int(m["rows"])] = m
    if not latest:
        _report_missing(f"benchmarks/results/{path.name}: no line per number of rows")
    return latest


# -- where the time goes: one benchmark per solver path ----------------------

# Each script appends one block per run to benchmarks/results/<name>.txt: a
# "# <date> ...; command: ..." header, its output, "# after: ...". The page shows
# the latest run (``only``: the latest whose command has that option), then any
# later runs of part of it (``--only``), so its figures follow the measurements.
_RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"

_ENGINE = (
    ("Threads: `n_jobs`", "bench_threads.txt", None,
     "`RankSVM(n_jobs=k)` runs the check of X's values, the sparse products, Newton's "
     "sums of score vectors, the probability calibration and, for one group, the pair "
     "sweeps on k threads (two labels: the per-row passes over the lower label's rows; "
     "more labels: the sort too); WeightedSVM's Newton solver and `roc_auc` take "
     "`n_jobs` too. Every k gives the same model. The first line is the ceiling on two "
     "cores: reading X alone, bound by memory bandwidth."),
    ("Passes over X per Newton iteration", "bench_fused_products.txt", None,
     "A Newton iteration of k CG steps reads X 2k + 1 times: the new gradient and the "
     "next preconditioner share one pass, and the direction's scores are summed from "
     "CG's own products. Against the separate passes; same iterations and objective."),
    ("0/1 features", "bench_indicator.txt", None,
     "On a CSR X of 0/1 values (one-hot columns, bags of words) the products read the "
     "indices only, never the values; the same coefficients."),
    ("Graded and real-valued labels: one level of label digits", "bench_label_levels.txt",
     None,
     "With up to 2^17 distinct label values the pair sweeps take each label's rank as one "
     "digit, instead of two levels of 10-bit digits (new / old: time of one loss "
     "evaluation and of one Hessian product, each as a multiple of X v + X' u)."),
    ("The loss sweep's Fenwick walks", "bench_limit.txt", "--heads",
     "The walks of the loss sweep's Fenwick tree stop where they end instead of running "
     "their full length (the lines \"by the walks' unconditional steps\": the default "
     "against full-length walks); each pass as a multiple of X v + X' u."),
    ("Sorting the scores, the calibration, X's value check, roc_auc's split, SPAM's L2 step",
     "bench_overheads.txt", None,
     "One array of scores is sorted by a radix kernel at every size; the calibration "
     "reads weights that are constant within a class as two numbers; a fit checks X's "
     "values (finite, not too large) in one pass, on its threads, instead of numpy's "
     "three; `roc_auc` splits the scores by class in one pass per piece of rows, on its "
     "threads; SPAM's L2 step costs O(non-zeros) a row instead of O(features)."),
    ("One core unless asked", "bench_cpu_wall.txt", None,
     "On sparse X every fit keeps to one core unless given `n_jobs`: its dot products do "
     "not go through OpenBLAS, whose idle workers would spin on the other cores (ratio = "
     "CPU / wall; 1.00 is one core). Products with a dense X are BLAS's, whose threads "
     "follow `threadpoolctl`."),
    ("Dual coordinate descent's loops", "bench_point_kernel.txt", None,
     "WeightedSVM's point kernel and the pair kernel of ActiveRankSVM's and "
     "PrunedRankSVM's pools read the rows in loops written out per layout (dense, CSR, "
     "CSR of 0/1 values): time per pass against the reference loops, same coefficients."),
    ("ActiveRankSVM's sampling rounds", "bench_soft_sample.txt", None,
     "The soft sampler scores its candidates in the same loops, without reading 0/1 values."),
    ("Unsigned indices in the CSR loops", "bench_gram.txt", None,
     "numba adds a negative-index test to every signed index; the CSR loops read row "
     "pointers and column indices unsigned (here the Newton Hessian's Gram products)."),
    ("float32 X", "bench_float32_products.txt", None,
     "A dense float32 X is read as it is and summed in float64, never copied to float64."),
    ("Reading LIBSVM text", "bench_svmlight_read.txt", "--data-home",  # (not --file runs)
     "`load_svmlight` (and `birank train/predict/evaluate`) reads text of 256 KiB and more "
     "with a compiled one-pass reader, against scikit-learn's `load_svmlight_file` on the "
     "same bytes; the same matrix, bit for bit, every number rounded as Python's "
     "`float()` rounds it (a float64 printed in full included)."),
    ("Memory", "bench_memory.txt", None,
     "The bounded-memory paths' peak against the size of X or against the naive numpy "
     "computation, in one process (and their time where the reference is a computation)."),
)


def _runs(path):
    """``[(header, lines)]``: the runs appended to a results file, in order."""
    runs = []
    for line in path.read_text().splitlines():
        if line.startswith("# 20") and ("command:" in line or "python " in line):
            runs.append((line, []))
        elif runs and not line.startswith("#") and line.strip():
            runs[-1][1].append(line)
    return runs


def _run_command(header):
    command = re.sub(r"^.*?(?:command: |: )(?=\S*python )", "", header)
    command = re.sub(r"^\S*python ", "python ", command)
    command = re.sub(r"--data-dir|--data-home", "--data-home", command)
    command = re.sub(r"--tools \S+", "--tools DIR", clean(command))
    return command


def _latest_runs(path, only=None):
    runs = [(h, lines) for h, lines in _runs(path)
            if "PYTHONPATH=" not in h and "BEFORE" not in h and lines]
    whole = [i for i, (h, _) in enumerate(runs)
             if (only in h if only else "--only" not in h)]
    if not whole:
        return []
    start = whole[-1]
    later = [r for r in runs[start + 1:] if "--only" in r[0]] if not only else []
    return [runs[start]] + later


# -- figures read from the latest run of a benchmark ---------------------------

# The a9a table and the scale and metrics paragraphs of the benchmarks page take
# every figure from the latest whole run appended to benchmarks/results/<script>.txt,
# so no figure of theirs is typed here. A figure the run does not print (no file,
# or an output line that changed) shows as "not measured" and is reported as a
# warning naming the file, which fails `make docs` (it builds with -W).

NOT_MEASURED = "not measured"


def _report_missing(message):
    from sphinx.util import logging

    logging.getLogger(__name__).warning(message)


class _LatestRun:
    """The latest whole run of ``benchmarks/results/<name>``: its date, command and output."""

    def __init__(self, name, results_dir=_RESULTS):
        self.file = f"benchmarks/results/{name}"
        path = Path(results_dir) / name
        runs = _latest_runs(path) if path.exists() else []
        self.date = runs[0][0][2:12] if runs else None
        self.command = (_run_command(runs[0][0]) if runs
                        else f"python benchmarks/{Path(name).stem}.py")
        self.text = "\n".join(runs[0][1]) if runs else ""
        if not runs:
            _report_missing(f"{self.file}: no run recorded; its figures show as "
                            f"'{NOT_MEASURED}'")

    def find(self, pattern, what):
        """The first match of ``pattern`` in the run's output; None (reported) if none."""
        found = self.find_all(pattern, what)
        return found[0] if found else None

    def find_all(self, pattern, what):
        found = list(re.finditer(pattern, self.text, flags=re.M))
        if not found and self.date is not None:
            _report_missing(f"{self.file}: its latest run ({self.date}) prints no {what} "
                            f"(no line matches {pattern!r}); shown as '{NOT_MEASURED}'")
        return found


def _pow10(value):
    """``1e+07`` -> ``10^7``; other numbers as they are."""
    exponent = np.log10(float(value))
    return f"10^{exponent:.0f}" if exponent == round(exponent) else f"{float(value):g}"


def _a9a_squared(results_dir=_RESULTS):
    """bench_squared.py on a9a: BBR (radius chosen by 5-fold CV) and LCBR with 5000 pairs."""
    run = _LatestRun("bench_squared.txt", results_dir)
    row = r"\s+(?P<s>[\d.]+)\s+(?P<auc>[\d.]+)\s*$"
    bbr = run.find(r"^BBR radius=(?P<r>[\d.]+) \(exact[^)]*\)" + row, "a9a BBR line")
    lcbr = run.find(r"^LCBR S=5000 radius=(?P<r>[\d.]+)" + row, "a9a LCBR S=5000 line")
    return run, bbr, lcbr


def _a9a_crr(results_dir=_RESULTS):
    """bench_dual_cd.py crr: CombinedRanking against SGDClassifier, one line per seed."""
    run = _LatestRun("bench_dual_cd.txt", results_dir)
    seeds = run.find_all(r"seed \d+: CombinedRanking AUC (?P<auc>[\d.]+) fit (?P<s>[\d.]+) s "
                         r"\| SGDClassifier .*? time ratio (?P<ratio>[\d.]+)",
                         "CombinedRanking seed line")
    return run, seeds


def _wsvm_defaults(results_dir=_RESULTS):
    """bench_wsvm_defaults.py: WeightedSVM's a9a test AUC at its defaults and LinearSVC's
    (plain and balanced)."""
    run = _LatestRun("bench_wsvm_defaults.txt", results_dir)
    found = run.find(r"^\s*defaults \(class_weight='balanced', C=1\)\s+AUC (?P<auc>[\d.]+)",
                     "defaults line")
    svc = run.find(r"^\s*reference LinearSVC\(C=1\)\s+AUC (?P<auc>[\d.]+)", "LinearSVC line")
    balanced = run.find(r"^\s*reference LinearSVC\(C=1, class_weight='balanced'\)\s+AUC "
                        r"(?P<auc>[\d.]+)", "balanced LinearSVC line")
    return run, found, svc, balanced


def _active(results_dir=_RESULTS):
    """bench_active.py: the a9a line and one line per number of rows."""
    run = _LatestRun("bench_active.txt", results_dir)
    a9a = run.find(r"^a9a: ActiveRankSVM soft-correct B=(?P<B>\d+) median (?P<s>[\d.]+)s "
                     r"\(test AUC (?P<auc>[\d.]+)\); LinearSVC\(C=(?P<C>[\d.]+)\) median "
                     r"(?P<svc>[\d.]+)s .*?; paper rounds: (?P<paper_s>[\d.]+)s "
                     r"\(test AUC (?P<paper_auc>[\d.]+)\)", "a9a line")
    sizes = run.find_all(r"^\s*(?P<n>\d+)\s+active\s+(?P<s>[\d.]+)s \(select (?P<select>[\d.]+)s, "
                         r"solve (?P<solve>[\d.]+)s\) auc (?P<auc>[\d.]+) .*?\| RankSVM\s+"
                         r"(?P<rk>[\d.]+)s auc (?P<rk_auc>[\d.]+) \|.*RankSVM/active "
                         r"(?P<ratio>[\d.]+)x", "line per number of rows with RankSVM")
    return run, a9a, sizes


def _ranksvm(results_dir=_RESULTS):
    """bench_ranksvm.py: a9a test AUC (squared hinge, C=1; hinge at SVMperf's -c 100), the
    largest generated size, and the growth between sizes."""
    run = _LatestRun("bench_ranksvm.txt", results_dir)
    a9a = run.find(r"^\s*test AUC (?P<auc>[\d.]+) \(liblinear-ranksvm", "a9a RankSVM(C=1) AUC")
    hinge = run.find(r"^RankSVM\(hinge, C=\S+\) fit .*test AUC (?P<auc>[\d.]+)\s+"
                       r"\(SVMperf -c 100", "a9a hinge AUC at SVMperf's -c 100")
    sizes = run.find_all(r"^== make_sparse_bipartite N=(?P<n>\S+): \d+ x (?P<d>\d+), "
                         r"nnz (?P<nnz>\d+), pairs (?P<pairs>\S+),.*\n(?:(?!==).*\n)*?"
                         r"RankSVM\s+fit\s+(?P<rk>[\d.]+) s.*\n"
                         r"LinearSVC fit\s+(?P<svc>[\d.]+) s\s+RankSVM / LinearSVC "
                         r"(?P<ratio>[\d.]+)", "generated-data block")
    growth = run.find_all(r"^N (?P<a>\S+) -> (?P<b>\S+): .*per Newton it x(?P<it>[\d.]+), .*"
                          r"N log N x(?P<nlogn>[\d.]+)", "growth line")
    return run, a9a, hinge, sizes, growth


def _metrics(results_dir=_RESULTS):
    """bench_metrics.py: roc_auc against scikit-learn per N (with the weighted line after
    it), and pairwise_accuracy."""
    run = _LatestRun("bench_metrics.txt", results_dir)
    timing = r"\s+(?P<{0}b>[\d.]+)s\s+(?P<{0}s>[\d.]+)s\s+(?P<{0}r>[\d.]+)x\s+(?P<{0}d>\S+)\s*$"
    auc = run.find_all(r"^\s*(?P<n>\d+)" + timing.format("") +
                       r"(?:\n\s*weighted" + timing.format("w") + ")?", "roc_auc line per N")
    pairwise = run.find_all(r"^pairwise_accuracy N=(?P<n>\d+), (?P<what>[^:]+):\s+(?P<s>[\d.]+)s",
                            "pairwise_accuracy line")
    return run, auc, pairwise


def _engine_section(results_dir=_RESULTS):
    md = ["\n## Where the time goes: one benchmark per solver path\n",
          "Each script times a path of the solvers against the plain version of the same "
          "computation, in alternating runs in one process, and checks that the result is "
          "the same. Below, the latest run of each, as appended to "
          "`benchmarks/results/<script>.txt`; how the paths work: {doc}`/architecture`.\n"]
    for title, name, only, text in _ENGINE:
        path = results_dir / name
        runs = _latest_runs(path, only) if path.exists() else []
        if not runs:
            continue
        md.append(f"\n### {title}\n\n{text}\n")
        for i, (header, lines) in enumerate(runs):
            if i:
                md.append("A later run of part of it, which replaces those lines:\n")
            body = "\n".join(clean(line) for line in lines)
            md.append(f"```bash\n{_run_command(header)}\n```\n\n```text\n{body}\n```\n")
    return "\n".join(md)


# The solver and scale notes in docs/results are lab notebooks (what was tried,
# what changed between runs). The page takes from them only what a user needs:
# the commands, each section's description and its current table; rows of
# earlier measurements of the same estimator are left out.

def _sections(text):
    """``[(heading, body)]`` of a markdown text split at its ``## `` headings."""
    parts = re.split(r"^## (.*)\n", text, flags=re.M)
    out = [("", parts[0])]
    out += [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts) - 1, 2)]
    return out


def _blocks(body):
    """Paragraphs, tables and indented code blocks of a markdown body, in order."""
    return [b.strip("\n") for b in re.split(r"\n\s*\n", body) if b.strip()]


def _tables(body):
    return [b + "\n" for b in _blocks(body) if b.lstrip().startswith("|")]


def _first_paragraph(body):
    for b in _blocks(body):
        if not b.lstrip().startswith(("|", "#", "    ", "```")):
            return b
    return ""


def _bench_command(line):
    """A command line from a notebook, as a user types it from a clone."""
    line = re.sub(r"^\s*(?:PYTHONPATH=\S+\s+)?", "", line)
    return re.sub(r"\s+#.*$", "", line).rstrip()


def _current_rows(table):
    """One row per estimator: its last measurement, without the run's label in
    parentheses ("(earlier)", "(before ...)", ...) after the estimator name."""
    lines = table.splitlines()
    head, rows = lines[:2], lines[2:]
    latest = {}
    for row in rows:
        cells = row.split("|")
        name = re.sub(r"\s*\(.*\)\s*$", "", cells[1].strip())
        cells[1] = f" {name} "
        latest[name] = "|".join(cells)          # later rows replace earlier ones
    return "\n".join(head + list(latest.values())) + "\n"


def _solvers_section(results):
    path = results / "solvers.md"
    if not path.exists():
        return ""
    sections = _sections(clean(path.read_text()))
    intro = sections[0][1]
    commands = [_bench_command(line) for line in intro.splitlines()
                if re.match(r"\s+(?:PYTHONPATH=\S+\s+)?python benchmarks/", line)]
    md = ["\n## Solvers against LIBLINEAR, liblinear-ranksvm and SVMperf\n",
          "Each solver against the tool a user would pick instead, with the time ratio and "
          "the objective gap. The C tools' times are their published a9a figures scaled by "
          "this machine's `LinearSVC(C=1)` time on a9a against theirs (0.19 s).\n",
          "```bash\n" + "\n".join(dict.fromkeys(commands)) + "\n```\n"]
    if _tables(intro):
        md.append(_tables(intro)[0])
    for heading, body in sections[1:]:
        md.append(f"\n### {heading}\n")
        paragraph = _first_paragraph(body)
        if paragraph:
            md.append(re.sub(r"\s*\((?:all three )?in [\w.-]+\.log\)", "", paragraph) + "\n")
        tables = _tables(body)
        if tables:
            md.append(tables[0])
    return "\n".join(md)


def _scale_section(results):
    path = results / "scale.md"
    if not path.exists():
        return ""
    sections = dict(_sections(clean(path.read_text())))

    def find(prefix):
        return next((body for heading, body in sections.items() if heading.startswith(prefix)),
                    "")

    md = ["\n## Scale: time and memory from 10^4 to 10^7 rows\n",
          "`benchmarks/bench_scale.py` fits every estimator in a fresh subprocess on "
          "generated sparse data (`make_sparse_bipartite`, float32 CSR) and records the fit "
          "time and the peak resident memory above the data: `peak/X` is (size of X + that "
          "extra memory) / size of X, where the size of X counts its data, indices and "
          "indptr. Test AUC is measured on 200,000 held-out rows of the same planted "
          "ranker.\n"]
    growth = find("Growth")
    if _tables(growth):
        md += ["\n### Growth with N\n",
               "```bash\npython benchmarks/bench_scale.py growth --max-n 1e7\n```\n",
               "Sparse data, 1000 features, 20 non-zeros a row. Each cell: fit seconds "
               "(peak/X); the exponent is the slope of log time on log N (the 10^4 points are "
               "dominated by fixed costs such as loading the compiled kernels). "
               "\"ActiveRankSVM: sampling + solver\" is the part of the same fits that the "
               "budget bounds.\n", _tables(growth)[0]]
        if (results / "scale" / "scale-growth.png").exists():
            md.append(_figure("scale/scale-growth.png", "Fit time against N."))
    for prefix, title, command in (
            ("url", "url-shaped data: 2,400,000 rows, 3,200,000 features, 115 non-zeros a row",
             "python benchmarks/bench_scale.py big --dataset url --dtype float32"),
            ("10^7", "10^7 rows, 10^6 features, 50 non-zeros a row",
             "python benchmarks/bench_scale.py big --dataset sparse1e7 --dtype float32")):
        tables = _tables(find(prefix))
        if tables:
            md += [f"\n### {title}\n", f"```bash\n{command}\n```\n",
                   _current_rows(tables[0])]
    md.append("\nOn the url-shaped data every method's test AUC is low because the data are "
              "hard (3.2 x 10^6 planted weights, each learned from about 86 rows), not because "
              "of the methods: compare the methods with each other.\n")
    dask = _tables(find("Dask"))
    if dask:
        md += ["\n### Dask (LocalCluster, 2 workers) against in-memory\n",
               "```bash\npython benchmarks/bench_scale.py dask --n 1e6\n```\n", dask[0],
               "\nOn one 2-core machine the Dask versions are slower than in-memory "
               "(scheduling and serializing the blocks; BBR's `solver=\"cg\"` pays a cluster "
               "round trip per product). Their point is data that do not fit on one machine; "
               "they give the same numbers as the in-memory fits (to 1e-10 for the exact "
               "methods, bit-identical for the sampled ones).\n"]
    return "\n".join(md)


# -- command line reference ---------------------------------------------------

def _cli():
    import os

    from birank.cli import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "92"
    try:
        parser = build_parser(["reproduce"])
        md = ["# Command-line reference\n",
              "The output of `birank COMMAND --help` for every command, generated from the "
              "installed version when the site is built. The guide to the command line is "
              "{doc}`/guide/cli`.\n",
              "```text\n" + clean(parser.format_help()).rstrip() + "\n```\n"]
        sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
        for name, command in sub.choices.items():
            md.append(f"\n## birank {name}\n\n```text\n{clean(command.format_help()).rstrip()}\n```\n")
            inner = [a for a in command._actions if a.__class__.__name__ == "_SubParsersAction"]
            for action in inner:
                for sub_name, sub_command in action.choices.items():
                    md.append(f"\n### birank {name} {sub_name}\n\n```text\n"
                              f"{clean(sub_command.format_help()).rstrip()}\n```\n")
        return "\n".join(md)
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


# -- API pages listed from __all__ --------------------------------------------

BUILDING_BLOCKS = (("birank.pairs", "Pair spaces"), ("birank.base", "Mixins and checks"),
                   ("birank.exceptions", "Errors"))


HAND_PAGES = ("batch", "online", "active_learning", "metrics", "model_selection", "datasets",
              "model_io", "distributed")
API_MODULES = ("birank", "birank.metrics", "birank.model_selection", "birank.datasets",
               "birank.model_io", "birank.distributed", "birank.online", "birank.active_learning")


def _listed(api_dir):
    """``{module: names}`` listed on the hand-written API pages (autosummary/autodata)."""
    listed = {}
    for page in HAND_PAGES:
        path = api_dir / f"{page}.rst"
        if not path.exists():
            continue
        module = None
        for line in path.read_text().splitlines():
            m = re.match(r"\.\. currentmodule:: (\S+)", line)
            if m:
                module = m.group(1)
            m = re.match(r"(?:   |\.\. autodata:: )(\w+)$", line)
            if m and module:
                listed.setdefault(module, set()).add(m.group(1))
    return listed


def _unlisted(api_dir):
    """Public names no hand-written page lists yet (a name added since the pages were
    written still gets a page, here; tests/test_docs.py checks every name has one)."""
    import importlib

    listed = _listed(api_dir)
    documented = set()
    for module, names in listed.items():
        mod = importlib.import_module(module)
        documented |= {id(getattr(mod, n)) for n in names if hasattr(mod, n)}
    out = {}
    for module in API_MODULES:
        mod = importlib.import_module(module)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if name not in listed.get(module, set()) and not (callable(obj) and id(obj) in documented):
                out.setdefault(module, []).append(name)
    return out


def _building_blocks(api_dir=None):
    import importlib

    out = ["Building blocks", "===============", "",
           "Pair spaces, estimator mixins and the error type, for users who write their own",
           "rankers on top of birank. Each list is the module's ``__all__`` (this page is",
           "generated when the site is built).", ""]
    for modname, title in BUILDING_BLOCKS:
        mod = importlib.import_module(modname)
        heading = f"{title} (``{modname}``)"
        out += [f".. module:: {modname}", "", heading, "-" * len(heading), "",
                f".. currentmodule:: {modname}", "", ".. autosummary::",
                "   :toctree: generated", "   :nosignatures:", ""]
        out += [f"   {name}" for name in mod.__all__] + [""]
    extra = _unlisted(api_dir) if api_dir is not None else {}
    if extra:
        out += ["More public names", "-----------------", "",
                "Public names not yet sorted into the sections of the API reference.", ""]
        for modname, names in extra.items():
            out += [f".. currentmodule:: {modname}", "", ".. autosummary::",
                    "   :toctree: generated", "   :nosignatures:", ""]
            out += [f"   {name}" for name in names] + [""]
    return "\n".join(out) + "\n"


# -- changelog -----------------------------------------------------------------

def _changelog(srcdir):
    path = srcdir.parent / "CHANGELOG.md"
    text = clean(path.read_text()) if path.exists() else "# Changelog\n\nNo release yet.\n"
    # repository paths in the changelog become links to the site's pages
    text = text.replace("`docs/conventions.md`", "{doc}`/conventions`") \
        if (srcdir / "conventions.md").exists() else text
    text = re.sub(r"(?<![`/])docs/conventions\.md", "{doc}`/conventions`", text) \
        if (srcdir / "conventions.md").exists() else text
    return text + "\n\nThe policy behind these entries: {doc}`/versioning`.\n"


# -- notes toctree -------------------------------------------------------------

NOTES = (("reliability", "Reliability guarantees"), ("conventions", "API conventions"),
         ("distributed", "Dask notes"), ("active_sampling", "Active sampling: strategy guide"),
         ("architecture", "Architecture"), ("references", "References"))


def _notes(srcdir):
    present = [name for name, _ in NOTES if (srcdir / f"{name}.md").exists()]
    lines = ["# Project notes\n",
             "Notes kept beside the code: the guarantees the test suite checks, the API "
             "conventions every estimator follows, and how the library is built.\n",
             "```{toctree}\n:maxdepth: 1\n"] + [f"../{n}" for n in present] + ["```\n"]
    return "\n".join(lines)


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def generate_all(srcdir):
    srcdir = Path(srcdir)
    out = srcdir / "generated"
    results = srcdir / "results"
    written = []
    for name, build in REPRODUCTIONS:
        text = build(results)
        if text:
            # further reports of the same paper (e.g. "<paper>-theory.md") follow the main one
            for extra in sorted(results.glob(f"{name}-*.md")):
                if extra.stem in _REPORT_PAGE:
                    continue  # already part of the page
                title = re.match(r"# (.*)", extra.read_text())
                report = _report(results, extra.stem)
                text += report.replace("## The run's full report",
                                       f"## {title.group(1) if title else extra.stem}")
            _write(out / f"{name}.md", text)
            written.append(name)
    index = ["# Reproductions\n",
             "Five papers' experiments, rerun with birank. Each page rebuilds the paper's "
             "tables from the run's JSON results (`docs/results/*.json`) when the site is "
             "built, beside the numbers printed in the paper, then shows the figures and the "
             "run's full report. Each is rerun with `birank reproduce NAME --data-home PATH` "
             "(add `--quick` for a smaller run).\n",
             "```{toctree}\n:maxdepth: 1\n"] + written + ["```\n"]
    _write(out / "index.md", "\n".join(index))
    _write(out / "benchmarks.md", _benchmarks(results, out))
    _write(out / "measured.inc", _measured_table(results))
    _write(out / "notes.md", _notes(srcdir))
    _write(out / "cli.md", _cli())
    _write(out / "changelog.md", _changelog(srcdir))
    _write(srcdir / "api" / "advanced.rst", _building_blocks(srcdir / "api"))


# -- links in notes to repository files ----------------------------------------

_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def rewrite_repo_links(docname, text, srcdir):
    """Markdown links to files that are not pages of the site become code spans."""
    srcdir = Path(srcdir)
    here = (srcdir / docname).parent

    def fix(m):
        label, target = m.group(1), m.group(2)
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        path = target.split("#")[0]
        candidates = [here / path, srcdir.parent / path, srcdir / path]
        for c in candidates:
            c = c.resolve()
            if c.suffix in (".md", ".rst") and c.exists() and srcdir in c.parents:
                rel = Path(*([".."] * len(here.relative_to(srcdir).parts))) if here != srcdir \
                    else Path(".")
                return f"[{label}]({(rel / c.relative_to(srcdir)).as_posix()}" + \
                    (f"#{target.split('#', 1)[1]}" if "#" in target else "") + ")"
            if c.suffix == ".png" and c.exists() and srcdir in c.parents:
                return m.group(0)
        if label.strip("`") == path or label.strip("`").endswith(Path(path).name):
            return f"`{label.strip('`')}`"
        return f"{label} (`{path}`)"

    if docname.startswith(("api/", "auto_examples/")) or not (srcdir / f"{docname}.md").exists():
        return text
    if docname in {name for name, _ in NOTES}:  # notes kept for the repository: site wording
        text = clean(text)
    return _LINK.sub(fix, text)
