"""The fetch stage (not built yet)."""

from __future__ import annotations

from jetjobs import App


def register(app: App) -> None:
    """Register the fetch stage's handlers on the pipeline's App."""
