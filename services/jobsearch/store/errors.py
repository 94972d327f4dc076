"""What can go wrong with the state of record.

```
StoreError
 ├── UnknownListing     no listing has that id (or id prefix)
 ├── AmbiguousListing   an id prefix names more than one listing
 └── InvalidStatus      a status outside the tracker's vocabulary
```
"""

from __future__ import annotations


class StoreError(Exception):
    """The root of every state-of-record error."""


class UnknownListing(StoreError):
    """No listing has that id (or id prefix)."""


class AmbiguousListing(StoreError):
    """An id prefix names more than one listing."""


class InvalidStatus(StoreError):
    """A status outside the tracker's vocabulary."""
