"""gultekin-paisley's bounds against what the simulation of section 5.1 observes.

For the two-class Gaussian mixture of section 5.1 (K = 1, sigma = 2, D = 2, 1000 +
1000 samples, rho = 1/2, ball radius W*) every quantity the bounds speak of is
computable exactly: the population phi-risk R(w) = 1/2 - mu'w + 1/2 w'Sigma w, the
sample risk R_N from the all-pairs moments, the subsample moments of LCBR. Per
repetition we record

- Lemma 1: sup_{|w| <= W*} |R(w) - R_N(w)| (exactly: a quadratic on the disc,
  maximized on a fine polar grid);
- Theorem 1: the excess risk R(w_N) - R(w*) of BBR;
- Lemma 2: sup |Delta_Sigma| = W*^2 ||Sigma_S - Sigma_N||_2 and sup |Delta_sigma| =
  2 W* ||mu_N - mu_S|| for LCBR's S sampled pairs (both suprema in closed form);
- Theorems 2-3: R_N(w_S) - R_N(w_N) and R(w_S) - R(w*) for each S,

and compare each 95th percentile with the epsilon at which the bound's probability
reaches delta = 0.05. The bounds need X* (a bound on |x|): the data are Gaussian, so
we use the largest |x| of the sample (the bound then holds on that sample's support);
and a covering number of the ball, which the paper does not give: we use the
standard volumetric C_S(r) = (1 + 2 W* / r)^D. Eq. (11) and (17) are also solved for
the S they require at a given epsilon, against the smallest S on the grid at which
95% of the repetitions reach that epsilon.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .._typing import StrPath

__all__ = ["run_theory", "theory_markdown", "plot_theory", "link_section"]

#: markers of the pointer section :func:`link_section` keeps in the main report
_BEGIN, _END = "<!-- theory-check -->", "<!-- /theory-check -->"

DELTA = 0.05
S_GRID = (10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000)


def _covering(r, W, D):
    return (1.0 + 2.0 * W / r) ** D


def _solve_eps(prob, hi=1e12):
    """Smallest epsilon with prob(epsilon) <= DELTA (prob decreasing), by bisection in log."""
    lo_, hi_ = 1e-12, hi
    if prob(hi_) > DELTA:
        return float("inf")
    for _ in range(200):
        mid = np.sqrt(lo_ * hi_)
        if prob(mid) > DELTA:
            lo_ = mid
        else:
            hi_ = mid
    return hi_


def _constants(X, W):
    X_star = float(np.sqrt((X * X).sum(axis=1)).max())
    return X_star, 8 * X_star ** 2 * W + 4 * X_star, 3 * X_star ** 2 * W ** 2 + 2 * X_star * W


def bound_lemma1(X_star, C1, C2, W, D, rho, N):
    return _solve_eps(lambda e: 2 * _covering(e / (2 * C1), W, D)
                      * np.exp(-(e * e / (2 * C2 * C2)) * rho * (1 - rho) * N))


def bound_theorem1(X_star, C1, C2, W, D, rho, N):
    return _solve_eps(lambda e: 2 * _covering(e / (4 * C1), W, D)
                      * np.exp(-(e * e / (8 * C2 * C2)) * rho * (1 - rho) * N))


def bound_lemma2(S, sig_norm, X_star, W, D):
    """(epsilon for |Delta_Sigma| from (i), epsilon for |Delta_sigma| from (ii)) at DELTA."""
    e1 = _solve_eps(lambda e: 2 * D * np.exp(-S * e * e / (8 * sig_norm * X_star ** 2 * W ** 4
                                                         + (16 / 3) * e * X_star ** 2 * W ** 2)))
    # (ii): 2 exp(-1/2 (e sqrt(S) / (2 X W) - 1)^2) <= delta, for e sqrt(S) > 2 X W
    e2 = 2 * X_star * W * (np.sqrt(2 * np.log(2 / DELTA)) + 1) / np.sqrt(S)
    return e1, e2


def s_required(eps, sig_norm, X_star, W, D, eq="11"):
    """S that eq. (11) (Theorem 2, delta) or eq. (17) (Theorem 3, p* = delta) require."""
    if eq == "11":
        a = np.log(4 * D / DELTA) * (sig_norm * X_star ** 2 * W ** 4
                                     + eps * X_star ** 2 * W ** 2 / 3) / (eps ** 2 / 32)
        b = X_star ** 2 * W ** 2 / (eps ** 2 / 4) * (np.sqrt(2 * np.log(4 / DELTA)) + 1) ** 2
    else:
        a = np.log(4 * D / DELTA) * (sig_norm * X_star ** 2 * W ** 4
                                     + eps * X_star ** 2 * W ** 2 / 15) / (eps ** 2 / 800)
        b = X_star ** 2 * W ** 2 / (eps ** 2 / 100) * (np.sqrt(2 * np.log(4 / DELTA)) + 1) ** 2
    return float(max(a, b))


def _risk(mu, sig, w):
    return float(0.5 - mu @ w + 0.5 * w @ sig @ w)


def _sup_quadratic_on_disc(dmu, dsig, W, n_r=60, n_t=720):
    """sup_{|w| <= W} |-dmu'w + 1/2 w'dsig w| (D = 2) on a polar grid (fine enough that
    the grid error is far below the deviations measured)."""
    r = np.linspace(0.0, W, n_r)[:, None]
    t = np.linspace(0.0, 2 * np.pi, n_t, endpoint=False)[None, :]
    w1, w2 = (r * np.cos(t)).ravel(), (r * np.sin(t)).ravel()
    val = (-dmu[0] * w1 - dmu[1] * w2
           + 0.5 * (dsig[0, 0] * w1 * w1 + 2 * dsig[0, 1] * w1 * w2 + dsig[1, 1] * w2 * w2))
    return float(np.abs(val).max())


def run_theory(*, repetitions: int = 50, radius: float = 1.0, random_state: int = 0,
               report: Callable[[int, int | None, str], object] | None = None,
               ) -> dict[str, Any]:
    """The bounds of Lemmas 1-2 and Theorems 1-3 against the simulation of section 5.1.

    Parameters
    ----------
    repetitions : int, default=50
        Samples of the mixture (K = 1, sigma = 2, D = 2, N = 2000, rho = 1/2).
    radius : float, default=1.0
        The ball radius W*.
    random_state : int, default=0
        Seeds the samples: repetition r draws from a Generator seeded with
        ``random_state + 7000 + r`` (an int, not a Generator, so that each repetition
        can be rerun alone).
    report : callable, default=None
        ``report(step, total, message)`` after each repetition.

    Returns
    -------
    th : dict
        Per statement the observed 95th percentile (``observed_q95``) and the
        bound's epsilon at delta = 0.05 (``bound_eps``), per S of ``S_grid``
        (``lemma2``, ``theorems23``), the S that eq. (11) and (17) require
        (``s_required``), the constants, and the per-repetition values (``raw``).

    Examples
    --------
    >>> from birank.experiments.gultekin_theory import run_theory
    >>> th = run_theory(repetitions=2)
    >>> th["repetitions"], bool(th["lemma1"]["bound_eps"] > th["lemma1"]["observed_q95"])
    (2, True)
    """
    from ..datasets import make_gaussian_mixture
    from ..solvers.ball_quadratic import solve_ball_quadratic_eigh
    from ..solvers.pair_moments import (ClassMoments, all_pairs_moments, draw_pairs,
                                        sampled_pair_sums, update_class_moments)

    W, D, N, rho = float(radius), 2, 2000, 0.5
    rec: dict[str, Any] = {"lemma1_obs": [], "thm1_obs": [], "lemma2_sig": {s: [] for s in S_GRID},
           "lemma2_mu": {s: [] for s in S_GRID}, "thm2_obs": {s: [] for s in S_GRID},
           "thm3_obs": {s: [] for s in S_GRID}, "X_star": [], "sig_norm": []}
    for rep in range(repetitions):
        rng = np.random.default_rng(random_state + 7000 + rep)
        X, y, params = make_gaussian_mixture(N, n_features=D, n_components=1, sigma=2.0,
                                             rho=rho, random_state=rng)
        y01 = y.astype(np.int8)
        mu_p, sig_p = params.pair_moments()
        pos, neg = update_class_moments(ClassMoments(D), ClassMoments(D), X, y01)
        mu_n, sig_n = all_pairs_moments(pos, neg)
        w_star = solve_ball_quadratic_eigh(sig_p, mu_p, W).w
        w_n = solve_ball_quadratic_eigh(sig_n, mu_n, W).w
        X_star = float(np.sqrt((X * X).sum(axis=1)).max())
        rec["X_star"].append(X_star)
        rec["sig_norm"].append(float(np.linalg.norm(sig_n, 2)))
        rec["lemma1_obs"].append(_sup_quadratic_on_disc(mu_n - mu_p, sig_n - sig_p, W))
        rec["thm1_obs"].append(_risk(mu_p, sig_p, w_n) - _risk(mu_p, sig_p, w_star))
        for s in S_GRID:
            a, b = draw_pairs(rng, np.flatnonzero(y01 == 1), np.flatnonzero(y01 == 0), s)
            sz, szz = sampled_pair_sums(X, a, b)
            mu_s, sig_s = sz / s, szz / s
            w_s = solve_ball_quadratic_eigh(sig_s, mu_s, W).w
            rec["lemma2_sig"][s].append(W * W * float(np.linalg.norm(sig_s - sig_n, 2)))
            rec["lemma2_mu"][s].append(2 * W * float(np.linalg.norm(mu_n - mu_s)))
            rec["thm2_obs"][s].append(_risk(mu_n, sig_n, w_s) - _risk(mu_n, sig_n, w_n))
            rec["thm3_obs"][s].append(_risk(mu_p, sig_p, w_s) - _risk(mu_p, sig_p, w_star))
        if report is not None:
            report(rep + 1, repetitions, f"theory rep {rep + 1}/{repetitions}")
    X_star, sig_norm = float(np.median(rec["X_star"])), float(np.median(rec["sig_norm"]))
    C1 = 8 * X_star ** 2 * W + 4 * X_star
    C2 = 3 * X_star ** 2 * W ** 2 + 2 * X_star * W
    q = lambda v: float(np.quantile(v, 1 - DELTA))  # noqa: E731
    out: dict[str, Any] = {"repetitions": repetitions, "radius": W, "D": D, "N": N, "rho": rho,
           "X_star": X_star, "sig_norm": sig_norm, "C1": C1, "C2": C2, "delta": DELTA,
           "lemma1": {"observed_q95": q(rec["lemma1_obs"]),
                      "bound_eps": bound_lemma1(X_star, C1, C2, W, D, rho, N)},
           "theorem1": {"observed_q95": q(rec["thm1_obs"]),
                        "bound_eps": bound_theorem1(X_star, C1, C2, W, D, rho, N)},
           "S_grid": list(S_GRID), "lemma2": [], "theorems23": []}
    for s in S_GRID:
        e1, e2 = bound_lemma2(s, sig_norm, X_star, W, D)
        out["lemma2"].append({"S": s, "sig_observed_q95": q(rec["lemma2_sig"][s]),
                              "sig_bound_eps": e1, "mu_observed_q95": q(rec["lemma2_mu"][s]),
                              "mu_bound_eps": e2})
        out["theorems23"].append({"S": s, "thm2_observed_q95": q(rec["thm2_obs"][s]),
                                  "thm3_observed_q95": q(rec["thm3_obs"][s])})
    out["s_required"] = []
    for eps in (1e-1, 1e-2, 1e-3, 1e-4):
        emp2 = next((r["S"] for r in out["theorems23"] if r["thm2_observed_q95"] <= eps), None)
        emp3 = next((r["S"] for r in out["theorems23"] if r["thm3_observed_q95"] <= eps), None)
        out["s_required"].append({
            "eps": eps, "eq11": s_required(eps, sig_norm, X_star, W, D, "11"),
            "eq17": s_required(eps, sig_norm, X_star, W, D, "17"),
            "empirical_thm2": emp2, "empirical_thm3": emp3,
            "thm3_floor": out["theorem1"]["observed_q95"]})
    out["raw"] = {k: (v if not isinstance(v, dict) else {str(s): x for s, x in v.items()})
                  for k, v in rec.items()}
    return out


def theory_markdown(th: Mapping[str, Any], *, figure: str | None = None) -> str:
    """The theory report (``gultekin-paisley-theory.md``) of :func:`run_theory`'s results.

    Parameters
    ----------
    th : dict
        From :func:`run_theory`.
    figure : str, default=None
        A figure (of :func:`plot_theory`) the report shows, relative to it.

    Returns
    -------
    text : str
        Markdown.

    Examples
    --------
    >>> from birank.experiments.gultekin_theory import run_theory, theory_markdown
    >>> theory_markdown(run_theory(repetitions=2)).splitlines()[0]
    '# Gultekin & Paisley — the risk bounds against the simulation'
    """
    from ._report import markdown_table

    f = lambda v: "∞" if not np.isfinite(v) else f"{v:.3g}"  # noqa: E731
    lines = ["# Gultekin & Paisley — the risk bounds against the simulation\n",
             f"Produced by `birank reproduce gultekin --part theory` (module "
             f"`birank.experiments.gultekin_theory`). Gaussian mixture of section 5.1 with "
             f"K = 1, σ = 2, D = {th['D']}, N = {th['N']} (ρ = {th['rho']}), W* = "
             f"{th['radius']}, {th['repetitions']} repetitions. Every risk is exact "
             "(population moments, sample moments), so the only randomness is the "
             f"sample. Each row compares the observed {100 * (1 - th['delta']):.0f}th "
             f"percentile of a deviation with the ε at which the bound's probability "
             f"falls to δ = {th['delta']}: a bound holds if ε ≥ observed, and the ratio "
             "says how loose it is. Constants: X* = the largest |x| of the sample "
             f"(median {th['X_star']:.2f}: the data are Gaussian, unbounded), C1 = "
             f"{th['C1']:.1f}, C2 = {th['C2']:.1f}, ||Σ_N||₂ = {th['sig_norm']:.2f}; the "
             "covering number C_S(r) = (1 + 2W*/r)^D (the paper does not give one).\n",
             "## Lemma 1 and Theorem 1 (BBR)\n",
             markdown_table(["statement", "observed q95", "bound ε (δ = 0.05)",
                             "bound / observed"],
                            [["Lemma 1: sup_w |R(w) − R_N(w)|",
                              f(th["lemma1"]["observed_q95"]), f(th["lemma1"]["bound_eps"]),
                              f(th["lemma1"]["bound_eps"] / th["lemma1"]["observed_q95"])],
                             ["Theorem 1: R(w_N) − R(w*)",
                              f(th["theorem1"]["observed_q95"]),
                              f(th["theorem1"]["bound_eps"]),
                              f(th["theorem1"]["bound_eps"]
                                / max(th["theorem1"]["observed_q95"], 1e-300))]]),
             "\n## Lemma 2 (LCBR's subsample moments)\n",
             markdown_table(["S", "sup|Δ_Σ| observed", "(i) ε", "ratio",
                             "sup|Δ_σ| observed", "(ii) ε", "ratio"],
                            [[r["S"], f(r["sig_observed_q95"]), f(r["sig_bound_eps"]),
                              f(r["sig_bound_eps"] / r["sig_observed_q95"]),
                              f(r["mu_observed_q95"]), f(r["mu_bound_eps"]),
                              f(r["mu_bound_eps"] / r["mu_observed_q95"])]
                             for r in th["lemma2"]]),
             "\n## Theorems 2 and 3: the S they require against the S LCBR needs\n",
             "Observed q95 per S of R_N(w_S) − R_N(w_N) (Theorem 2: LCBR against BBR on "
             "the sample) and R(w_S) − R(w*) (Theorem 3: LCBR's excess risk):\n",
             markdown_table(["S", "R_N(w_S) − R_N(w_N)", "R(w_S) − R(w*)"],
                            [[r["S"], f(r["thm2_observed_q95"]), f(r["thm3_observed_q95"])]
                             for r in th["theorems23"]]),
             "\nS required by eq. (11) (Theorem 2, δ = 0.05) and eq. (17) (Theorem 3, "
             "p* = 0.05) for a target ε, against the smallest S of the grid at which 95% "
             "of the repetitions reach ε (— : not reached up to S = "
             f"{th['S_grid'][-1]}; Theorem 3's excess risk cannot fall below BBR's own, "
             f"q95 {f(th['theorem1']['observed_q95'])}):\n",
             markdown_table(["ε", "eq. (11) S", "observed S (Thm 2)", "eq. (17) S",
                             "observed S (Thm 3)"],
                            [[f"{r['eps']:g}", f(r["eq11"]),
                              "—" if r["empirical_thm2"] is None else r["empirical_thm2"],
                              f(r["eq17"]),
                              "—" if r["empirical_thm3"] is None else r["empirical_thm3"]]
                             for r in th["s_required"]])]
    lem, thm = th["lemma1"], th["theorem1"]
    ratios = ([("Lemma 1", lem["bound_eps"] / lem["observed_q95"]),
               ("Theorem 1", thm["bound_eps"] / max(thm["observed_q95"], 1e-300))]
              + [(f"Lemma 2 (i) at S = {r['S']}", r["sig_bound_eps"] / r["sig_observed_q95"])
                 for r in th["lemma2"]]
              + [(f"Lemma 2 (ii) at S = {r['S']}", r["mu_bound_eps"] / r["mu_observed_q95"])
                 for r in th["lemma2"]])
    fails = [n for n, v in ratios if v < 1]
    lem2 = [v for n, v in ratios if n.startswith("Lemma 2")]
    above = [r for r in th["s_required"] if r["empirical_thm2"]]
    lines += ["\n## Reading\n",
              ("- Every bound holds here (no ratio below 1). " if not fails else
               f"- A bound fails here (ratio below 1): {', '.join(fails)}. ")
              + f"Lemma 1's ε is {ratios[0][1]:.3g}x the observed deviation and Theorem 1's "
              f"{ratios[1][1]:.3g}x the observed excess risk"
              + ("; both ε exceed the whole range of the risk (R(0) = 1/2), so at this N "
                 "Theorem 1 says nothing." if min(lem["bound_eps"], thm["bound_eps"]) > 0.5
                 else ".")
              + " The constants C1, C2 grow with powers of X*, and the cover adds a union "
              "bound.",
              f"- Lemma 2 is within {min(lem2):.3g}x-{max(lem2):.3g}x of the observed "
              "deviation of the subsample moments over the S grid.",
              ("- Eq. (11) asks for S between "
               f"{min(r['eq11'] / r['empirical_thm2'] for r in above):.3g}x and "
               f"{max(r['eq11'] / r['empirical_thm2'] for r in above):.3g}x the S at which "
               "LCBR reached ε on 95% of the repetitions (eq. (17) "
               f"{min(r['eq17'] / r['eq11'] for r in above):.3g}x more again). The bounds do "
               "not grow with N1 N0, as the paper argues, but their constants do not "
               "describe the practice." if above else
               "- LCBR reached none of the ε targets on the grid.") + "\n"]
    if figure:
        lines.append(f"![bounds]({figure})\n")
    return "\n".join(lines)


def plot_theory(th: Mapping[str, Any], path: StrPath) -> Path:
    """Lemma 2's bounds and the S of eq. (11) and (17) against the observed, as a PNG.

    Parameters
    ----------
    th : dict
        From :func:`run_theory`.
    path : str or os.PathLike
        The PNG file.

    Returns
    -------
    path : pathlib.Path

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.experiments.gultekin_theory import plot_theory, run_theory
    >>> plot_theory(run_theory(repetitions=2), os.path.join(tempfile.mkdtemp(), "t.png")).name
    't.png'
    """
    from ._report import new_figure, save_figure

    fig, axes = new_figure(2, ncols=2, size=3.4)
    S = np.array(th["S_grid"], float)
    ax = axes[0]
    ax.loglog(S, [r["sig_observed_q95"] for r in th["lemma2"]], "o-", label="sup|Δ_Σ| observed")
    ax.loglog(S, [r["sig_bound_eps"] for r in th["lemma2"]], "--", label="Lemma 2 (i) ε")
    ax.loglog(S, [r["mu_observed_q95"] for r in th["lemma2"]], "s-", label="sup|Δ_σ| observed")
    ax.loglog(S, [r["mu_bound_eps"] for r in th["lemma2"]], ":", label="Lemma 2 (ii) ε")
    ax.set(xlabel="S", title="Lemma 2: q95 vs bound (δ = 0.05)")
    ax.legend(fontsize=7)
    ax = axes[1]
    eps = np.array([r["eps"] for r in th["s_required"]])
    ax.loglog(eps, [r["eq11"] for r in th["s_required"]], "--", label="eq. (11)")
    ax.loglog(eps, [r["eq17"] for r in th["s_required"]], ":", label="eq. (17)")
    obs = [(r["eps"], r["empirical_thm2"]) for r in th["s_required"] if r["empirical_thm2"]]
    if obs:
        ax.loglog(*zip(*obs), "o-", label="observed (Thm 2)")
    ax.set(xlabel="ε", ylabel="S", title="S required vs S needed")
    ax.invert_xaxis()
    ax.legend(fontsize=7)
    return save_figure(fig, path)


def link_section(main_md: StrPath, th: Mapping[str, Any], theory_name: str) -> Path | None:
    """Put (or replace) a short section pointing to the theory report into ``main_md``.

    The section goes before the report's ``Files:`` line (else at its end).

    Parameters
    ----------
    main_md : str or os.PathLike
        The main report (rewritten in place).
    th : dict
        From :func:`run_theory`.
    theory_name : str
        The theory report's file name, as the section names it.

    Returns
    -------
    path : pathlib.Path or None
        ``main_md``; None when it does not exist (nothing written).

    Examples
    --------
    >>> import os, tempfile
    >>> from birank.experiments.gultekin_theory import link_section, run_theory
    >>> main = os.path.join(tempfile.mkdtemp(), "main.md")
    >>> with open(main, "w") as fh:
    ...     _ = fh.write("# Report\\n\\nFiles: main.md\\n")
    >>> th = run_theory(repetitions=2)
    >>> text = link_section(main, th, "theory.md").read_text()
    >>> link_section(main, th, "theory.md").read_text() == text  # replaced, not added
    True
    >>> text.count("## Theory checked numerically"), text.rstrip().endswith("Files: main.md")
    (1, True)
    """
    p = Path(main_md)
    if not p.exists():
        return None
    text = p.read_text()
    lem, thm = th["lemma1"], th["theorem1"]
    block = (f"{_BEGIN}\n## Theory checked numerically (Lemmas 1-2, Theorems 1-3)\n\n"
             f"In `{theory_name}`: on section 5.1's mixture (K = 1, σ = 2, "
             f"{th['repetitions']} repetitions) Theorem 1's ε at δ = 0.05 is "
             f"{thm['bound_eps']:.3g} against an observed 95th-percentile excess risk of "
             f"{thm['observed_q95']:.3g}; Lemma 1's {lem['bound_eps']:.3g} against "
             f"{lem['observed_q95']:.3g}; eq. (11) asks for S = "
             f"{th['s_required'][1]['eq11']:.3g} at ε = 0.01, where LCBR needed "
             f"{th['s_required'][1]['empirical_thm2']}.\n{_END}\n")
    if _BEGIN in text:
        a, b = text.index(_BEGIN), text.index(_END) + len(_END) + 1
        text = text[:a] + block + text[b:]
    else:
        text = text.replace("\nFiles: ", "\n" + block + "\nFiles: ", 1) \
            if "\nFiles: " in text else text + "\n" + block
    p.write_text(text)
    return p
