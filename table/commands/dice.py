"""``table dice``: read still images, calibrate symbol dice, watch the camera.

- ``table dice read IMAGE... [--dice NAME] [--json]``
- ``table dice calibrate --dice NAME (--face NAME IMAGE... ... | --camera SRC --faces A,B,..)``
- ``table dice watch [--camera SRC] [--out DIR] [--frames N]``
- ``table dice teach FOLDER [--labels FILE] --config DIR``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from table.commands import COMMANDS, named_path
from table.common.checks import plain_name
from table.common.errors import TableError


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("dice", help=COMMANDS["dice"].help)
    sub = p.add_subparsers(dest="dice_command", metavar="ACTION", parser_class=type(p))
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])

    r = sub.add_parser("read", help="read the dice in still images")
    r.add_argument("images", nargs="+", metavar="IMAGE")
    r.add_argument("--dice", metavar="NAME", type=plain_name("--dice"),
                   help="a calibrated set of symbol dice (default: pip dice)")
    r.add_argument("--json", action="store_true", help="one JSON object per image")
    _config_option(r)
    r.set_defaults(func=cmd_read)

    c = sub.add_parser("calibrate", help="teach the faces of a set of symbol dice")
    c.add_argument("--dice", metavar="NAME", required=True, type=plain_name("--dice"))
    c.add_argument(
        "--face",
        nargs="+",
        action="append",
        metavar=("FACE", "IMAGE"),
        help="a face name followed by pictures of that face (repeat per face)",
    )
    c.add_argument("--camera", metavar="SRC", help="capture from pi, usb[:N] instead of files")
    c.add_argument("--faces", metavar="A,B,...", help="face names to capture with --camera")
    c.add_argument("--shots", type=int, default=3, help="captures per face with --camera")
    _config_option(c)
    c.set_defaults(func=cmd_calibrate)

    w = sub.add_parser("watch", help="show the camera view with boxes and faces drawn")
    w.add_argument("--camera", default="pi", metavar="SRC", help="pi, usb[:N], a folder or picture")
    w.add_argument("--dice", metavar="NAME", type=plain_name("--dice"))
    w.add_argument("--out", metavar="DIR", help="save annotated frames here instead of a window")
    w.add_argument("--frames", type=int, default=0, help="stop after N frames (0: until the source ends)")
    _config_option(w)
    w.set_defaults(func=cmd_watch)

    t = sub.add_parser("teach", help="adapt the pip reader to this tray, dice and light from labelled photos")
    t.add_argument("folder", metavar="FOLDER", help="photos of the tray, with a labels.csv")
    t.add_argument("--labels", metavar="FILE", help="the labels file (default: FOLDER/labels.csv)")
    _config_option(t)
    t.set_defaults(func=cmd_teach)


def _config_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="DIR", default=None,
                   help="config directory (reader settings, face model, taught dice); files it lacks "
                        "come from the shipped defaults")


def _use_config(args: argparse.Namespace) -> None:
    from table.common.datafiles import use_config_dir

    named_path(args.config)
    if args.config is not None and not Path(args.config).is_dir():
        raise TableError(f"the config directory {args.config} does not exist")
    use_config_dir(args.config)


def _reader(dice: str | None):  # type: ignore[no-untyped-def]
    from table.dice.reader import DiceReader
    from table.dice.settings import load_settings
    from table.dice.symbols import load_symbols

    settings = load_settings()
    symbols = load_symbols(settings.symbols_dir, dice) if dice else None
    return DiceReader(settings, symbols)


def cmd_read(args: argparse.Namespace) -> int:
    from table.dice.reader import load_image

    _use_config(args)
    reader = _reader(args.dice)
    status = 0
    for name in args.images:
        start = time.perf_counter()
        try:
            frame = load_image(Path(name))
        except OSError as exc:
            sys.stderr.write(f"table: {exc}\n")
            status = 2
            continue
        readings = reader.read(frame)
        ms = (time.perf_counter() - start) * 1000
        if args.json:
            obj = {"image": name, "dice": [r.as_json() for r in readings], "ms": round(ms, 1)}
            print(json.dumps(obj), flush=True)
        else:
            faces = ", ".join(f"{r.face} ({r.confidence:.2f})" for r in readings) or "no dice"
            print(f"{name}: {faces}  [{ms:.0f} ms]", flush=True)
    return status


def cmd_calibrate(args: argparse.Namespace) -> int:
    from table.dice.reader import load_image
    from table.dice.settings import load_settings
    from table.dice.symbols import calibrate

    _use_config(args)
    if args.config is None:
        raise TableError("say where to keep the taught dice with --config DIR (the kiosk reads /etc/table)")
    settings = load_settings()
    shots = []
    if args.camera:
        from table.dice.capture import open_source, wait_until_settled

        if not args.faces:
            raise TableError("--camera needs --faces with the names of the faces to capture")
        source = open_source(args.camera)
        try:
            for face in [f.strip() for f in args.faces.split(",") if f.strip()]:
                for k in range(args.shots):
                    prompt = f"Put the dice with '{face}' on top in the tray ({k + 1}/{args.shots})"
                    input(f"{prompt}, then press Enter: ")
                    frame = wait_until_settled(
                        source, settings.settle_seconds, settings.motion_level, settings.timeout_seconds
                    )
                    if frame is None:
                        raise TableError("the camera gave no still picture in time")
                    shots.append((face, frame))
        finally:
            source.close()
    else:
        if not args.face:
            raise TableError("give --face NAME IMAGE... for every face, or --camera")
        for group in args.face:
            if len(group) < 2:
                raise TableError(f"--face {group[0]} needs at least one picture after the name")
            shots += [(group[0], load_image(Path(p))) for p in group[1:]]
    symbols = calibrate(args.dice, shots)
    path = symbols.save(settings.symbols_dir)
    print(f"saved {len(symbols.names)} templates of {len(symbols.faces)} faces to {path}")
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    from table.dice.capture import open_source
    from table.dice.watch import annotate, show

    _use_config(args)
    reader = _reader(args.dice)
    source = open_source(args.camera)
    out = Path(args.out) if args.out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    n = 0
    try:
        while args.frames == 0 or n < args.frames:
            frame = source.grab()
            if frame is None:
                break
            picture = annotate(frame, reader.read(frame), reader.settings.min_confidence)
            if out:
                import cv2

                cv2.imwrite(str(out / f"dice-{n:04d}.png"), picture)
            elif not show(picture):
                break
            n += 1
    finally:
        source.close()
    if out:
        print(f"saved {n} annotated frames to {out}")
    return 0


def cmd_teach(args: argparse.Namespace) -> int:
    """Teach from a folder; exit 0 when the taught reader was saved, 1 when it was not better."""
    from table.dice.teach import teach_folder

    _use_config(args)
    saved, report, _ = teach_folder(
        Path(args.folder), Path(args.labels) if args.labels else None, lambda line: print(f"  {line}", flush=True)
    )
    print(report)
    return 0 if saved else 1
