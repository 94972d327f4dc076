"""Learning from what the person does: a per-component multiplier of the fit score, fitted to the
listings they moved on (wanted) or dismissed (unwanted).

```python
learned = learn([Example(parts={"skills+": 24, "place_office+": 8}, wanted=False), ...])
fit = score(profile, listing, today, learned)    # each contribution times its multiplier
```
A small logistic regression, in pure Python (no numpy: a few dozen numbers), over the score's
components (`jobsearch.fit.score.component_of`: a rule group and its sign):

P(wanted) = sigmoid(a + k/10 * sum(m_c * x_c)), x_c the points component c gave the listing,
with the L2 penalty `PRIOR`/2 * sum((m_c - 1)^2): the hand-set weights are the prior, and the
decisions move each multiplier away from 1 only as far as they agree. k (how many log-odds ten
points are worth for this person, within [`K_FLOOR`, `K_CEILING`]) is free, so the multipliers
re-weight the components rather than all grow together. Each multiplier is kept within
[`LOWEST`, `HIGHEST`]: no component is switched off or blown up, and one decision moves the
ranking little (`tests/jobsearch/test_fit_learn.py`).

k and the multipliers are fitted in turn (each step convex, solved by Newton's method with a line
search) from the same start: the same decisions give the same multipliers. Fewer than
`MIN_DECISIONS` decisions, or decisions all of one kind, learn nothing; the newest
`MAX_DECISIONS` count. `excluded-` (the person's
own exclusions) is never re-weighted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

MIN_DECISIONS = 20
MAX_DECISIONS = 400  # the newest: tastes move, and the fit stays well under a second
PRIOR = 4.0  # the L2 strength pulling each multiplier to 1, in decisions' log-likelihood units
LOWEST, HIGHEST = 0.25, 3.0
K_FLOOR, K_CEILING = 0.1, 5.0  # log-odds per ten points: at least, at most
FIXED = frozenset({"excluded-"})
_ITERATIONS = 50
_ROUNDS = 20
_SCALE = 10.0  # points per unit of the regression's inputs


class Example(msgspec.Struct, kw_only=True, frozen=True):
    """One decision: a listing's points per component, and whether the person wanted it."""

    parts: dict[str, float]
    wanted: bool


class Learned(msgspec.Struct, kw_only=True, frozen=True):
    """What the decisions taught: a multiplier per component (absent: 1), and from how many."""

    multipliers: dict[str, float]
    decisions: int
    wanted: int = 0  # of `decisions`, the listings moved on (the others were dismissed)

    def multiplier(self, component: str) -> float:
        """The learned factor of `component` (1 where nothing was learned)."""
        return self.multipliers.get(component, 1.0)

    def reason(self) -> str:
        """The line `fit_reasons` ends with when the score used these weights."""
        return f"weights learned from {self.decisions} of your decisions"


def learn(examples: Sequence[Example]) -> Learned | None:
    """The multipliers the decisions (oldest first) support (see the module), from the newest
    `MAX_DECISIONS`; None when they are too few (`MIN_DECISIONS`) or all of one kind."""
    examples = examples[-MAX_DECISIONS:]
    wanted = sum(1 for e in examples if e.wanted)
    if len(examples) < MIN_DECISIONS or wanted in (0, len(examples)):
        return None
    labels = [1.0 if e.wanted else 0.0 for e in examples]
    names = sorted({c for e in examples for c, x in e.parts.items() if x and c not in FIXED})
    fixed = [sum(x for c, x in e.parts.items() if c in FIXED) for e in examples]
    m = dict.fromkeys(names, 1.0)
    k = K_FLOOR
    solved: list[float] | None = None
    for _ in range(_ROUNDS):  # the scale and the multipliers in turn, each step convex
        totals = [
            [1.0, (f + sum(m.get(c, 1.0) * x for c, x in e.parts.items() if c not in FIXED)) / _SCALE]
            for e, f in zip(examples, fixed, strict=True)
        ]
        k = min(
            K_CEILING, max(K_FLOOR, _newton(totals, labels, prior=[0.0, 0.0], centre=[0.0, k], ridge=1e-2)[1])
        )
        rows = [
            [1.0, k * f / _SCALE] + [k * e.parts.get(c, 0.0) / _SCALE for c in names]
            for e, f in zip(examples, fixed, strict=True)
        ]
        # the fixed parts' coefficient held at 1 (an offset); each multiplier pulled to 1
        solved = _newton(
            rows,
            labels,
            start=solved,
            prior=[0.0, 1e6] + [PRIOR] * len(names),
            centre=[0.0, 1.0] + [1.0] * len(names),
            ridge=1e-2,
        )
        moved = {c: min(HIGHEST, max(LOWEST, b)) for c, b in zip(names, solved[2:], strict=True)}
        settled = max((abs(moved[c] - m[c]) for c in names), default=0.0) < 1e-4
        m = moved
        if settled:
            break
    multipliers = {c: round(v, 4) for c, v in m.items()}
    return Learned(multipliers=multipliers, decisions=len(examples), wanted=wanted)


def _newton(
    rows: list[list[float]],
    labels: list[float],
    *,
    prior: list[float],
    centre: list[float],
    ridge: float,
    start: list[float] | None = None,
) -> list[float]:
    """Minimise the logistic loss of `rows` against `labels` plus sum(prior_j/2 * (beta_j - centre_j)^2)
    (and a small `ridge` for the unpenalised, so separable decisions stay finite), by Newton's
    method with a backtracking line search (every step lowers the loss)."""
    n = len(centre)
    pull = [p + ridge for p in prior]

    nonzero = [[i for i, x in enumerate(row) if x] for row in rows]

    def loss(beta: list[float]) -> float:
        total = sum(pull[j] / 2 * (beta[j] - centre[j]) ** 2 for j in range(n))
        for row, y, used in zip(rows, labels, nonzero, strict=True):
            z = sum(beta[i] * row[i] for i in used)
            total += _softplus(z) - y * z
        return total

    beta = list(start or centre)
    current = loss(beta)
    for _ in range(_ITERATIONS):
        grad = [pull[j] * (beta[j] - centre[j]) for j in range(n)]
        hess = [[pull[j] if i == j else 0.0 for j in range(n)] for i in range(n)]
        for row, y, used in zip(rows, labels, nonzero, strict=True):
            p = _sigmoid(sum(beta[i] * row[i] for i in used))
            for i in used:
                grad[i] += (p - y) * row[i]
                weight = p * (1 - p) * row[i]
                line = hess[i]
                for j in used:
                    line[j] += weight * row[j]
        step = _solve(hess, grad)
        size = 1.0
        for _ in range(40):
            tried = [b - size * s for b, s in zip(beta, step, strict=True)]
            value = loss(tried)
            if value <= current:
                break
            size /= 2
        else:
            break
        moved = max(abs(size * s) for s in step)
        beta, current = tried, value
        if moved < 1e-9:
            break
    return beta


def _softplus(z: float) -> float:
    return z + math.log1p(math.exp(-z)) if z > 0 else math.log1p(math.exp(z))


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix·x = vector, by Gaussian elimination with partial pivoting (the matrix is
    symmetric positive definite: the penalty makes it so)."""
    n = len(vector)
    a = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-300:
            continue
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            if f:
                for c in range(col, n + 1):
                    a[r][c] -= f * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        acc = a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))
        x[r] = acc / a[r][r] if abs(a[r][r]) >= 1e-300 else 0.0
    return x
