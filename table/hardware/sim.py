"""The simulator's virtual stations: keys and mouse in a window become station inputs.

Key map (one keyboard column per station, shown on screen):

=========  ======  ======  ======  ======  ======
           st. 1   st. 2   st. 3   st. 4   st. 5
=========  ======  ======  ======  ======  ======
button     1       2       3       4       5
turn left  Q       W       E       R       T
turn right A       S       D       F       G
push knob  Z       X       C       V       B
=========  ======  ======  ======  ======  ======

Holding a push key for the long-push time opens the table menu. With the mouse:
click a station's button, click left or right of its knob to turn, or on the knob's
centre to push (hold for a long push). The tray: Enter opens a line where typed faces
("3 5 1") or a picture file's path are entered; the dice reader reads pictures, and
``teach FOLDER`` teaches it a folder of labelled photos (as ``table dice teach``).

The stations' picture in the window is drawn by :mod:`table.display.sim_window`, which
hands back where each button and knob is (``layout``) for the mouse.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pygame

from table.games.base import Action
from table.hardware.interfaces import InputSink, LedState, StationInput, Stations

PRESS_KEYS = "12345"
LEFT_KEYS = "qwert"
RIGHT_KEYS = "asdfg"
PUSH_KEYS = "zxcvb"


@dataclass(eq=False)
class SimStations(Stations):
    """The simulator's :class:`Stations`: window events become station inputs.

    ``handle_event`` consumes pygame events and hands station inputs, stamped with the
    table clock, to the sink given to :meth:`start`. ``poll`` is the loop's input
    source for what is not a station input (the dice tray) and reports a long push
    once a push key has been held for ``long_push_s``.
    """

    stations: int
    clock: Callable[[], float]
    long_push_s: float = 2.0
    queue: list[Action] = field(default_factory=list)
    held_push: dict[int, float] = field(default_factory=dict)
    knob: dict[int, int] = field(default_factory=dict)
    leds: dict[int, LedState] = field(default_factory=dict)
    sink: InputSink | None = None
    presses: int = 0
    typing: str | None = None
    tray_message: str = ""
    dice_reader: Callable[[str], list[Any] | None] | None = None
    # ``teach FOLDER`` typed on the tray line: adapts the reader, returns the one-line report.
    dice_teacher: Callable[[str], str] | None = None
    # Where each station's button and knob is in the window (from the last drawing).
    layout: dict[int, dict[str, pygame.Rect]] = field(default_factory=dict)

    # -- Stations ----------------------------------------------------------------------
    def start(self, sink: InputSink) -> None:
        self.sink = sink

    def stop(self) -> None:
        self.sink = None

    def set_leds(self, states: Mapping[int, LedState]) -> None:
        self.leds.update(states)

    def pushes_held(self) -> dict[int, float]:
        return dict(self.held_push)

    def diagnostics(self) -> dict[str, Any]:
        return {"backend": "sim", "presses": self.presses, "held_push": sorted(self.held_push)}

    def _station_input(self, kind: str, station: int, value: Any = None) -> None:
        if not 0 <= station < self.stations:
            return
        self.presses += kind == "press"
        if self.sink is not None:
            self.sink(StationInput(kind, station, self.clock(), value))  # type: ignore[arg-type]
        else:
            self.queue.append(Action(kind, self.clock(), station, value))

    def _turn(self, station: int, delta: int) -> None:
        self.knob[station] = self.knob.get(station, 0) + delta
        self._station_input("turn", station, {"delta": delta})

    def _push_down(self, station: int) -> None:
        if 0 <= station < self.stations:
            self.held_push[station] = self.clock()

    def _push_up(self, station: int) -> None:
        start = self.held_push.pop(station, None)
        if start is not None and self.clock() - start < self.long_push_s:
            self._station_input("push", station)

    def handle_event(self, event: pygame.event.Event) -> None:
        if self.typing is not None and event.type == pygame.KEYDOWN:
            self._type(event)
            return
        if event.type == pygame.KEYDOWN:
            if event.key == pygame.K_RETURN:
                self.typing = ""
                self.tray_message = "Tray: type faces like 3 5 1 or a picture's path, then Enter"
                return
            ch = event.unicode.lower() if event.unicode else ""
            if not ch:
                # On the console (SDL's evdev keyboard, no text input) a key may come without
                # its character: its name is the same letter or digit.
                name = pygame.key.name(event.key).lower()
                ch = name if len(name) == 1 else ""
            if ch and ch in PRESS_KEYS:
                self._station_input("press", PRESS_KEYS.index(ch))
            elif ch and ch in LEFT_KEYS:
                self._turn(LEFT_KEYS.index(ch), -1)
            elif ch and ch in RIGHT_KEYS:
                self._turn(RIGHT_KEYS.index(ch), +1)
            elif ch and ch in PUSH_KEYS:
                self._push_down(PUSH_KEYS.index(ch))
        elif event.type == pygame.KEYUP:
            name = pygame.key.name(event.key).lower()
            if name in PUSH_KEYS and len(name) == 1:
                self._push_up(PUSH_KEYS.index(name))
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            for station, rects in self.layout.items():
                if rects["button"].collidepoint(event.pos):
                    self._station_input("press", station)
                elif rects["knob"].collidepoint(event.pos):
                    knob = rects["knob"]
                    dx = event.pos[0] - knob.centerx
                    if abs(dx) < knob.width / 6:
                        self._push_down(station)
                    else:
                        self._turn(station, 1 if dx > 0 else -1)
        elif event.type == pygame.MOUSEBUTTONUP and event.button == 1:
            for station in list(self.held_push):
                self._push_up(station)
        elif event.type == pygame.MOUSEWHEEL:
            pos = pygame.mouse.get_pos()
            for station, rects in self.layout.items():
                if rects["knob"].collidepoint(pos):
                    self._turn(station, 1 if event.y > 0 else -1)

    def _type(self, event: pygame.event.Event) -> None:
        assert self.typing is not None
        if event.key == pygame.K_ESCAPE:
            self.typing = None
            self.tray_message = ""
        elif event.key == pygame.K_BACKSPACE:
            self.typing = self.typing[:-1]
        elif event.key == pygame.K_RETURN:
            self.submit_tray(self.typing)
            self.typing = None
        elif event.unicode and event.unicode.isprintable():
            self.typing += event.unicode

    def submit_tray(self, text: str) -> None:
        """Typed faces become a ``dice`` input; a path is read by the dice reader."""
        words = text.replace(",", " ").split()
        if words and all(w.isdigit() for w in words):
            self.queue.append(Action("dice", self.clock(), None, {"faces": [int(w) for w in words]}))
            self.tray_message = f"Tray: {' '.join(words)}"
            return
        if words and words[0].lower() == "teach":
            folder = text.strip()[len(words[0]) :].strip()
            if self.dice_teacher is None:
                self.tray_message = "Tray: no dice reader here to teach"
            elif not folder:
                self.tray_message = "Tray: teach needs a folder of labelled photos: teach FOLDER"
            else:
                self.tray_message = f"Tray: {self.dice_teacher(folder)}"
            return
        if self.dice_reader is None:
            self.tray_message = "Tray: no dice reader here; type the faces instead"
            return
        faces = self.dice_reader(text.strip())
        if faces is None:
            self.tray_message = f"Tray: could not read {text.strip()} with confidence; type the faces"
            return
        self.queue.append(Action("dice", self.clock(), None, {"faces": faces}))
        self.tray_message = f"Tray: read {' '.join(str(f) for f in faces)} from the picture"

    def poll(self, now: float) -> list[Action]:
        for station, start in list(self.held_push.items()):
            if now - start >= self.long_push_s:
                del self.held_push[station]
                self._station_input("long_push", station)
        out, self.queue = self.queue, []
        return out

    # -- what the simulator's window shows of them (drawn by table.display.sim_window) ------
    def key_hint(self, station: int) -> str:
        """The keys of ``station``: button, turn left/right, push."""
        s = station
        return f"{PRESS_KEYS[s]} · {LEFT_KEYS[s].upper()}/{RIGHT_KEYS[s].upper()} · {PUSH_KEYS[s].upper()}"
