"""One module per job board: each maps its board's own API shape to `jobsearch.listing.Listing`."""
