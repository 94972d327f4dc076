"""Fit: how well a listing suits the person, as a score 0-100 with its reasons, computed locally.

```python
fit = score(profile, listing, today)   # Fit(score=78, reasons=[Reason(points=25, text=...), ...])
```
The rules and their weights are in `score`; what they read in `role` (the person's roles and
levels), `skills`, `place`, `pay` and `sections` (a posting's requirements and nice-to-haves).
docs/fit.md explains the score.
"""

from __future__ import annotations

from jobsearch.fit.score import Fit, Reason, score

__all__ = ["Fit", "Reason", "score"]
