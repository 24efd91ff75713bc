"""Serial source: a GTP/1 device on USB serial (or any pyserial URL), read on its own thread.

The reader thread owns the port: it opens it (or finds it by USB VID:PID), reads whatever has arrived
in one chunk, feeds the framing layer (`FrameParser`), applies the seq/answer rules (`DeviceLink`) and
hands events to the hub.  An event frame is answered only when the app settles it (`settle`, any
thread): the answer goes out through the writer thread, like LED and beeper commands, so the caller
never waits on the port.  I/O errors (port gone, socket closed) end the connection and start the
reconnect loop; parse errors only produce `rejected` events and never touch the connection.
"""

from __future__ import annotations

import logging
import queue
import select
import threading
import time
from collections.abc import Callable
from typing import Any

import serial
from serial.tools import list_ports

from firmware_bridge.events import LINK_RESTORED, NO_LINE, NO_USB_DEVICE, BridgeEvent, OutputCommand, StatusEvent
from firmware_bridge.hub import Emit, Source
from firmware_bridge.protocol import (
    EVENT_KINDS,
    DeviceLink,
    Frame,
    FrameParser,
    encode_command,
    frame_to_event,
    rejection_to_event,
)

log = logging.getLogger(__name__)

#: Raspberry Pi Pico running MicroPython (USB CDC).  Other boards: pass `usb_ids`.
PICO_USB_IDS: tuple[tuple[int, int], ...] = ((0x2E8A, 0x0005),)


def parse_usb_id(text: str) -> tuple[int, int]:
    """`2E8A:0005` -> (0x2E8A, 0x0005); ValueError for anything else."""
    vid, _, pid = text.partition(":")
    try:
        ids = int(vid, 16), int(pid, 16)
    except ValueError:
        raise ValueError(f"USB id must look like 2E8A:0005, not {text!r}") from None
    if not all(0 <= part <= 0xFFFF for part in ids):
        raise ValueError(f"USB id must look like 2E8A:0005, not {text!r}")
    return ids


def find_port(usb_ids: tuple[tuple[int, int], ...]) -> str | None:
    """The first serial port whose USB VID:PID is one of `usb_ids`, or None."""
    for port in sorted(list_ports.comports(), key=lambda info: info.device):
        if port.vid is not None and (port.vid, port.pid) in usb_ids:
            return str(port.device)
    return None


class SerialSource(Source):
    """A GTP/1 device behind a pyserial URL, kept connected by itself."""

    has_outputs = True

    def __init__(self, url: str | None = None, *, name: str = "serial",
                 usb_ids: tuple[tuple[int, int], ...] = PICO_USB_IDS, baudrate: int = 115200,
                 heartbeat_timeout: float = 3.0, backoff: tuple[float, float] = (0.05, 0.8),
                 read_timeout: float = 0.05, clock: Callable[[], float] = time.monotonic) -> None:
        """`url=None` finds the device by USB id.  A URL pyserial cannot handle raises ValueError here."""
        if url is not None:
            serial.serial_for_url(url, do_not_open=True)  # unknown scheme -> ValueError now, not later
        self.name = name
        self.url = url
        self.usb_ids = usb_ids
        self.baudrate = baudrate
        self.heartbeat_timeout = heartbeat_timeout
        self.backoff = backoff
        self.read_timeout = read_timeout
        self._clock = clock
        self._parser = FrameParser()
        self._link = DeviceLink()
        self._link_lock = threading.Lock()
        self._pending_event: BridgeEvent | None = None
        self._port: serial.SerialBase | None = None
        self._port_name: str | None = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._writer: threading.Thread | None = None
        self._outbox: queue.SimpleQueue[tuple[bytes, bool] | None] = queue.SimpleQueue()
        self._reported: str | None = None
        self._hello_seen: tuple[str, str] | None = None
        self.device: str | None = None
        self.firmware: str | None = None
        self.connects = 0
        self.link_losses = 0
        self.commands_dropped = 0
        self.acked = 0
        self.refused = 0

    @property
    def connected(self) -> bool:
        return self._port is not None

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "serial",
            "name": self.name,
            "url": self.url,
            "port": self._port_name,
            "connected": self.connected,
            "device": self.device,
            "firmware": self.firmware,
            "frames": self._parser.frames,
            "rejected": self._parser.rejected,
            "duplicates": self._link.duplicates,
            "pending": self._link.pending,
            "acked": self.acked,
            "refused": self.refused,
            "connects": self.connects,
            "link_losses": self.link_losses,
            "commands_dropped": self.commands_dropped,
        }

    def start(self, emit: Emit) -> None:
        if self._thread is not None:
            return
        self._emit = emit
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"{self.name}-reader", daemon=True)
        self._thread.start()
        self._writer = threading.Thread(target=self._write_commands, name=f"{self.name}-writer", daemon=True)
        self._writer.start()

    def stop(self) -> None:
        self._stop.set()
        if self._writer is not None:
            self._outbox.put(None)
            self._writer.join()
            self._writer = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._emit = None

    def send(self, command: OutputCommand) -> None:
        """Queue a command and return at once: a device that stops reading must not stall the caller
        (the app's UI thread).  Commands that find the port closed are dropped and counted."""
        self._outbox.put((encode_command(command), False))

    def settle(self, event: BridgeEvent, recorded: bool, reason: str | None = None) -> None:
        """Answer the frame behind `event` (`$ACK` when recorded, else `$NAK,<seq>,<reason>`) and return
        at once.  Only the event frame waiting for its answer can be settled, once; anything else (an
        event settled twice, one the device gave up by restarting) is ignored.  An answer that finds the
        port closed is lost but kept: the device resends the frame and gets it again."""
        if event.seq is None:
            return
        with self._link_lock:
            if event != self._pending_event:
                return
            answer = self._link.settle(event.seq, recorded, reason)
            self._pending_event = None
        if answer is not None:
            if recorded:
                self.acked += 1
            else:
                self.refused += 1
            self._outbox.put((answer, True))

    def _write_commands(self) -> None:
        while True:
            item = self._outbox.get()
            if item is None:
                return
            line, is_answer = item
            if not self._write(line) and not is_answer:
                self.commands_dropped += 1

    # --- reader thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            url = self.url or find_port(self.usb_ids)
            if url is None:
                self._status("disconnected", NO_USB_DEVICE.format(ids=self._ids_text()))
            else:
                try:
                    port = serial.serial_for_url(url, baudrate=self.baudrate, timeout=self.read_timeout,
                                                 write_timeout=1.0)
                except (serial.SerialException, OSError, ValueError) as error:
                    self._status("disconnected", f"{url}: {error}")
                else:
                    delay = self.backoff[0]
                    self._serve(port, url)
                    continue
            self._stop.wait(delay)
            delay = min(delay * 2, self.backoff[1])

    def _serve(self, port: serial.SerialBase, url: str) -> None:
        """Read until the port fails or we are stopped; then close it."""
        with self._write_lock:
            self._port, self._port_name = port, url
        self.connects += 1
        self._hello_seen = None
        self._status("connected", url)
        reason = "stopped"
        try:
            reason = self._read_loop(port)
        finally:
            with self._write_lock:
                self._port = None
            try:
                port.close()
            except (serial.SerialException, OSError):
                log.debug("%s: closing %s failed", self.name, url, exc_info=True)
        if not self._stop.is_set():
            self._status("disconnected", f"{url}: {reason}")

    def _chunk_reader(self, port: serial.SerialBase) -> Callable[[], bytes]:
        """A function returning everything that has arrived, waiting at most `read_timeout` for it.

        Ports with a file descriptor (device nodes, socket://) are switched to non-blocking and waited
        on with select: pyserial's socket handler reports `in_waiting` as 0 or 1, so the usual
        `read(in_waiting or 1)` would go byte by byte there.  Other handlers (loop://, rfc2217://)
        report `in_waiting` truthfully and use that.
        """
        try:
            fd = port.fileno()
        except (OSError, AttributeError):  # io.UnsupportedOperation is an OSError
            return lambda: port.read(port.in_waiting or 1)
        port.timeout = 0
        timeout = self.read_timeout

        def read() -> bytes:
            ready, _, _ = select.select([fd], [], [], timeout)
            return port.read(65536) if ready else b""

        return read

    def _read_loop(self, port: serial.SerialBase) -> str:
        last_line = self._clock()
        lost = False
        read = self._chunk_reader(port)
        while not self._stop.is_set():
            try:
                data = read()
            except (serial.SerialException, OSError) as error:
                return str(error) or type(error).__name__
            now = self._clock()
            if data:
                for item in self._parser.feed(data):
                    if isinstance(item, Frame):
                        if not self._on_frame(item):
                            return "write failed"
                    else:
                        self._deliver(rejection_to_event(item, self.name))
                if b"\n" in data:
                    last_line = now
                    if lost:
                        lost = False
                        self._status("connected", LINK_RESTORED)
            if not lost and now - last_line > self.heartbeat_timeout:
                lost = True
                self.link_losses += 1
                self._status("link_lost", NO_LINE.format(seconds=f"{self.heartbeat_timeout:g}"))
        return "stopped"

    def _on_frame(self, frame: Frame) -> bool:
        """Answer what needs no decision (HB; a resend whose answer is known), deliver what is new; an
        event frame then waits for `settle`.  False when an answer could not be written."""
        event: BridgeEvent | None = None
        with self._link_lock:
            answer, deliver = self._link.accept(frame)
            if deliver:  # a new frame: whatever was pending before, the device has moved on from it
                event = frame_to_event(frame, self.name) if frame.kind in EVENT_KINDS else None
                self._pending_event = event
        if answer is not None and not self._write(answer):
            return False
        if deliver and frame.kind == "HELLO":
            introduced = (frame.fields[0], frame.fields[1])
            if self._hello_seen == introduced:
                return True  # the same device saying hello again on this connection
            self._hello_seen = introduced
            self.device, self.firmware = introduced
            event = frame_to_event(frame, self.name)
        if event is not None:
            self._deliver(event)
        return True

    def _write(self, data: bytes) -> bool:
        with self._write_lock:
            port = self._port
            if port is None:
                return False
            try:
                port.write(data)
            except (serial.SerialException, OSError) as error:
                log.info("%s: write failed: %s", self.name, error)
                return False
        return True

    def _status(self, state: str, detail: str) -> None:
        """Report a link state once; repeated failures while reconnecting stay quiet."""
        if state == "disconnected" and self._reported == "disconnected":
            return
        self._reported = state
        self._deliver(StatusEvent(source=self.name, state=state, detail=detail))  # type: ignore[arg-type]

    def _ids_text(self) -> str:
        return ", ".join(f"{vid:04X}:{pid:04X}" for vid, pid in self.usb_ids)
