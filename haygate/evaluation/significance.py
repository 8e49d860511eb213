"""Comparisons that survive many tests: Holm's correction across every variant and metric compared, a paired
randomization test beside the t-test, and effect sizes with intervals.

A run that compares three variants on four metrics makes twelve tests: at alpha 0.05, one of them is likely to
pass by chance. Holm's step-down method (Holm 1979) holds the chance of any false "significant" among them at
alpha, and is never less powerful than Bonferroni. The randomization test (Fisher; Smucker, Allan and Carterette
2007, who recommend it for IR) assumes no normal distribution of the per-query differences: every query's
difference flips sign at random, exactly over all 2^n flips for up to 16 queries, else over 10,000 seeded ones.
The effect size is the standardised mean difference of the paired scores (d_z: mean difference over its standard
deviation), with an approximate 95% interval; the mean difference gets its t interval.
"""

import itertools
import math
from collections.abc import Sequence

import numpy as np

EXACT_UP_TO = 16  # queries: every sign flip enumerated (65,536 at most)
PERMUTATIONS = 10_000
SEED = 20261129


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given: each compared with alpha as it stands."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def randomization_p(differences: Sequence[float]) -> float:
    """Two-sided p of the mean paired difference under random sign flips (1.0 when every difference is 0)."""
    values = np.asarray(differences, dtype=np.float64)
    observed = abs(values.mean()) if len(values) else 0.0
    if not len(values) or not np.any(values):
        return 1.0
    if len(values) <= EXACT_UP_TO:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(values))))
    else:
        signs = np.random.default_rng(SEED).choice((1.0, -1.0), size=(PERMUTATIONS, len(values)))
    means = np.abs((signs * values).mean(axis=1))
    return float(np.mean(means >= observed - 1e-12))


def mean_interval(differences: Sequence[float]) -> tuple[float, float]:
    """The 95% t interval of the mean paired difference."""
    from scipy.stats import t  # the eval extra's: SciPy comes with ranx

    values = np.asarray(differences, dtype=np.float64)
    if len(values) < 2:
        return (float(values.mean()), float(values.mean())) if len(values) else (0.0, 0.0)
    half = float(t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / math.sqrt(len(values)))
    return float(values.mean()) - half, float(values.mean()) + half


def effect_size(differences: Sequence[float]) -> tuple[float | None, tuple[float, float] | None]:
    """d_z, the mean paired difference in standard deviations of the differences, with its approximate 95%
    interval (standard error sqrt(1/n + d^2 / 2n)). 0 when nothing moved; None when there is nothing to scale by
    (one query, or every query moved by the same amount)."""
    values = np.asarray(differences, dtype=np.float64)
    if not np.any(values):
        return 0.0, (0.0, 0.0)
    spread = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    if spread == 0.0:
        return None, None
    d = float(values.mean()) / spread
    error = math.sqrt(1 / len(values) + d * d / (2 * len(values)))
    return d, (d - 1.96 * error, d + 1.96 * error)
