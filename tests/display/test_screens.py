"""Every screen renders headless at both display sizes, and the pictures are not blank.

The PNGs are written to a temporary folder; `table screens docs/screens` refreshes the
committed copies that people look at.
"""

from __future__ import annotations

import re
from pathlib import Path

import pygame
import pytest

from table.loop.snapshots import game_pictures, render_all, shell_moments


@pytest.mark.parametrize("moments", [shell_moments, game_pictures], ids=["shell", "games' own"])
def test_every_screen_renders_with_content(tmp_path: Path, moments: object) -> None:
    written = render_all(tmp_path, ((1920, 1080), (1280, 720)), moments)  # type: ignore[arg-type]
    assert written
    for path in written:
        img = pygame.image.load(str(path))
        w, h = img.get_size()
        colours = {img.get_at((x, y))[:3] for x in range(0, w, 37) for y in range(0, h, 29)}
        assert len(colours) > 8, f"{path.name} looks blank"


def test_committed_screenshots_exist_for_the_menu_and_every_games_own_picture() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "screens"
    names = [name for name, _ in shell_moments()] + [name for name, _ in game_pictures()]
    assert any(name.startswith("shimo-") for name in names)
    missing = [n for n in names if not (docs / f"{n}.png").is_file()]
    assert not missing, f"run 'table screens docs/screens' (missing: {missing})"


def test_table_screens_covers_every_phase_of_every_game() -> None:
    from table.games import registry
    from table.loop.snapshots import all_moments, phase_walk

    names = [name for name, _ in all_moments()]
    for game, engine in registry().items():
        for variant in engine.variants:
            phases = {p for p, _, _ in phase_walk(game, variant, seed=3)}
            pattern = re.compile(rf"{game}/{re.escape(variant)}-\d\d-(.+)$")
            shown = {m.group(1) for n in names if (m := pattern.match(n))}
            assert phases and phases == shown, (game, variant, phases, shown)
        assert f"{game}/menu-ended-ranking" in names


def test_table_screens_default_folder_is_new_and_under_the_current_one(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from table.commands.screens import _default_dir

    monkeypatch.chdir(tmp_path)
    assert _default_dir() == tmp_path / "table-screens"
    (tmp_path / "table-screens").mkdir()
    assert _default_dir() == tmp_path / "table-screens"  # empty: used
    (tmp_path / "table-screens" / "menu.png").write_bytes(b"x")
    assert _default_dir() == tmp_path / "table-screens-2"


def test_table_screens_refuses_a_file_for_its_folder_in_one_line(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main

    target = tmp_path / "not-a-folder.png"
    target.write_bytes(b"keep me")
    assert main(["screens", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("table: ") and "not a folder" in err[0]
    assert target.read_bytes() == b"keep me"


def test_table_screens_of_one_game_draws_that_game_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--game NAME``: every phase of every variant, the card and the menu's flows of
    that game, nothing of another; an unknown game is one sentence naming the known."""
    from table.cli import main
    from table.games import registry

    name = min(registry(), key=lambda g: len(registry()[g].variants))
    assert main(["screens", str(tmp_path / "one"), "--game", name]) == 0
    written = sorted(p.relative_to(tmp_path / "one").as_posix() for p in (tmp_path / "one").rglob("*.png"))
    assert {p.partition("/")[0] for p in written} == {name}
    assert {f"{name}/how-to-play.png", f"{name}/menu-paused.png", f"{name}/menu-ended-ranking.png"} <= set(written)
    assert all(any(p.startswith(f"{name}/{v}-01-") for p in written) for v in registry()[name].variants)
    capsys.readouterr()
    assert main(["screens", str(tmp_path / "none"), "--game", "chess"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("table: there is no game called 'chess'") and name in err[0]
    assert not (tmp_path / "none").exists()


def test_german_pictures_play_the_german_deck_and_words() -> None:
    """`table screens --lang de` starts its games as the lobby would in German: Umtata's
    cards come from the German deck, the phase walk's and the table loop's alike."""
    from table.common import i18n
    from table.games.umtata.deck import default_deck
    from table.loop.snapshots import phase_walk, walk_to

    i18n.set_language("de")
    try:
        german = {q.text for q in default_deck("de")}
        _, session, _ = next(iter(phase_walk("umtata", "standard", seed=3)))
        assert session.setup.options["language"] == "de"
        assert session.view(None)["question"]["text"] in german
        pygame.display.init()
        pygame.font.init()
        found = walk_to("umtata", "guess", pygame.Surface((1280, 720)), celebrations=False)
        assert found is not None
        table = found[0]
        assert table.session is not None and table.session.view(None)["question"]["text"] in german
    finally:
        i18n.set_language("en")


def test_table_screens_renders_one_games_screens_with_its_celebrations(tmp_path: Path) -> None:
    """``--game NAME``: that game's screens only (in its folder), every variant, the card
    and the menu's flows, and a still of each celebration its play reaches."""
    from table.cli import main
    from table.games import registry
    from table.loop.snapshots import CELEBRATED, celebration_frames

    game = "buzzer_race"  # the tests' own game: the quickest to play through
    assert main(["screens", str(tmp_path), "--game", game]) == 0
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.png"))
    assert written and all(name.startswith(f"{game}/") for name in written)
    for variant in registry()[game].variants:
        assert any(name.startswith(f"{game}/{variant}-") for name in written)
    assert f"{game}/menu-paused.png" in written and f"{game}/how-to-play.png" in written
    shown = {kind for kind in CELEBRATED if celebration_frames(game, kind, (320, 180), fps=4)}
    assert "final" in shown
    assert {n for n in written if "/celebration-" in n} == {f"{game}/celebration-{kind}.png" for kind in shown}


def test_table_screens_names_the_games_for_an_unknown_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table.cli import main

    assert main(["screens", str(tmp_path), "--game", "no_such_game"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("table: ") and "'no_such_game'" in err[0] and "umtata" in err[0]
    assert not any(tmp_path.iterdir())
