"""The dice reader on every photo in docs/images/dice, with a chosen engine.

Used two ways, with the same comparison:

- by ``tests/dice/test_engine_photos.py`` on the build machine: the numpy engine against
  ONNX Runtime (the reference), with numpy's floating-point warnings made errors;
- by ``scripts/target-check`` inside the arm64 root, as a program run by the installed
  table's Python: ``--write FILE`` on the build machine stores the reference readings,
  ``--check FILE`` in the root reads photos with the numpy engine (warnings as errors)
  and compares, and prints which engine ``auto`` chose there and what it read
  (``--photos`` picks a few: under emulation each photo takes a minute or more).

Exact means: the same dice in the same boxes with the same faces; the confidences may
differ by float rounding (different BLAS kernels), at most :data:`CONFIDENCE_TOLERANCE`
(one step of the three places they are given in).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import warnings
from pathlib import Path

CONFIDENCE_TOLERANCE = 1e-3
SUFFIXES = (".jpg", ".png")

Readings = dict[str, list[dict[str, object]]]


def photos(folder: Path, names: list[str] | None = None) -> list[Path]:
    """The pictures in ``folder`` (the shipped dice photos) sorted by name, or those ``names``."""
    if names:
        return [folder / name for name in names]
    return sorted(p for p in folder.iterdir() if p.suffix in SUFFIXES)


def read_all(folder: Path, engine: str, names: list[str] | None = None) -> tuple[str, Readings]:
    """(the engine the reader used, each photo's readings as ``table dice read --json`` gives them).

    numpy's floating-point warnings (overflow, division by zero, invalid) are errors here.
    """
    from table.dice.reader import DiceReader, load_image
    from table.dice.settings import load_settings

    reader = DiceReader(dataclasses.replace(load_settings(), engine=engine))
    out: Readings = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for photo in photos(folder, names):
            out[photo.name] = [r.as_json() for r in reader.read(load_image(photo))]
    return reader.model.engine, out


def differences(got: Readings, want: Readings) -> list[str]:
    """One sentence per photo whose readings differ from the reference (empty: exact)."""
    wrong = []
    for name in sorted(set(got) | set(want)):
        a, b = got.get(name), want.get(name)
        if a is None or b is None:
            wrong.append(f"{name} was read on one side only")
            continue
        same = len(a) == len(b) and all(
            x["face"] == y["face"] and x["box"] == y["box"]
            # Both are rounded to three places: one step apart is 0.001 give or take the
            # binary representation (0.969 - 0.968 is a hair above 0.001).
            and abs(float(x["confidence"]) - float(y["confidence"])) <= CONFIDENCE_TOLERANCE + 1e-9  # type: ignore[arg-type]
            for x, y in zip(a, b, strict=True)
        )
        if not same:
            wrong.append(f"{name}: {_faces(a)} where the reference reads {_faces(b)}")
    return wrong


def _faces(readings: list[dict[str, object]]) -> str:
    return ",".join(str(r["face"]) for r in readings) or "no dice"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the photos (docs/images/dice)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", type=Path, metavar="FILE", help="store the reference readings")
    action.add_argument("--check", type=Path, metavar="FILE", help="compare numpy's readings with FILE")
    parser.add_argument("--engine", default="onnxruntime", help="the reference's engine (--write)")
    parser.add_argument("--photos", default="", metavar="A,B", help="only these photos (--check; default: all)")
    args = parser.parse_args(argv)
    if args.write:
        used, readings = read_all(args.folder, args.engine)
        args.write.write_text(json.dumps({"engine": used, "readings": readings}, indent=1))
        print(f"{len(readings)} photos read with {used}")
        return 0
    reference = json.loads(args.check.read_text())
    names = [n for n in args.photos.split(",") if n] or None
    chosen, by_auto = read_all(args.folder, "auto", names)
    first = next(iter(by_auto))
    print(f"auto chose {chosen}: {first} reads {_faces(by_auto[first])}")
    # Under emulation every read is slow: where auto chose numpy, its readings are numpy's.
    by_numpy = by_auto if chosen == "numpy" else read_all(args.folder, "numpy", names)[1]
    want = {name: reference["readings"][name] for name in by_numpy}
    wrong = differences(by_numpy, want)
    if wrong:
        print("numpy differs from the reference: " + "; ".join(wrong))
        return 1
    dice = sum(len(r) for r in by_numpy.values())
    print(f"numpy reads {len(by_numpy)} photos ({dice} dice) as {reference['engine']} does on the build "
          "machine, with no floating-point warning")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
