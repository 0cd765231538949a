"""Following a table's journal read-only and turning it into venue messages.

The journal is the relay's outbox. A position in it is ``(game, step)``: steps
``0 .. n-1`` are the game's journaled actions (the action's ``seq``), step ``n`` is
its result once the game is finished. Positions are ordered, and every message
derived from a position is the same however often it is derived, so resending a
position after a crash is a harmless duplicate.

The file is opened with SQLite's ``mode=ro``: the relay can never change a game.
A write by the table is seen on the next read (each read is its own transaction).

The journal's JSON (setups, actions) is read within the table's bounds
(:func:`table.common.checks.load_json`). A game that cannot be read or replayed (a
setup nested too deep or not JSON, a game this build does not have, an action that
does not decode) is skipped: counted in :attr:`JournalFollower.unreadable`, logged
once, never published, and the games after it are. The kiosk closes such a game
without an outcome and keeps its rows, so the relay must never stop on one.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.common.checks import load_json
from table.common.names import shown_name
from table.games import get_engine
from table.games.base import Action, GameSetup
from table.play.session import Session
from table.venue import contract

log = logging.getLogger(__name__)

# What a journaled game that cannot be read or replayed raises on its way to a message
# (an engine's GameError is a ValueError).
_UNREADABLE = (ValueError, TypeError, KeyError, IndexError)


class UnreadableGame(ValueError):
    """A journaled game the relay cannot read or replay (see the module docstring)."""

    def __init__(self, game: int, reason: str) -> None:
        super().__init__(f"game {game} cannot be read ({reason})")
        self.game = game
        self.reason = reason


@dataclass(frozen=True, order=True)
class Position:
    """A place in the journal's stream of messages (see the module docstring)."""

    game: int
    step: int


@dataclass(frozen=True)
class Message:
    """One MQTT message to publish for ``position`` (``None`` for status messages)."""

    position: Position | None
    topic: str
    payload: dict[str, Any]
    retain: bool


@dataclass
class _GameRow:
    id: int
    engine: str
    setup: GameSetup
    seed: int
    started: float
    finished: float | None


@dataclass
class _Live:
    """The session of the game being followed, folded up to ``step`` actions."""

    row: _GameRow
    session: Session
    step: int = 0
    events_seen: int = 0
    last_input: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def title_of(engine: str) -> str:
    try:
        return str(get_engine(engine).title)
    except (KeyError, ValueError):
        return engine


def players_of(session: Session, scores: dict[int, int], winners: tuple[int, ...] | None) -> list[dict[str, Any]]:
    """Players in seating order with their names (or station names) and scores."""
    out: list[dict[str, Any]] = []
    for station in session.setup.stations:
        player: dict[str, Any] = {
            "station": station,
            # The one rule for names: a journal may hold what no table would take today.
            "name": shown_name(session.setup.name_of(station), station),
            "score": int(scores.get(station, 0)),
        }
        if winners is not None:
            player["winner"] = station in winners
        out.append(player)
    return out


class JournalFollower:
    """Reads a journal (read-only) and yields the messages after a position."""

    def __init__(self, path: str | Path, table: str) -> None:
        self.path = Path(path)
        self.table = contract.check_table_id(table)
        self._db: sqlite3.Connection | None = None
        # Two folded sessions: the stream's (publishing may lag behind) and the status's.
        self._lives: dict[str, _Live] = {}
        # Games skipped as unreadable, by (game id, start time as stored): the reason.
        self.unreadable: dict[tuple[int, str], str] = {}

    # -- the file ----------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            if not self.path.exists():
                raise FileNotFoundError(f"there is no journal at {self.path} yet")
            uri = f"file:{self.path}?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA query_only=1")
        return self._db

    def identity(self) -> str:
        """Which journal this is: its first game's start time ("" while it holds no game)."""
        row = self._conn().execute("SELECT started FROM games ORDER BY id LIMIT 1").fetchone()
        return "" if row is None else repr(float(row[0]))

    def data_version(self) -> int:
        """Changes whenever another connection (the table) commits to the journal."""
        return int(self._conn().execute("PRAGMA data_version").fetchone()[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _game(self, game_id: int) -> _GameRow | None:
        """The game's row (None: no such game); :class:`UnreadableGame` if it cannot be read."""
        row = self._conn().execute(
            "SELECT id, engine, setup, seed, started, finished FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        return None if row is None else self._row(row)

    @staticmethod
    def _row(row: tuple[Any, ...]) -> _GameRow:
        try:
            game = int(row[0])
        except _UNREADABLE as exc:
            raise UnreadableGame(-1, f"its id is {row[0]!r}") from exc
        try:
            setup = GameSetup.from_json(load_json(str(row[2])))  # bounded: no nest exhausts the parser
            get_engine(str(row[1]))
            return _GameRow(game, str(row[1]), setup, int(row[3]), float(row[4]),
                            None if row[5] is None else float(row[5]))
        except _UNREADABLE as exc:
            raise UnreadableGame(game, str(exc)[:200]) from None

    def _skip(self, exc: UnreadableGame) -> None:
        """Count and log (once per game) a game that cannot be read."""
        row = self._conn().execute("SELECT started FROM games WHERE id = ?", (exc.game,)).fetchone()
        key = (exc.game, repr(row[0]) if row else "")
        if key not in self.unreadable:
            self.unreadable[key] = exc.reason
            log.warning("journal %s: game %d cannot be read (%s); it is skipped, never published, and the "
                        "games after it are", self.path, exc.game, exc.reason)

    @staticmethod
    def _action(game: int, text: object) -> Action:
        try:
            return Action.from_json(load_json(str(text)))
        except _UNREADABLE as exc:
            raise UnreadableGame(game, f"an action: {str(exc)[:160]}") from None

    def first_position(self, since: float) -> Position:
        """Where a relay with no memory starts: the first game started after ``since``."""
        # One statement, so one snapshot: asked apart, a game started between the two
        # questions would be the "last" one and the relay would begin after it, never
        # publishing it (a table's first game, when the relay starts with the table).
        first, last = self._conn().execute(
            "SELECT (SELECT min(id) FROM games WHERE started >= ?), (SELECT max(id) FROM games)", (since,)
        ).fetchone()
        if first is None:
            return Position(int(last or 0) + 1, 0)
        return Position(int(first), 0)

    def journal_start(self) -> float | None:
        """The start time of the journal's first game (None while it holds none): names the journal."""
        row = self._conn().execute("SELECT started FROM games ORDER BY id LIMIT 1").fetchone()
        return None if row is None else float(row[0])

    def results_before(self, since: float, before: Position, limit: int = 64) -> list[int]:
        """The newest ``limit`` finished games (finished after ``since``) whose result lies
        before ``before``, oldest first, without the games skipped as unreadable (never published)."""
        skipped = {game for game, _ in self.unreadable}
        rows = self._conn().execute(
            "SELECT id FROM games WHERE finished IS NOT NULL AND finished >= ? AND id < ? ORDER BY id DESC LIMIT ?",
            (since, before.game, limit + len(skipped)),
        ).fetchall()
        return sorted(int(r[0]) for r in rows if int(r[0]) not in skipped)[-limit:]

    def finished_games(self, since: float, before: Position) -> list[int]:
        """Finished games (finished after ``since``) whose result lies before ``before``."""
        rows = self._conn().execute(
            "SELECT id FROM games WHERE finished IS NOT NULL AND finished >= ? AND id <= ? ORDER BY id",
            (since, before.game),
        ).fetchall()
        return [int(r[0]) for r in rows]

    # -- messages ----------------------------------------------------------------------
    def _session_at(self, row: _GameRow, step: int, slot: str = "stream") -> _Live:
        """The session of ``row`` folded to ``step`` actions (reusing the slot's cached one)."""
        live = self._lives.get(slot)
        if live is None or live.row.id != row.id or live.row.started != row.started or live.step > step:
            live = _Live(row, self._start(row))
            self._lives[slot] = live
        live.row = row
        if live.step < step:
            for seq, text in self._conn().execute(
                "SELECT seq, action FROM actions WHERE game = ? AND seq >= ? AND seq < ? ORDER BY seq",
                (row.id, live.step, step),
            ):
                if int(seq) != live.step:
                    break
                self._fold(live, self._action(row.id, text))
            live.events_seen = len(live.session.state.events)
        return live

    def _start(self, row: _GameRow) -> Session:
        try:
            return Session.start(row.engine, row.setup, row.seed)
        except _UNREADABLE as exc:
            raise UnreadableGame(row.id, f"it cannot be started: {str(exc)[:160]}") from None

    def _fold(self, live: _Live, action: Action) -> None:
        try:
            live.session.apply(action)
        except _UNREADABLE as exc:
            self._lives = {k: v for k, v in self._lives.items() if v is not live}  # it is mid-action now
            raise UnreadableGame(live.row.id, f"action {live.step} cannot be replayed: {str(exc)[:160]}") from None
        live.step += 1
        if action.kind != "tick":
            # Table time from the game's start; a scripted table may run faster than the wall clock.
            live.last_input = min(time.time(), live.row.started + action.t)

    def messages_after(self, pos: Position, limit: int = 200) -> tuple[list[Message], Position]:
        """Up to ``limit`` messages from ``pos`` on, and the position after the last one.

        Stops at the journal's end: an unfinished game's next action, or the next game
        that has not started yet.
        """
        out: list[Message] = []
        while len(out) < limit:
            try:
                more, pos, done = self._messages_of_game(pos, limit - len(out))
            except UnreadableGame as exc:
                self._skip(exc)
                pos = Position(pos.game + 1, 0)
                continue
            out += more
            if done:
                break
        return out, pos

    def _messages_of_game(self, pos: Position, limit: int) -> tuple[list[Message], Position, bool]:
        """Messages of the game at ``pos`` (up to ``limit``), the next position, and whether to stop there."""
        out: list[Message] = []
        while len(out) < limit:
            row = self._game(pos.game)
            if row is None:
                nxt = self._conn().execute("SELECT min(id) FROM games WHERE id > ?", (pos.game,)).fetchone()
                if nxt is None or nxt[0] is None:
                    return out, pos, True
                return out, Position(int(nxt[0]), 0), False
            live = self._session_at(row, pos.step)
            if live.step < pos.step:
                # The journal holds fewer actions than the position claims (a journal
                # replaced under us): skip to the next game rather than stall.
                return out, Position(pos.game + 1, 0), False
            rows = self._conn().execute(
                "SELECT seq, action FROM actions WHERE game = ? AND seq >= ? ORDER BY seq LIMIT ?",
                (row.id, pos.step, limit - len(out)),
            ).fetchall()
            for seq, text in rows:
                if int(seq) != live.step:
                    break
                action = self._action(row.id, text)
                self._fold(live, action)
                out.append(self._event(live, action, int(seq)))
                pos = Position(row.id, live.step)
            if len(out) >= limit or row.finished is None:
                return out, pos, True
            # The game is finished and every action is out: its result, then the next game.
            n = self._conn().execute("SELECT count(*) FROM actions WHERE game = ?", (row.id,)).fetchone()[0]
            if pos.step < int(n):
                continue
            out.append(self.result_message(row.id))
            return out, Position(row.id + 1, 0), False
        return out, pos, True

    def _event(self, live: _Live, action: Action, seq: int) -> Message:
        session = live.session
        events = session.state.events
        new = [e.to_json() for e in events[live.events_seen:]][-64:]
        live.events_seen = len(events)
        payload = {
            "v": contract.VERSION,
            "type": "event",
            "table": self.table,
            "game": live.row.id,
            "started": live.row.started,
            "engine": live.row.engine,
            "seq": seq,
            "t": round(max(action.t, 0.0), 6),
            "kind": action.kind[:32],
            "station": action.station,
            "round": int(session.state.round),
            "scores": {str(k): v for k, v in sorted(session.scores().items())},
            "over": session.is_over(),
            "events": new,
        }
        return Message(Position(live.row.id, seq), contract.event_topic(self.table, live.row.id), payload, False)

    def result_message(self, game_id: int) -> Message:
        """The result of a finished game, replayed from the journal (as ``table replay`` does).

        Raises :class:`UnreadableGame` for a game that cannot be read or replayed, and
        ``ValueError`` for one that is not finished.
        """
        row = self._game(game_id)
        if row is None or row.finished is None:
            raise ValueError(f"game {game_id} is not finished in {self.path}")
        actions = [
            self._action(game_id, text)
            for (text,) in self._conn().execute("SELECT action FROM actions WHERE game = ? ORDER BY seq", (game_id,))
        ]
        try:
            session = Session.replay(row.engine, row.setup, row.seed, actions)
        except _UNREADABLE as exc:
            raise UnreadableGame(game_id, f"it cannot be replayed: {str(exc)[:160]}") from None
        outcome = session.outcome()
        scores = dict(outcome.scores) if outcome else session.scores()
        winners = tuple(outcome.winners) if outcome else ()
        payload = {
            "v": contract.VERSION,
            "type": "result",
            "table": self.table,
            "game": row.id,
            "started": row.started,
            "finished": row.finished,
            "engine": row.engine,
            "title": title_of(row.engine)[:60],
            "variant": row.setup.variant[:40],
            "actions": len(actions),
            "rounds": int(session.state.round),
            "reason": (outcome.reason.english() if outcome else "closed without an outcome")[:200],
            "players": players_of(session, scores, winners),
        }
        if session.ended_early:
            payload["ended"] = "early"  # counts as no win on the leaderboard
        journal = self.journal_start()
        if journal is not None:
            # Names the journal: with the game's id, the result's identity at the venue,
            # whatever times the game itself carries.
            payload["journal"] = journal
        return Message(Position(row.id, len(actions)), contract.result_topic(self.table, row.id), payload, True)

    # -- the table's state now ------------------------------------------------------------
    def live_game(self) -> dict[str, Any] | None:
        """The latest game as the status message shows it (None for an empty journal, or
        when the latest game cannot be read: it is skipped as in the stream)."""
        row = self._conn().execute(
            "SELECT id, engine, setup, seed, started, finished FROM games ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        try:
            game = self._row(row)
            n = int(self._conn().execute("SELECT count(*) FROM actions WHERE game = ?", (game.id,)).fetchone()[0])
            live = self._session_at(game, n, "status")
        except UnreadableGame as exc:
            self._skip(exc)
            return None
        session = live.session
        over = session.is_over() or game.finished is not None
        outcome = session.outcome()
        scores = dict(outcome.scores) if outcome else session.scores()
        return {
            "id": game.id,
            "started": game.started,
            "engine": game.engine,
            "title": title_of(game.engine)[:60],
            "variant": game.setup.variant[:40],
            "round": int(session.state.round),
            "over": over,
            "paused": session.paused,
            "seq": live.step - 1,
            "players": players_of(session, scores, tuple(outcome.winners) if outcome and over else None),
            "last_input": live.last_input if live.last_input is not None else game.started,
        }


def read_health(path: Path, max_age_s: float = 120.0) -> dict[str, str]:
    """The kiosk's health file (``health.json`` beside the journal), or all ``unknown``.

    A file older than ``max_age_s`` says nothing about now: everything is ``unknown``.
    """
    unknown = {"camera": "unknown", "leds": "unknown", "stations": "unknown"}
    try:
        data = load_json(path.read_text(encoding="utf-8"), size=64 * 1024)
        written = float(data.get("written", 0))
    except (OSError, ValueError, TypeError, AttributeError):
        return unknown
    if time.time() - written > max_age_s:
        return unknown
    out = dict(unknown)
    for key in ("camera", "leds", "stations"):
        value = data.get(key)
        if value in ("ok", "fault", "off", "unknown"):
            out[key] = value
    detail = data.get("detail")
    if isinstance(detail, str) and detail:
        out["detail"] = detail[:200]
    return out
