"""PriorityBuffer: high work first, weighted fairness without starvation, bounded per priority."""

from __future__ import annotations

from collections import Counter

import anyio

from jetjobs._runtime.priority import PriorityBuffer
from jetjobs._wire.envelope import PRIORITIES, Priority

WEIGHTS: dict[Priority, int] = {"high": 8, "normal": 4, "low": 1}


def filled(capacity: int = 1000, **counts: int) -> PriorityBuffer[str]:
    """A buffer holding `counts[priority]` items named like `low-0`, `low-1`, ..."""
    buffer: PriorityBuffer[str] = PriorityBuffer(WEIGHTS, capacity=capacity)
    for priority in PRIORITIES:
        for n in range(counts.get(priority, 0)):
            buffer.put(priority, f"{priority}-{n}")
    return buffer


def picks(buffer: PriorityBuffer[str], n: int) -> list[Priority]:
    """The priorities of the next `n` picks."""
    chosen = []
    for _ in range(n):
        picked = buffer.pick()
        assert picked is not None
        chosen.append(picked[0])
    return chosen


def test_empty_buffer_picks_none() -> None:
    """pick() on an empty buffer returns None instead of blocking."""
    assert filled().pick() is None
    assert len(filled()) == 0


def test_each_priority_is_fifo() -> None:
    """Within one priority, items come out in the order they were put."""
    buffer = filled(low=5)
    assert [buffer.pick() for _ in range(5)] == [("low", f"low-{n}") for n in range(5)]


def test_high_goes_before_buffered_lows() -> None:
    """A high item put behind many buffered low ones is picked next, not after them."""
    buffer = filled(low=10)
    assert picks(buffer, 3) == ["low"] * 3
    buffer.put("high", "urgent")
    assert buffer.pick() == ("high", "urgent")
    assert picks(buffer, 7) == ["low"] * 7


def test_high_goes_before_buffered_normals_and_lows() -> None:
    """With normal and low work waiting, a fresh buffer picks the high items first."""
    buffer = filled(normal=5, low=5)
    buffer.put("high", "urgent")
    assert buffer.pick() == ("high", "urgent")


def test_weighted_round_robin_ratio() -> None:
    """While all three stay non-empty, 130 picks are exactly 80 high, 40 normal, 10 low."""
    buffer = filled(high=200, normal=200, low=200)
    chosen = picks(buffer, 130)
    assert Counter(chosen) == {"high": 80, "normal": 40, "low": 10}
    # Smooth: every window of 13 consecutive picks has the 8/4/1 mix; low is never starved.
    for start in range(0, 130, 13):
        assert Counter(chosen[start : start + 13]) == {"high": 8, "normal": 4, "low": 1}


def test_custom_weights_are_respected() -> None:
    """Equal weights alternate evenly among the non-empty priorities."""
    buffer: PriorityBuffer[int] = PriorityBuffer({"high": 1, "normal": 1, "low": 1}, capacity=100)
    for priority in PRIORITIES:
        for n in range(10):
            buffer.put(priority, n)
    chosen = [picked[0] for picked in iter(buffer.pick, None)]
    assert Counter(chosen[:9]) == {"high": 3, "normal": 3, "low": 3}
    assert len(chosen) == 30


def test_lone_priority_drains_completely() -> None:
    """A single non-empty priority is picked until empty, whatever its weight."""
    buffer = filled(low=50)
    assert picks(buffer, 50) == ["low"] * 50
    assert buffer.pick() is None


def test_remaining_priorities_drain_after_high_runs_out() -> None:
    """When high empties, normal and low share the picks 4:1 and everything drains."""
    buffer = filled(high=8, normal=40, low=10)
    chosen = [picked[0] for picked in iter(buffer.pick, None)]
    assert Counter(chosen) == {"high": 8, "normal": 40, "low": 10}
    assert set(chosen[:13]) == {"high", "normal", "low"}  # high did not go first en bloc
    assert len(buffer) == 0


def test_room_and_capacity_are_per_priority() -> None:
    """room() counts down from capacity per priority, and comes back as items are picked."""
    buffer = filled(capacity=3, high=1, low=3)
    assert buffer.capacity == 3
    assert buffer.room("high") == 2
    assert buffer.room("normal") == 3
    assert buffer.room("low") == 0
    assert len(buffer) == 4
    picks(buffer, 2)
    assert len(buffer) == 2
    assert buffer.room("high") == 3
    assert buffer.room("low") == 1


def test_room_never_negative() -> None:
    """put() does not enforce capacity (the fetcher asks for room first); room() stays at zero."""
    buffer = filled(capacity=2, normal=3)
    assert buffer.room("normal") == 0


def test_drain_returns_everything_in_priority_order() -> None:
    """drain() empties the buffer and hands back every item, high first, FIFO within a priority."""
    buffer = filled(high=1, normal=2, low=2)
    assert buffer.drain() == ["high-0", "normal-0", "normal-1", "low-0", "low-1"]
    assert len(buffer) == 0
    assert buffer.pick() is None
    assert buffer.room("normal") == buffer.capacity


async def test_get_returns_at_once_when_items_wait() -> None:
    """get() takes the next item without waiting when something is buffered."""
    buffer = filled(normal=1)
    assert await buffer.get() == ("normal", "normal-0")


async def test_get_waits_for_put() -> None:
    """get() on an empty buffer blocks until an item is put, then returns that item."""
    buffer: PriorityBuffer[str] = PriorityBuffer(WEIGHTS, capacity=4)
    got: list[tuple[Priority, str]] = []

    async def take() -> None:
        got.append(await buffer.get())

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(take)
            await anyio.wait_all_tasks_blocked()
            assert got == []
            buffer.put("low", "late")
    assert got == [("low", "late")]


async def test_wait_room_returns_at_once_when_there_is_room() -> None:
    """wait_room() answers how much room there is without waiting when the priority is not full."""
    buffer = filled(capacity=5, high=2)
    assert await buffer.wait_room("high") == 3


async def test_wait_room_waits_for_a_pick() -> None:
    """wait_room() on a full priority blocks until an item of that priority is picked."""
    buffer = filled(capacity=2, high=2, low=2)
    rooms: list[int] = []

    async def wait() -> None:
        rooms.append(await buffer.wait_room("high"))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(wait)
            await anyio.wait_all_tasks_blocked()
            assert rooms == []
            buffer.put("normal", "other")  # room in another priority does not wake it
            await anyio.wait_all_tasks_blocked()
            assert rooms == []
            assert buffer.pick() == ("high", "high-0")
    assert rooms == [1]


async def test_many_waiters_each_get_an_item() -> None:
    """Several tasks blocked in get() are all served as items arrive; none is left waiting."""
    buffer: PriorityBuffer[str] = PriorityBuffer(WEIGHTS, capacity=8)
    got: list[str] = []

    async def take() -> None:
        picked = await buffer.get()
        assert picked is not None
        got.append(picked[1])

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            for _ in range(4):
                tg.start_soon(take)
            await anyio.wait_all_tasks_blocked()
            for i in range(4):
                buffer.put("normal", f"item-{i}")
                await anyio.wait_all_tasks_blocked()
    assert sorted(got) == [f"item-{i}" for i in range(4)]


async def test_close_releases_waiters_and_hands_out_nothing() -> None:
    """After close(), waiting and later get() calls return None, even with items still buffered."""
    buffer: PriorityBuffer[str] = PriorityBuffer(WEIGHTS, capacity=8)
    got: list[object] = []

    async def take() -> None:
        got.append(await buffer.get())

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(take)
            tg.start_soon(take)
            await anyio.wait_all_tasks_blocked()
            buffer.close()
    buffer.put("high", "after-close")
    assert got == [None, None]
    assert await buffer.get() is None
    assert buffer.drain() == ["after-close"]


async def test_every_fetcher_waiting_for_room_wakes() -> None:
    """Two fetchers of one priority (a worker over two queues) wait for room: one pick wakes both."""
    buffer = filled(capacity=2, normal=2)
    woke: list[str] = []

    async def fetcher(name: str) -> None:
        await buffer.wait_room("normal")
        woke.append(name)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(fetcher, "queue-a")
            tg.start_soon(fetcher, "queue-b")
            await anyio.wait_all_tasks_blocked()
            assert buffer.pick() is not None
            assert buffer.pick() is not None
    assert sorted(woke) == ["queue-a", "queue-b"]


def test_picks_are_the_smooth_weighted_round_robins_whatever_arrives() -> None:
    """Random arrivals and picks: every pick is the one the textbook round gives (the buffer has
    a shortcut for one ready priority; it must not change a single choice)."""
    import random  # noqa: PLC0415 - this test only

    rng = random.Random(14)
    buffer: PriorityBuffer[int] = PriorityBuffer(WEIGHTS, capacity=1000)
    queues: dict[Priority, list[int]] = {p: [] for p in PRIORITIES}
    current = dict.fromkeys(PRIORITIES, 0)
    for n in range(5000):
        if rng.random() < 0.5:
            priority = rng.choice(PRIORITIES)
            buffer.put(priority, n)
            queues[priority].append(n)
            continue
        ready = [p for p in PRIORITIES if queues[p]]
        if not ready:
            assert buffer.pick() is None
            continue
        for p in PRIORITIES:
            current[p] = current[p] + WEIGHTS[p] if queues[p] else 0
        chosen = max(ready, key=lambda p: current[p])
        current[chosen] -= sum(WEIGHTS[p] for p in ready)
        assert buffer.pick() == (chosen, queues[chosen].pop(0))
