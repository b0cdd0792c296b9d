#!/usr/bin/env python3
"""Independent reference numbers for the match statistics of `deepred match` (src/games/matchrun/
stats.rs and sprt.rs): pentanomial Elo with its 95% error bar, normalised Elo, and the SPRT
log-likelihood ratio of pentanomial results under logistic Elo hypotheses.

The formulas follow fastchess (elo_pentanomial.cpp, sprt.cpp) and OpenBench/Fishtest (stats.py):
the score of a game pair is 0, 0.25, 0.5, 0.75 or 1 (pair points / 2); the LLR is
N * sum_i phat_i * ln(p1_i / p0_i), where p_s is the maximum-likelihood distribution on the five
pair scores whose mean is s (Van den Bergh, "Comments on Normalized Elo", proposition 1.1):
p_i = phat_i / (1 + theta * (a_i - s)) with theta the root of sum phat_i (a_i - s) / (1 + theta (a_i - s)).
Zero counts are replaced by 1e-3 as both tools do. Here theta is found by bisection in 60-digit
arithmetic (mpmath), not by the Rust code's method.

Usage: python3 scripts/match_stats_reference.py LL LD DD WD WW [ELO0 ELO1]
"""
import sys
from statistics import NormalDist

import mpmath as mp

mp.mp.dps = 60
SCORES = [mp.mpf(i) / 4 for i in range(5)]


def logistic_elo(s):
    if s <= 0 or s >= 1:
        return mp.inf if s >= 1 else -mp.inf
    return -400 * mp.log10(1 / s - 1)


def elo(counts):
    n = sum(counts)
    p = [mp.mpf(c) / n for c in counts]
    mu = sum(a * q for a, q in zip(SCORES, p))
    var = sum(q * (a - mu) ** 2 for a, q in zip(SCORES, p))
    z = mp.mpf(NormalDist().inv_cdf(0.975))
    half = z * mp.sqrt(var / n)
    lo, hi = logistic_elo(mu - half), logistic_elo(mu + half)
    k = 800 / mp.log(10)
    if var == 0:
        return mu, var, logistic_elo(mu), mp.mpf(0), mp.nan, mp.nan
    nelo = (mu - 0.5) / mp.sqrt(2 * var) * k
    nlo = (mu - half - 0.5) / mp.sqrt(2 * var) * k
    nhi = (mu + half - 0.5) / mp.sqrt(2 * var) * k
    return mu, var, logistic_elo(mu), (hi - lo) / 2, nelo, (nhi - nlo) / 2


def mle(phat, s):
    def f(theta):
        return sum(q * (a - s) / (1 + theta * (a - s)) for a, q in zip(SCORES, phat))

    lo = -1 / (SCORES[-1] - s)
    hi = -1 / (SCORES[0] - s)
    # f decreases from +inf at lo to -inf at hi.
    for _ in range(400):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    theta = (lo + hi) / 2
    return [q / (1 + theta * (a - s)) for a, q in zip(SCORES, phat)]


def llr(counts, elo0, elo1):
    reg = [mp.mpf(c) if c else mp.mpf("1e-3") for c in counts]
    n = sum(reg)
    phat = [c / n for c in reg]
    s0 = 1 / (1 + mp.power(10, -mp.mpf(elo0) / 400))
    s1 = 1 / (1 + mp.power(10, -mp.mpf(elo1) / 400))
    p0, p1 = mle(phat, s0), mle(phat, s1)
    exact = n * sum(q * (mp.log(b) - mp.log(a)) for q, a, b in zip(phat, p0, p1))
    mu = sum(a * q for a, q in zip(SCORES, phat))
    var = sum(q * (a - mu) ** 2 for a, q in zip(SCORES, phat))
    approx = (s1 - s0) * (2 * mu - s0 - s1) / (2 * var) * n
    return exact, approx


if __name__ == "__main__":
    counts = [int(x) for x in sys.argv[1:6]]
    mu, var, e, err, ne, nerr = elo(counts)
    print(f"pairs {sum(counts)} score {mp.nstr(mu, 15)} variance {mp.nstr(var, 15)}")
    print(f"elo {mp.nstr(e, 15)} error {mp.nstr(err, 15)}")
    print(f"nelo {mp.nstr(ne, 15)} error {mp.nstr(nerr, 15)}")
    if len(sys.argv) > 7:
        exact, approx = llr(counts, sys.argv[6], sys.argv[7])
        print(f"llr {mp.nstr(exact, 15)} (approximation {mp.nstr(approx, 15)})")
