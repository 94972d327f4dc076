"""The review page (`jobsearch ui`): listings, drafts, statuses over the pipeline's SQLite.

Built on the platform's page kit (`jetjobs.ui`): same base template, vendored script, CSRF and
access guard as `jetjobs ui`; its own script (`static/review.js`) refreshes only while a run goes
on and asks before unsaved edits are lost.
"""

from jobsearch.ui.app import build_review_app

__all__ = ["build_review_app"]
