"""The state of record: SQLite tables of listings, drafts, statuses, notes and runs.

The export stage writes it; `jobsearch mark/status/export` and the review page read and edit it;
the tracker is rendered from it. Nothing here knows about NATS.
"""

from jobsearch.store.errors import AmbiguousListing, InvalidStatus, StoreError, UnknownListing
from jobsearch.store.records import (
    STATUSES,
    Conflict,
    EditReport,
    ListingDetail,
    ProviderUsage,
    RecordedExport,
    RunNumbers,
    RunRecord,
    SheetEdit,
    Status,
    StoredDraft,
    TrackerRow,
    parse_status,
)
from jobsearch.store.state import Store

__all__ = [
    "STATUSES",
    "AmbiguousListing",
    "Conflict",
    "EditReport",
    "InvalidStatus",
    "ListingDetail",
    "ProviderUsage",
    "RecordedExport",
    "RunNumbers",
    "RunRecord",
    "SheetEdit",
    "Status",
    "Store",
    "StoreError",
    "StoredDraft",
    "TrackerRow",
    "UnknownListing",
    "parse_status",
]
