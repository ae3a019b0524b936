"""The decision threshold of a ranker without a learned bias is Platt's midpoint: the score
where the two-parameter sigmoid fitted on the training scores is 1/2."""

import numpy as np
import pytest
from scipy.optimize import minimize

import birank
from birank._calibration import (PlattRows, platt_midpoint, platt_objective, platt_sums,
                                 platt_targets)
from birank.base import decision_cut


def _scores(n=500, seed=1, shift=0.7):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n) * 3.0 + 5.0  # off-centre and wide: the scaling must not matter
    y01 = (s - 5.0 + 2.0 * rng.normal(size=n) > shift).astype(int)
    return s, y01, rng.uniform(0.5, 2.0, size=n)


@pytest.mark.parametrize("weighted", [False, True])
def test_platt_midpoint_equals_a_generic_minimizer(weighted):
    # oracle: BFGS on the raw (unscaled) two unknowns, from another start
    s, y01, w = _scores()
    w = w if weighted else np.ones_like(s)
    t = platt_targets(y01, w)

    def f(x):
        return platt_objective(1.0, x[0] * s + x[1], t, w)

    res = minimize(f, [0.1, 0.0], method="BFGS", options={"gtol": 1e-10, "xrtol": 1e-12})
    a, b = res.x
    assert a > 0
    assert platt_midpoint(s, y01, w if weighted else None) == pytest.approx(-b / a, abs=1e-5)


def test_platt_midpoint_none_below_chance_or_for_constant_scores():
    s, y01, _ = _scores()
    assert platt_midpoint(-s, y01) is None
    assert platt_midpoint(np.full(50, 2.0), np.arange(50) % 2) is None
    assert platt_midpoint(np.zeros(0), np.zeros(0, dtype=int)) is None
    # the fallback is the best-accuracy cut: still a finite threshold
    assert np.isfinite(decision_cut(-s, y01))


def test_a_weight_of_k_is_k_copies():
    s, y01, _ = _scores(200, seed=3)
    k = np.random.default_rng(0).integers(1, 4, size=200)
    assert platt_midpoint(s, y01, k.astype(float)) == pytest.approx(
        platt_midpoint(np.repeat(s, k), np.repeat(y01, k)), abs=1e-8)


@pytest.mark.parametrize("cls", [birank.RankSVM, birank.BBR, birank.PGD, birank.SPAM])
def test_predict_is_the_label_of_calibrated_probability_above_half(cls):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X @ [1.0, -1.0, 0.5, 0.0] + rng.normal(size=300) > 1.0).astype(int)  # 30 % positive
    est = cls().fit(X, y)
    raw = est.decision_function(X) - est.intercept_
    # online learners fit it on the rows they keep: all of them here (< 1000 per class)
    assert -est.intercept_ == pytest.approx(platt_midpoint(raw, y), abs=1e-9)
    p = est.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(est.predict(X) == 1, p > 0.5)


def _rows(s, y01, w, center=0.0, scale=1.0):
    """PlattRows of these scores; targets as :func:`platt_targets`."""
    t = platt_targets(y01, w)
    pos = np.asarray(y01) == 1
    return PlattRows(s, pos, w, center, 1.0 / scale, float(t[pos][0]), float(t[~pos][0]),
                     float(w.sum())), t


@pytest.mark.parametrize("weighted", [True, False])
def test_platt_sums_kernel_equals_numpy(weighted):
    # oracle: the objective in numpy on the centred and scaled scores the kernel forms
    # on the fly, its derivatives by central differences; no weights read as all 1
    s, y01, w = _scores(300, seed=5)
    w = w if weighted else np.ones_like(s)
    rows, t = _rows(s, y01, w, s.mean(), s.std())
    if not weighted:
        rows = rows._replace(w=np.zeros(0))
    u = (s - s.mean()) * (1.0 / s.std())
    a, b, h = 1.3, -0.4, 1e-5
    f, g_a, g_b, h_aa, h_ab, h_bb = platt_sums(rows, a, b)

    def obj(a, b):
        return platt_objective(1.0, a * u + b, t, w)

    assert f == pytest.approx(obj(a, b), rel=1e-12)
    assert g_a == pytest.approx((obj(a + h, b) - obj(a - h, b)) / (2 * h), rel=1e-6)
    assert g_b == pytest.approx((obj(a, b + h) - obj(a, b - h)) / (2 * h), rel=1e-6)

    def grad(a, b):
        return np.array(platt_sums(rows, a, b)[1:3])

    assert [h_aa, h_ab] == pytest.approx((grad(a + h, b) - grad(a - h, b)) / (2 * h), rel=1e-6)
    assert h_bb == pytest.approx((grad(a, b + h) - grad(a, b - h))[1] / (2 * h), rel=1e-6)
    # no overflow far out on either side
    assert np.isfinite(platt_sums(rows._replace(inv_scale=rows.inv_scale * 1e3), 1e3, 0.0)).all()


@pytest.mark.kernel
@pytest.mark.parametrize("n", [300, 5000])
def test_class_weighted_sums_equal_the_row_weighted_ones(n):
    # a weight per class (no weight array; the log-loss's logs taken per chunk of rows as
    # the log of a product) against the same weights given per row (a log1p a row): the
    # gradient and Hessian the same bits, the log-loss equal to rounding, also where
    # e^-|z| rounds away next to 1 and over chunks cut short by the block's end
    import birank._calibration as cal
    from birank._kernels.platt import LOG_CHUNK

    s, y01, _ = _scores(n, seed=6)
    pos = y01 == 1
    w = np.where(pos, 2.5, 0.75)
    rows, t = _rows(s, y01, w, s.mean(), s.std())
    by_class = rows._replace(w=np.zeros(0), w_pos=2.5, w_neg=0.75)
    assert cal._arrays(s, y01, w)[2][1:] == (2.5, 0.75)
    assert cal._arrays(s, y01, w)[2][0].size == 0
    for a, b in ((1.3, -0.4), (60.0, 2.0), (-0.2, 0.0)):
        row, cls = platt_sums(rows, a, b), platt_sums(by_class, a, b)
        assert cls[1:] == row[1:]
        assert cls[0] == pytest.approx(row[0], rel=1e-13)
    assert n < 2 * LOG_CHUNK or n % LOG_CHUNK  # a short last chunk


def test_class_constant_weights_read_as_class_weights():
    # _arrays keeps a weight array only when some class's rows differ in weight; the
    # calibration of class weights equals that of the same weights per row to rounding
    import birank._calibration as cal

    s, y01, w = _scores(3000, seed=2)
    pos = y01 == 1
    assert cal._arrays(s, y01, None)[2][1:] == (1.0, 1.0)
    np.testing.assert_array_equal(cal._arrays(s, y01, w)[2][0], w)
    one_class = cal._arrays(s, np.ones_like(y01), np.full(s.size, 3.0))[2]
    assert one_class[0].size == 0 and one_class[1:] == (3.0, 1.0)
    cw = np.where(pos, 4.0, 0.5)
    nearly = cw.copy()
    nearly[0] = np.nextafter(nearly[0], 9.0)  # one row apart: a weight array
    line, near = cal.platt_line(s, y01, cw), cal.platt_line(s, y01, nearly)
    assert cal._arrays(s, y01, nearly)[2][0].size == s.size
    assert line == pytest.approx(near, rel=1e-9)
    assert cal.platt_fit(s - line[0], y01, cw) == pytest.approx(
        cal.platt_fit(s - line[0], y01, nearly), rel=1e-9)


@pytest.mark.parametrize("seed", [21, 33, 126])
def test_one_side_slope_lands_on_its_optimum_in_few_passes(monkeypatch, seed):
    # one side of the threshold, imbalanced: near the optimum the loss is flat to rounding,
    # so a rounding-level rise must not send every Newton step through all the halvings
    # (these seeds took 44-50 passes over the scores that way, creeping to a gradient of
    # ~1e-7)
    import birank._calibration as cal

    rng = np.random.default_rng(seed)
    n = int(rng.integers(500, 6000))
    y = (rng.random(n) < rng.uniform(0.01, 0.5)).astype(float)
    s = -np.abs(rng.normal(size=n) * rng.uniform(0.1, 3)) - rng.uniform(0, 1) * y * \
        rng.uniform(0, 1)
    w = np.ones(n)
    t = platt_targets(y, w)
    passes = []
    monkeypatch.setattr(cal, "platt_sums", lambda *a: passes.append(1) or platt_sums(*a))
    a = cal._slope(s, y == 1, (np.zeros(0), 1.0, 1.0),
                   *cal._targets(float(y.sum()), float(n - y.sum())))
    assert len(passes) <= 15
    ref = minimize(lambda v: platt_objective(v[0], s, t, w), [a], method="Nelder-Mead",
                   options={"xatol": 1e-12, "fatol": 1e-14}).x[0]
    assert platt_objective(a, s, t, w) <= platt_objective(ref, s, t, w) + 1e-10
    # a stationary point: the derivative in a, relative to its size at a = 0
    z = a * s
    grad = np.sum(w * (0.5 * (1 + np.tanh(0.5 * z)) - t) * s)
    assert abs(grad) <= 1e-9 * abs(np.sum(w * (0.5 - t) * s))


@pytest.mark.parametrize("by_class", [False, True])
def test_platt_sums_over_blocks_same_bits_for_any_threads(monkeypatch, by_class):
    # blocks fixed by the number of rows, added in block order: one thread and two give
    # the same bits, and the blocked sums equal the one-block sums to rounding (weights
    # per row, or per class: the products of the log-loss cut at the blocks too)
    import birank._calibration as cal
    from birank._parallel import Threads

    s, y01, w = _scores(5000, seed=8)
    if by_class:
        w = np.where(y01 == 1, 1.5, 0.5)
    rows, _ = _rows(s, y01, w, s.mean(), s.std())
    if by_class:
        rows = rows._replace(w=np.zeros(0), w_pos=1.5, w_neg=0.5)
    whole = platt_sums(rows, 1.1, 0.3)
    monkeypatch.setattr(cal, "PLATT_BLOCK", 333)
    two = Threads(2)
    blocked = [platt_sums(rows, 1.1, 0.3, threads) for threads in (None, Threads(1), two)]
    two.close()
    assert blocked[0] == blocked[1] == blocked[2]
    assert blocked[0] == pytest.approx(whole, rel=1e-12)
    cut = platt_midpoint(s, y01, w, n_jobs=1)
    assert platt_midpoint(s, y01, w, n_jobs=2) == cut
    assert cal.platt_fit(s - cut, y01, w, n_jobs=2) == cal.platt_fit(s - cut, y01, w, n_jobs=1)


@pytest.mark.parametrize("seed", [3, 17])
def test_slopes_from_platts_slope_reach_the_same_optimum_in_fewer_passes(monkeypatch, seed):
    # set_two_class_output starts the two slopes at Platt's slope from platt_line: a
    # convex problem, so the optimum is the one reached from 0, with fewer passes
    import birank._calibration as cal

    s, y01, w = _scores(4000, seed=seed)
    cut, slope = cal.platt_line(s, y01, w)
    assert cut == platt_midpoint(s, y01, w) and slope > 0
    passes = []
    monkeypatch.setattr(cal, "platt_sums", lambda *a: passes.append(1) or platt_sums(*a))
    cold = cal.platt_fit(s - cut, y01, w)
    n_cold = len(passes)
    warm = cal.platt_fit(s - cut, y01, w, start=slope)
    assert len(passes) - n_cold < n_cold
    assert warm == pytest.approx(cold, rel=1e-9)
    for far in (1e-3 * slope, 1e3 * slope):  # any start >= 0 lands on the optimum
        assert cal.platt_fit(s - cut, y01, w, start=far) == pytest.approx(cold, rel=1e-9)


def test_platt_line_from_a_subsample_fit_reaches_the_same_optimum_in_fewer_passes(
        monkeypatch):
    # platt_line fits every k-th row first when the scores hold >= 4 PLATT_WARM_ROWS rows
    import birank._calibration as cal

    s, y01, w = _scores(6000, seed=12)
    passes = []
    monkeypatch.setattr(cal, "platt_sums",
                        lambda rows, *a: passes.append(rows.n) or platt_sums(rows, *a))
    cold = cal.platt_line(s, y01, w)
    full_cold = passes.count(6000)
    monkeypatch.setattr(cal, "PLATT_WARM_ROWS", 500)
    passes.clear()
    warm = cal.platt_line(s, y01, w)
    assert 0 < passes.count(6000) < full_cold
    assert warm == pytest.approx(cold, rel=1e-10)


def test_slopes_from_a_subsample_fit_reach_the_same_optimum_in_fewer_passes(monkeypatch):
    # each slope is fitted on every k-th row of its side first (recursively, at most
    # PLATT_WARM_STRIDE apart), then on all of them from there
    import birank._calibration as cal

    s, y01, w = _scores(6000, seed=21)
    cut = cal.platt_midpoint(s, y01, w)
    passes = []
    monkeypatch.setattr(cal, "platt_sums",
                        lambda rows, *a: passes.append(rows.n) or platt_sums(rows, *a))
    cold = cal.platt_fit(s - cut, y01, w)
    sides = sorted(set(passes))
    full_cold = sum(passes.count(m) for m in sides)
    assert min(sides) >= 1600
    monkeypatch.setattr(cal, "PLATT_WARM_ROWS", 100)
    monkeypatch.setattr(cal, "PLATT_WARM_STRIDE", 4)
    passes.clear()
    warm = cal.platt_fit(s - cut, y01, w)
    assert 0 < sum(passes.count(m) for m in sides) < full_cold
    # two levels of subsamples below each side (>= 1600 rows): every 4th row, every 16th
    assert len(set(passes)) == 3 * len(sides)
    assert warm == pytest.approx(cold, rel=1e-10)


@pytest.mark.kernel
@pytest.mark.parametrize("weighted", [True, False, "class"])
def test_calibration_passes_equal_numpy(weighted):
    # the passes that prepare Platt's rows without copies: class weights, weighted sum and
    # extremes, the weighted mean square about a centre and the slope derivative at 0,
    # and the copy of each side of 0 (rows at 0 in neither), against numpy
    from birank._kernels.platt import platt_moments, platt_spread, split_sides

    s, y01, w = _scores(3000, seed=9)
    s[::7] = 0.0
    pos = y01 == 1
    w_pos, w_neg = (1.7, 0.3) if weighted == "class" else (1.0, 1.0)
    wk = w if weighted is True else np.zeros(0)
    w = w if weighted is True else np.where(pos, w_pos, w_neg)
    out = np.empty((1, 5))
    platt_moments(s, pos, wk, w_pos, w_neg, 1 << 20, out, 0, 1)
    assert out[0] == pytest.approx([w[pos].sum(), w[~pos].sum(), w @ s, s.max(), s.min()],
                                   rel=1e-12)
    c, big, t_pos, t_neg = 0.3, 9.0, 0.9, 0.01
    t = np.where(pos, t_pos, t_neg)
    spread = np.empty((1, 2))
    platt_spread(s, pos, wk, w_pos, w_neg, c, big, t_pos, t_neg, 1 << 20, spread, 0, 1)
    assert spread[0] == pytest.approx([w @ ((s - c) / big) ** 2, w @ ((0.5 - t) * (s - c))],
                                      rel=1e-12)
    n = s.shape[0]
    s_out, pos_out, w_out = np.full(n, np.nan), np.zeros(n, dtype=bool), np.full(wk.size, np.nan)
    below, above = split_sides(s, pos, wk, s_out, pos_out, w_out)
    lo, hi = np.flatnonzero(s < 0), np.flatnonzero(s > 0)
    assert (below, above) == (lo.size, hi.size)
    np.testing.assert_array_equal(s_out[:below], s[lo])
    np.testing.assert_array_equal(s_out[n - above:], s[hi][::-1])
    np.testing.assert_array_equal(pos_out[:below], pos[lo])
    np.testing.assert_array_equal(pos_out[n - above:], pos[hi][::-1])
    if weighted is True:
        np.testing.assert_array_equal(w_out[:below], w[lo])
        np.testing.assert_array_equal(w_out[n - above:], w[hi][::-1])


def test_unit_weights_give_the_calibration_of_weights_of_one():
    # no sample_weight reads every weight as 1 (no array of ones is made): the same cut
    # and slopes as explicit weights of 1, bit for bit
    import birank._calibration as cal

    s, y01, _ = _scores(7000, seed=4)
    ones = np.ones_like(s)
    assert cal.platt_line(s, y01) == cal.platt_line(s, y01, ones)
    cut = cal.platt_midpoint(s, y01)
    assert cal.platt_fit(s - cut, y01) == cal.platt_fit(s - cut, y01, ones)
