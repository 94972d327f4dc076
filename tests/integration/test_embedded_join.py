"""Joining the embedded server through the store dir never lands on another server."""

from __future__ import annotations

from pathlib import Path

from jetjobs import EmbeddedServer, NatsSettings, open_connection


async def test_a_stale_server_url_on_a_stranger_server_is_not_joined(
    nats_server: EmbeddedServer, tmp_path: Path
) -> None:
    """`server.url` names a port that another nats-server (one without our token) now holds: the
    next process starts its own embedded server instead of joining the stranger's."""
    store = tmp_path / "store"
    store.mkdir(mode=0o700)
    (store / "server.url").write_text(nats_server.url)
    (store / "server.token").write_text("a-token-from-a-server-that-died")
    async with open_connection(NatsSettings(store_dir=str(store))) as nc:
        assert nc.connected_url is not None
        assert nc.connected_url.netloc != nats_server.url.removeprefix("nats://")
        assert (store / "server.url").read_text().strip() != nats_server.url
