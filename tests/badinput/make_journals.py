"""Writes the journal files of the bad-input corpus (run from the repository root).

``journals/`` hold files that ``table replay`` must refuse with one sentence (among them
journals whose schema holds something the table never creates: the daemon keeps those
aside, unchanged, and starts a new journal; and journals with a row of a kind or a
station the game cannot have: the daemon sets that row and the rest aside as a damaged
tail);
``damaged-journals/`` hold journals with a damaged tail that must still replay (the
tail set aside, a warning logged). Every file here must also let the table start.
Deterministic: running it again writes the same files.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from table.games.base import Action, GameSetup
from table.play.journal import Journal

HERE = Path(__file__).resolve().parent
SETUP = GameSetup(game="ubongo_shimo", stations=(0, 1, 2))
ACTIONS = [Action("tick", 3.0), Action("press", 20.0, 1), Action("press", 50.0, 0), Action("tick", 80.0)]


def fresh(path: Path, actions: list[Action] = ACTIONS, setup: GameSetup = SETUP) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    with Journal(path) as journal:
        game = journal.start_game(setup, 7, wall_time=1_000_000.0)
        for seq, action in enumerate(actions):
            journal.append(game, seq, action)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
    db.close()


def sql(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    with db:
        for s in statements:
            db.execute(s)
    db.execute("PRAGMA journal_mode=DELETE")
    db.close()


def main() -> None:
    rng = random.Random(2)
    bad = HERE / "journals"
    damaged = HERE / "damaged-journals"
    bad.mkdir(exist_ok=True)
    damaged.mkdir(exist_ok=True)
    (bad / "text-file.db").write_text("this is a shopping list, not a journal\n")
    (bad / "random-bytes.db").write_bytes(bytes(rng.randrange(256) for _ in range(4096)))
    (bad / "sqlite-header-then-garbage.db").write_bytes(
        b"SQLite format 3\0" + bytes(rng.randrange(256) for _ in range(8192)))
    good = bad / "_good.db"
    fresh(good)
    data = good.read_bytes()
    (bad / "truncated-half.db").write_bytes(data[: len(data) // 2])
    corrupt = bytearray(data)
    for i in range(4096, len(corrupt), 97):
        corrupt[i] = rng.randrange(256)
    (bad / "corrupted-pages.db").write_bytes(bytes(corrupt))
    good.unlink()
    fresh(bad / "schema-99.db")
    sql(bad / "schema-99.db", "UPDATE meta SET value = '99' WHERE key = 'schema'")
    fresh(bad / "setup-not-json.db")
    sql(bad / "setup-not-json.db", "UPDATE games SET setup = '{not json'")
    fresh(bad / "unknown-game.db")
    sql(bad / "unknown-game.db", "UPDATE games SET engine = 'chess', setup = json_set(setup, '$.game', 'chess')")
    fresh(bad / "unknown-variant.db")
    sql(bad / "unknown-variant.db", "UPDATE games SET setup = json_set(setup, '$.variant', 'speedrun')")
    fresh(bad / "no-games.db", actions=[])
    sql(bad / "no-games.db", "DELETE FROM games")
    deep = "[" * 100_000 + "]" * 100_000
    fresh(bad / "setup-nested-deep.db")
    sql(bad / "setup-nested-deep.db", "UPDATE games SET setup = json_set(setup, '$.options', json('{}'))",
        "UPDATE games SET setup = replace(setup, '\"options\":{}', '\"options\":{\"x\":" + deep + "}')")
    fresh(bad / "trigger-eats-actions.db")
    sql(bad / "trigger-eats-actions.db",
        "CREATE TRIGGER eat AFTER INSERT ON actions BEGIN DELETE FROM actions WHERE rowid = new.rowid; END")
    fresh(bad / "extra-view.db")
    sql(bad / "extra-view.db", "CREATE VIEW presses AS SELECT * FROM actions")
    fresh(bad / "extra-table.db")
    sql(bad / "extra-table.db", "CREATE TABLE notes (text TEXT)")
    fresh(bad / "extra-index.db")
    sql(bad / "extra-index.db", "CREATE INDEX by_action ON actions (action)")
    fresh(bad / "actions-redefined.db", actions=[])
    sql(bad / "actions-redefined.db", "DROP TABLE actions",
        "CREATE TABLE actions (game INTEGER NOT NULL, seq INTEGER NOT NULL, action TEXT NOT NULL CHECK (0), "
        "PRIMARY KEY (game, seq))")

    # Rows that decode but that no table journals for this game: replay names them and
    # refuses; the daemon sets them aside as a damaged tail and resumes before them.
    fresh(bad / "unknown-kind.db", actions=[*ACTIONS[:2], Action("explode", 30.0, 1), *ACTIONS[2:]])
    fresh(bad / "station-99.db", actions=[*ACTIONS[:2], Action("press", 30.0, 99), *ACTIONS[2:]])

    fresh(damaged / "tail-not-json.db")
    sql(damaged / "tail-not-json.db", "UPDATE actions SET action = '{\"kind\": \"pre' WHERE seq = 3")
    fresh(damaged / "tail-without-time.db")
    sql(damaged / "tail-without-time.db",
        "INSERT INTO actions VALUES (1, 4, '" + json.dumps({"kind": "press", "station": 0}) + "')")
    fresh(damaged / "action-nested-deep.db")
    sql(damaged / "action-nested-deep.db",
        "UPDATE actions SET action = '{\"kind\":\"press\",\"t\":50.0,\"station\":0,\"value\":" + deep
        + "}' WHERE seq = 3")
    fresh(damaged / "gap-in-sequence.db")
    sql(damaged / "gap-in-sequence.db", "UPDATE actions SET seq = 9 WHERE seq = 3")


if __name__ == "__main__":
    main()
