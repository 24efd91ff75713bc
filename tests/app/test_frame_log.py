"""GOLDTABLE_FRAME_LOG: a line per turn of the UI thread's loop, with the time it was blocked."""

from __future__ import annotations

from pathlib import Path

from companion.app.frames import FrameLog, scheduler_times


def test_each_turn_is_a_line_and_what_was_neither_cpu_nor_waiting_is_blocked(tmp_path: Path) -> None:
    moments = iter([10.0, 10.016, 10.266])
    times = iter([(100.0, 5.0), (110.0, 6.0), (120.0, 6.0)])
    log = FrameLog(tmp_path / "frames.log", clock=lambda: next(moments), times=lambda: next(times))
    log.tick()  # 16 ms: 10 on a CPU, 1 in the run queue, 5 blocked
    log.tick()  # 250 ms: 10 on a CPU: 240 blocked (an fsync on the UI thread looks like this)
    log.close()
    lines = (tmp_path / "frames.log").read_text().splitlines()
    assert lines[0].startswith("#")
    assert lines[1:] == ["10.0160 16.0 10.0 1.0 5.0", "10.2660 250.0 10.0 0.0 240.0"]


def test_scheduler_times_read_this_thread_and_are_zero_where_linux_does_not_say(tmp_path: Path) -> None:
    on_cpu, waiting = scheduler_times()
    assert on_cpu > 0 and waiting >= 0  # this test's own thread has run
    assert scheduler_times(tmp_path / "missing") == (0.0, 0.0)
