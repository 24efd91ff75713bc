"""The headless reader the kill test shoots at, and the fork server that starts it in milliseconds.

    python -m tests.bridge.kill_reader URL JOURNAL LOG

The server imports everything once (no Kivy), says `ready`, then reads commands on stdin: `start` forks
a reader and prints its pid; `wait PID` reaps it and prints `exit STATUS`.  A reader connects a
SerialSource to URL and plays every roll into a journalled Digger session exactly as the app must:
a frame already recorded (`Session.is_recorded`, after a restart) is answered without playing it
again; a new one is submitted with `ref=event.ref`, and only then settled (ACK when recorded, NAK with
the refusal's code).  It appends `reack REF` to LOG each time it answers an already-recorded frame,
the proof that a kill landed between the journal write and the ACK.
"""

from __future__ import annotations

import os
import sys
import time
import traceback

from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.session import Session
from firmware_bridge.events import BridgeEvent, RollEvent
from firmware_bridge.hub import Bridge
from firmware_bridge.serial_source import SerialSource

SOURCE = "tray"
SETUP = Setup(game="digger", players=(Player(name="Anna"), Player(name="Ben")), seed=1)


def serve(url: str, journal_path: str, log_path: str) -> None:
    """One reader's life: runs until killed."""
    journal = Journal(journal_path)
    game_id = journal.latest_unfinished()
    session = Session.new(SETUP, journal) if game_id is None else Session.resume(journal, game_id)
    bridge = Bridge()
    bridge.add_source(SerialSource(url, name=SOURCE, backoff=(0.005, 0.02), read_timeout=0.02))
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    def play(event: BridgeEvent) -> None:
        if event.seq is None:
            return
        if not isinstance(event, RollEvent):
            bridge.settle(event, True)  # nothing to record
            return
        ref = event.ref
        assert ref is not None
        if session.is_recorded(ref):
            os.write(log, f"reack {ref}\n".encode())
            bridge.settle(event, True)
            return
        outcome = session.submit({"type": "roll", "values": list(event.values)}, "serial", ref=ref)
        bridge.settle(event, outcome.accepted, None if outcome.refusal is None else outcome.refusal.code)

    bridge.subscribe(play)
    bridge.start()
    while True:
        time.sleep(3600)


def main(url: str, journal_path: str, log_path: str) -> None:
    if "kivy" in sys.modules:
        raise SystemExit("the reader must run without Kivy")
    Session.new(SETUP).submit({"type": "roll", "values": list("BYRGW")}, "serial")  # warm up the rules once
    print("ready", flush=True)
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "start":
            pid = os.fork()
            if pid == 0:
                try:
                    serve(url, journal_path, log_path)
                except BaseException:  # noqa: BLE001 — report whatever ended the reader, then exit
                    traceback.print_exc()
                    sys.stderr.flush()
                os._exit(3)
            print(pid, flush=True)
        elif command == "wait":
            _, status = os.waitpid(int(argument), 0)
            print(f"exit {status}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
