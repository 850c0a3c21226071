"""A stream's outbound queue on the event loop: a message leaves only once its event is
durable, the writer's thread wakes the waiting stream (one loop call for a burst), a failure
ends the stream with its error, a finished queue drains and ends."""

from __future__ import annotations

import asyncio
import threading

import pytest

from hebei.common.errors import Unavailable
from hebei.table.sessions import Outbound


class ManualStore:
    """Durable up to what the test says; tells the watchers from a thread of its own."""

    def __init__(self) -> None:
        self.watchers: set = set()

    def watch(self, match_id: str, watcher) -> int:
        self.watchers.add(watcher)
        return 0

    def unwatch(self, match_id: str, watcher) -> None:
        self.watchers.discard(watcher)

    def commit(self, seq: int) -> None:
        """The writer thread committed up to ``seq``."""
        thread = threading.Thread(target=lambda: [w.durable(seq) for w in list(self.watchers)])
        thread.start()
        thread.join()


async def take(stream, count: int, timeout: float = 2.0) -> list:
    return [await asyncio.wait_for(anext(stream), timeout) for _ in range(count)]


def test_messages_leave_once_durable_woken_from_the_writer_thread() -> None:
    async def run() -> None:
        store = ManualStore()
        queue = Outbound("m1", store)
        queue.push(1, "first")
        queue.push(2, "second")
        stream = queue.messages()
        pending = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)
        assert not pending.done()  # event 1 is not durable yet
        store.commit(1)
        assert await asyncio.wait_for(pending, 2) == "first"
        late = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)
        assert not late.done()
        store.commit(2)
        assert await asyncio.wait_for(late, 2) == "second"
        queue.push(3, "rejection after", keep=True)
        store.commit(3)
        assert await take(stream, 1) == ["rejection after"]
        queue.finish()
        with pytest.raises(StopAsyncIteration):
            await anext(stream)
        assert not store.watchers  # the stream stopped watching its match

    asyncio.run(run())


def test_one_commit_wakes_many_streams() -> None:
    async def run() -> None:
        store = ManualStore()
        queues = [Outbound("m1", store) for _ in range(20)]
        streams = [q.messages() for q in queues]
        waiting = [asyncio.ensure_future(anext(s)) for s in streams]
        await asyncio.sleep(0.02)
        for i, queue in enumerate(queues):
            queue.push(5, f"to {i}")
        store.commit(5)
        assert await asyncio.wait_for(asyncio.gather(*waiting), 2) == [f"to {i}" for i in range(20)]

    asyncio.run(run())


def test_a_failure_ends_the_stream_with_its_error_and_drops_the_queue() -> None:
    async def run() -> None:
        store = ManualStore()
        queue = Outbound("m1", store)
        queue.push(1, "never sent")
        stream = queue.messages()
        pending = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.02)
        threading.Thread(target=queue.fail, args=(Unavailable("reconnect"),)).start()
        with pytest.raises(Unavailable, match="reconnect"):
            await asyncio.wait_for(pending, 2)

    asyncio.run(run())


def test_a_finished_queue_sends_what_is_queued_first() -> None:
    async def run() -> None:
        store = ManualStore()
        queue = Outbound("m1", store)
        queue.push(1, "last observation")
        queue.finish()
        stream = queue.messages()
        store.commit(1)
        assert await take(stream, 1) == ["last observation"]
        with pytest.raises(StopAsyncIteration):
            await anext(stream)

    asyncio.run(run())


def test_a_spectator_too_slow_is_disconnected() -> None:
    async def run() -> None:
        queue = Outbound("m1", ManualStore(), maxsize=2, droppable=False)
        for seq in (1, 2, 3):
            queue.push(seq, f"event {seq}")
        with pytest.raises(Exception, match="not read fast enough"):
            await anext(queue.messages())

    asyncio.run(run())


def test_a_commit_releases_every_durable_message_in_order_and_keeps_the_rest() -> None:
    """One commit releases a run of messages (taken in one go): all of them leave, in order;
    those about events not yet durable wait for theirs."""

    async def run() -> None:
        store = ManualStore()
        queue = Outbound("m1", store)
        for seq in range(1, 6):
            queue.push(seq, f"m{seq}")
        stream = queue.messages()
        store.commit(3)
        assert await take(stream, 3) == ["m1", "m2", "m3"]
        late = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.05)
        assert not late.done()
        store.commit(5)
        assert await asyncio.wait_for(late, 2) == "m4"
        assert await take(stream, 1) == ["m5"]

    asyncio.run(run())


def test_a_failure_while_released_messages_go_out_ends_the_stream_at_once() -> None:
    """Messages already released are not sent after the queue failed: the stream ends with
    the error at the next message, as when each message was taken alone."""

    async def run() -> None:
        store = ManualStore()
        queue = Outbound("m1", store)
        for seq in (1, 2, 3):
            queue.push(seq, f"m{seq}")
        store.commit(3)
        stream = queue.messages()
        assert await take(stream, 1) == ["m1"]
        queue.fail(Unavailable("reconnect"))
        with pytest.raises(Unavailable, match="reconnect"):
            await anext(stream)

    asyncio.run(run())


def test_messages_about_unwritten_events_are_dropped_while_the_stream_waits() -> None:
    """discard_after (the log refused events) empties the queue the waiting stream reads:
    only what came after is sent."""

    async def run() -> None:
        store = ManualStore()
        queue = Outbound("m1", store)
        for seq, message in enumerate(("durable", "never written"), 1):
            queue.push(seq, message)
        stream = queue.messages()
        store.commit(1)
        assert await take(stream, 1) == ["durable"]
        waiting = asyncio.ensure_future(anext(stream))
        await asyncio.sleep(0.02)
        queue.discard_after(1)
        queue.push(2, "after the reset")
        store.commit(2)
        assert await asyncio.wait_for(waiting, 2) == "after the reset"

    asyncio.run(run())
