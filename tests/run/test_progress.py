"""The plain progress line comes every interval even while no row finishes (a long prompt on a slow server), on a
clock the test moves itself: no real wait, nothing that depends on how fast the machine is."""

from __future__ import annotations

import asyncio

from builders.run.progress import RunProgress


class FakeClock:
    """A monotonic clock that moves only by what is slept on it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)  # let the others run, as a real sleep would


def test_lines_keep_coming_while_no_row_finishes(capsys):
    clock = FakeClock()

    async def go():
        bar = RunProgress(3, "rows", enabled=True, interval_s=10, clock=clock, sleep=clock.sleep)
        ticker = asyncio.create_task(bar.tick())
        while clock.now < 35:  # 35 s and nothing finishes: a row of 128k tokens being read
            await asyncio.sleep(0)
        ticker.cancel()
        bar.advance(100, 5)  # the first row, at 40 s
        bar.close()

    asyncio.run(go())
    lines = capsys.readouterr().err.splitlines()
    waiting = [x for x in lines if x.startswith("rows [0/3] 0.0%")]
    assert [x.split(" | elapsed ")[1] for x in waiting] == ["0:10 | ETA ?", "0:20 | ETA ?", "0:30 | ETA ?"]
    assert lines[len(waiting):] == ["rows [1/3] 33.3% | 0.03 rows/s | in 2 tok/s, out 0 tok/s | failed 0 | elapsed 0:40 "
                                    "| ETA 1:20"]


def test_a_disabled_bar_says_nothing(capsys):
    async def go():
        bar = RunProgress(3, "rows", enabled=False, interval_s=0.05)
        await asyncio.wait_for(bar.tick(), 1)  # returns at once

    asyncio.run(go())
    assert capsys.readouterr().err == ""
