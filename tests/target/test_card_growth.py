"""The SD card's root growth (packaging/card/table-grow-root): the MBR's partition 2 moved
to the card's end, once, on a disk image made with sfdisk. The boot test checks the
whole growth (partition, kernel, ext4) in QEMU at the first and the second boot."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest
from target.card import CHECKOUT

MIB = 2048  # sectors

pytestmark = pytest.mark.skipif(shutil.which("sfdisk") is None, reason="needs sfdisk (fdisk)")


def grow_root() -> ModuleType:
    path = CHECKOUT / "packaging" / "card" / "table-grow-root"
    loader = importlib.machinery.SourceFileLoader("table_grow_root", str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def card(tmp_path: Path, layout: str, mib: int) -> Path:
    """A disk image of ``mib`` MiB with the sfdisk ``layout``, written before it was enlarged."""
    img = tmp_path / "card.img"
    img.write_bytes(b"")
    subprocess.run(["truncate", "-s", "100M", str(img)], check=True)
    subprocess.run(["sfdisk", "-q", str(img)], input=f"label: dos\n{layout}", text=True, check=True)
    subprocess.run(["truncate", "-s", f"{mib}M", str(img)], check=True)
    return img


def table(img: Path) -> list[tuple[int, int, str]]:
    parts = json.loads(subprocess.run(["sfdisk", "-J", str(img)], capture_output=True, text=True,
                                      check=True).stdout)["partitiontable"]["partitions"]
    return [(p["start"], p["size"], p["type"]) for p in parts]


CARD = f"start={4 * MIB}, size={8 * MIB}, type=c, bootable\nstart={12 * MIB}, size={20 * MIB}, type=83\n"


def test_partition_2_grows_to_the_last_whole_mib_once(tmp_path: Path) -> None:
    tool = grow_root()
    img = card(tmp_path, CARD, 300)
    # The card's size in sectors as the kernel gives it, a part-MiB over 300 MiB.
    assert tool.grow_partition(str(img), 2, 300 * MIB + 700) == (20 * MIB, 288 * MIB)
    assert table(img) == [(4 * MIB, 8 * MIB, "c"), (12 * MIB, 288 * MIB, "83")]
    subprocess.run(["sfdisk", "--verify", str(img)], capture_output=True, check=True)
    assert tool.grow_partition(str(img), 2, 300 * MIB + 700) is None
    assert table(img) == [(4 * MIB, 8 * MIB, "c"), (12 * MIB, 288 * MIB, "83")]


def test_any_other_layout_is_left_alone_with_one_sentence(tmp_path: Path) -> None:
    tool = grow_root()
    img = card(tmp_path, CARD, 300)
    with pytest.raises(SystemExit, match="partition 1 of type 0xc, not the card's Linux partition 2"):
        tool.grow_partition(str(img), 1, 300 * MIB)
    third = card(tmp_path, CARD + f"start={40 * MIB}, size={10 * MIB}, type=83\n", 300)
    with pytest.raises(SystemExit, match="not the last on the card"):
        tool.grow_partition(str(third), 2, 300 * MIB)
    assert table(third)[1] == (12 * MIB, 20 * MIB, "83")
    blank = tmp_path / "blank.img"
    blank.write_bytes(bytes(1024))
    with pytest.raises(SystemExit, match="has no MBR partition table"):
        tool.grow_partition(str(blank), 2, 2)
