"""The sensor board as a USB device: a Raspberry Pi Pico running MicroPython (USB id 2E8A:0005, a CDC-ACM
serial port), made on the host and attached to the guest through QEMU's `usb-redir` device.

QEMU's own `usb-serial` is an FTDI adapter (0403:6001); a Pico is a CDC-ACM device with its own id, which
is what Goldtable looks for. So this module speaks QEMU's USB redirection protocol (usbredir: little-endian
packets of a type, a length and an id, documented with libusbredirparser) as the device side: it answers
the guest's descriptor requests and class requests with a Pico's, and moves the bytes of the bulk
endpoints to and from a TCP connection to `goldtable bridge simulate` — the simulated board's firmware.
The guest's kernel binds its own cdc_acm driver to it and makes /dev/ttyACM0, as on a Pi.

QEMU connects to `port` each time the device is plugged in (`device_add usb-redir` with a new chardev)
and closes the connection when it is pulled out (`device_del`, `chardev-remove`).
"""

from __future__ import annotations

import contextlib
import select
import socket
import struct
import threading
from collections import deque
from dataclasses import dataclass

from pisim.host import Log

VENDOR, PRODUCT, RELEASE = 0x2E8A, 0x0005, 0x0100
STRINGS = ("MicroPython", "Board in FS mode", "E660583883574A2B")

# packet types (the usbredir protocol's numbering)
HELLO, DEVICE_CONNECT, RESET, INTERFACE_INFO, EP_INFO = 0, 1, 3, 4, 5
SET_CONFIGURATION, GET_CONFIGURATION, CONFIGURATION_STATUS = 6, 7, 8
SET_ALT_SETTING, GET_ALT_SETTING, ALT_SETTING_STATUS = 9, 10, 11
START_INTERRUPT, STOP_INTERRUPT, INTERRUPT_STATUS = 15, 16, 17
CANCEL_DATA_PACKET, FILTER_FILTER, DISCONNECT_ACK = 21, 23, 24
CONTROL_PACKET, BULK_PACKET, INTERRUPT_PACKET = 100, 101, 103
SUCCESS, CANCELLED, STALL = 0, 1, 4
#: Capabilities we offer: device_connect carries the device release, ep_info carries packet sizes.
CAPS = (1 << 1) | (1 << 4)

NOTIFY_IN, DATA_OUT, DATA_IN = 0x81, 0x02, 0x82
ENDPOINTS = {0x00: (0, 0, 0, 64), NOTIFY_IN: (3, 16, 0, 16), DATA_OUT: (2, 0, 1, 64), DATA_IN: (2, 0, 1, 64)}


def _index(endpoint: int) -> int:
    """usbredir's endpoint slot: IN endpoints in the upper half."""
    return ((endpoint & 0x80) >> 3) | (endpoint & 0x0F)


def device_descriptor() -> bytes:
    return struct.pack("<BBHBBBBHHHBBBB", 18, 1, 0x0200, 0xEF, 0x02, 0x01, 64, VENDOR, PRODUCT, RELEASE, 1, 2, 3, 1)


def configuration_descriptor() -> bytes:
    """Two interfaces joined by an association, as MicroPython's USB serial port: the CDC control
    interface with its notification endpoint, and the data interface with a bulk pair."""
    parts = [
        struct.pack("<BBBBBBBB", 8, 0x0B, 0, 2, 0x02, 0x02, 0x00, 0),  # interface association
        struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 1, 0x02, 0x02, 0x00, 0),  # CDC communication interface
        struct.pack("<BBBH", 5, 0x24, 0x00, 0x0120),  # CDC header
        struct.pack("<BBBBB", 5, 0x24, 0x01, 0x00, 1),  # call management
        struct.pack("<BBBB", 4, 0x24, 0x02, 0x06),  # abstract control management
        struct.pack("<BBBBB", 5, 0x24, 0x06, 0, 1),  # union: control 0, data 1
        struct.pack("<BBBBHB", 7, 5, NOTIFY_IN, 3, 16, 16),
        struct.pack("<BBBBBBBBB", 9, 4, 1, 0, 2, 0x0A, 0x00, 0x00, 0),  # CDC data interface
        struct.pack("<BBBBHB", 7, 5, DATA_OUT, 2, 64, 0),
        struct.pack("<BBBBHB", 7, 5, DATA_IN, 2, 64, 0),
    ]
    body = b"".join(parts)
    return struct.pack("<BBHBBBBB", 9, 2, 9 + len(body), 2, 1, 0, 0x80, 250) + body


def string_descriptor(index: int) -> bytes | None:
    if index == 0:
        return struct.pack("<BBH", 4, 3, 0x0409)
    if 1 <= index <= len(STRINGS):
        text = STRINGS[index - 1].encode("utf-16-le")
        return struct.pack("<BB", 2 + len(text), 3) + text
    return None


@dataclass
class _Request:
    id: int
    length: int


class Pico:
    """The device: serves QEMU on `port` (127.0.0.1), relays its serial data to the firmware at `firmware`."""

    def __init__(self, firmware: tuple[str, int], log: Log) -> None:
        self.firmware = firmware
        self.log = log
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="pico", daemon=True)
        self.sessions = 0
        self.line_coding = b"\x00\xc2\x01\x00\x00\x00\x08"  # 115200 8N1

    def start(self) -> Pico:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._server.close()
        self._thread.join(5)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                qemu, _ = self._server.accept()
            except OSError:
                return
            self.sessions += 1
            with qemu:
                try:
                    _Session(self, qemu).run()
                except (OSError, struct.error) as error:
                    self.log.write(f"pico: session {self.sessions} ended: {error}")


class _Session:
    """One plug-in: from QEMU's hello until it closes the connection."""

    def __init__(self, device: Pico, qemu: socket.socket) -> None:
        self.device = device
        self.qemu = qemu
        self.buffer = b""
        self.configuration = 0
        self.reads: deque[_Request] = deque()
        self.pending = b""  # from the firmware, not yet asked for by the guest
        self.firmware: socket.socket | None = None

    def run(self) -> None:
        self.send(HELLO, 0, b"pi-sim pico".ljust(64, b"\0"), struct.pack("<I", CAPS))
        try:
            while not self.device._stop.is_set():
                sockets = [self.qemu] + ([self.firmware] if self.firmware else [])
                readable, _, _ = select.select(sockets, [], [], 0.5)
                if self.firmware is not None and self.firmware in readable:
                    data = self.firmware.recv(4096)
                    if not data:
                        self.firmware.close()
                        self.firmware = None
                    self.pending += data
                    self.answer_reads()
                if self.qemu in readable:
                    data = self.qemu.recv(65536)
                    if not data:
                        return
                    self.buffer += data
                    self.handle_packets()
        finally:
            if self.firmware is not None:
                self.firmware.close()

    # -- framing ---------------------------------------------------------------------------------------
    def send(self, kind: int, packet_id: int, header: bytes, data: bytes = b"") -> None:
        self.qemu.sendall(struct.pack("<III", kind, len(header) + len(data), packet_id) + header + data)

    def handle_packets(self) -> None:
        while len(self.buffer) >= 12:
            kind, length, packet_id = struct.unpack_from("<III", self.buffer)
            if len(self.buffer) < 12 + length:
                return
            body, self.buffer = self.buffer[12:12 + length], self.buffer[12 + length:]
            self.handle(kind, packet_id, body)

    # -- meaning ---------------------------------------------------------------------------------------
    def handle(self, kind: int, packet_id: int, body: bytes) -> None:
        if kind == HELLO:
            self.connect()
        elif kind in (SET_CONFIGURATION, GET_CONFIGURATION):
            if kind == SET_CONFIGURATION:
                self.configuration = body[0]
            self.send(CONFIGURATION_STATUS, packet_id, bytes((SUCCESS, self.configuration)))
        elif kind in (SET_ALT_SETTING, GET_ALT_SETTING):
            self.send(ALT_SETTING_STATUS, packet_id, bytes((SUCCESS, body[0], 0)))
        elif kind in (START_INTERRUPT, STOP_INTERRUPT):
            self.send(INTERRUPT_STATUS, packet_id, bytes((SUCCESS, body[0])))
        elif kind == CANCEL_DATA_PACKET:
            for request in list(self.reads):
                if request.id == packet_id:
                    self.reads.remove(request)
                    self.send(BULK_PACKET, packet_id, struct.pack("<BBHI", DATA_IN, CANCELLED, 0, 0))
        elif kind == CONTROL_PACKET:
            self.control(packet_id, body)
        elif kind == BULK_PACKET:
            self.bulk(packet_id, body)
        elif kind not in (RESET, FILTER_FILTER, DISCONNECT_ACK):
            self.device.log.write(f"pico: packet type {kind} not handled")

    def connect(self) -> None:
        """Tell QEMU what is plugged in: the interfaces, the endpoints, then the device itself."""
        interfaces = struct.pack("<I", 2) + bytes((0, 1)).ljust(32, b"\0") + bytes((0x02, 0x0A)).ljust(32, b"\0")
        interfaces += bytes((0x02, 0x00)).ljust(32, b"\0") + bytes(32)
        self.send(INTERFACE_INFO, 0, interfaces)
        types, intervals, owners, sizes = [255] * 32, [0] * 32, [0] * 32, [0] * 32
        for endpoint, (kind, interval, interface, size) in ENDPOINTS.items():
            slot = _index(endpoint)
            types[slot], intervals[slot], owners[slot], sizes[slot] = kind, interval, interface, size
        self.send(EP_INFO, 0, bytes(types) + bytes(intervals) + bytes(owners) + struct.pack("<32H", *sizes))
        self.send(DEVICE_CONNECT, 0, struct.pack("<BBBBHHH", 1, 0xEF, 0x02, 0x01, VENDOR, PRODUCT, RELEASE))

    def control(self, packet_id: int, body: bytes) -> None:
        endpoint, request, request_type, _status, value, index, length = struct.unpack_from("<BBBBHHH", body)
        data: bytes | None = b""
        if request_type == 0x80 and request == 0x06:  # GET_DESCRIPTOR
            kind, number = value >> 8, value & 0xFF
            data = {1: device_descriptor(), 2: configuration_descriptor()}.get(kind) if kind != 3 \
                else string_descriptor(number)
        elif request_type & 0x80 and request == 0x00:  # GET_STATUS
            data = b"\0\0"
        elif request_type == 0xA1 and request == 0x21:  # GET_LINE_CODING
            data = self.device.line_coding
        elif request_type == 0x21 and request == 0x20:  # SET_LINE_CODING
            self.device.line_coding = body[10:17]
        elif request_type == 0x21 and request == 0x22:  # SET_CONTROL_LINE_STATE (DTR, RTS)
            self.open_firmware()
        elif request_type & 0x80:
            data = None  # anything else asked of the device: not supported
        status = STALL if data is None else SUCCESS
        if request_type & 0x80:
            answer = (data or b"")[:length]
            self.send(CONTROL_PACKET, packet_id, struct.pack("<BBBBHHH", endpoint, request, request_type, status,
                                                              value, index, len(answer)), answer)
        else:
            self.send(CONTROL_PACKET, packet_id, struct.pack("<BBBBHHH", endpoint, request, request_type, status,
                                                              value, index, length))

    def open_firmware(self) -> None:
        """The guest opened the port: the board's firmware is there to talk to (connected once per plug-in)."""
        if self.firmware is None:
            with contextlib.suppress(OSError):
                self.firmware = socket.create_connection(self.device.firmware, timeout=5)
                self.firmware.setblocking(True)

    def bulk(self, packet_id: int, body: bytes) -> None:
        endpoint, _status, length, stream = struct.unpack_from("<BBHI", body)
        if endpoint & 0x80:
            self.reads.append(_Request(packet_id, length))
            self.answer_reads()
            return
        data = body[8:]
        self.open_firmware()
        if self.firmware is not None:
            with contextlib.suppress(OSError):
                self.firmware.sendall(data)
        self.send(BULK_PACKET, packet_id, struct.pack("<BBHI", endpoint, SUCCESS, len(data), stream))

    def answer_reads(self) -> None:
        while self.reads and self.pending:
            request = self.reads.popleft()
            chunk, self.pending = self.pending[:request.length], self.pending[request.length:]
            self.send(BULK_PACKET, request.id, struct.pack("<BBHI", DATA_IN, SUCCESS, len(chunk), 0), chunk)
