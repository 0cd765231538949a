"""The SD card's initramfs rule (tools/card/initramfs_modules.py): from a board's device
tree, the modules the SD host waits for.

On a small device tree compiled with ``dtc`` (a board like the Pi 4: an SD host whose
supplies are a GPIO regulator and a fixed one switched by a firmware GPIO expander behind
a mailbox; a Wi-Fi host and a disabled host beside it) with made-up module lists, and,
when the cached Debian 13 arm64 root is there (scripts/target-lib.sh), on Debian's own
Raspberry Pi trees and kernel. The card itself is checked by the boot test's layout step
(:func:`target.card.check_layout`: every module the trees on its FAT partition need is in
its initramfs).
"""

from __future__ import annotations

import glob
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from target.card import CHECKOUT, initramfs_tool

TOOL = CHECKOUT / "tools" / "card" / "initramfs_modules.py"

BOARD = """\
/dts-v1/;
/ {
    model = "Test board";
    compatible = "acme,board";
    #address-cells = <1>;
    #size-cells = <1>;
    interrupt-parent = <&intc>;

    intc: interrupt-controller { compatible = "acme,intc"; interrupt-controller; #interrupt-cells = <1>; };
    osc: oscillator { compatible = "fixed-clock"; #clock-cells = <0>; clock-frequency = <54000000>; };

    soc {
        compatible = "simple-bus";
        #address-cells = <1>;
        #size-cells = <1>;
        ranges;

        mbox: mailbox@1000 { compatible = "acme,mailbox"; reg = <0x1000 0x40>; #mbox-cells = <0>; };

        firmware {
            compatible = "acme,firmware", "simple-mfd";
            mboxes = <&mbox>;
            expgpio: gpio { compatible = "acme,firmware-gpio"; gpio-controller; #gpio-cells = <2>; };
        };

        clocks: cprman@2000 {
            compatible = "acme,cprman";
            reg = <0x2000 0x100>;
            #clock-cells = <1>;
            clocks = <&osc>, <&dsi 0>;
        };

        dsi: dsi@3000 { compatible = "acme,dsi"; reg = <0x3000 0x100>; #clock-cells = <1>; status = "disabled"; };

        sdbus {
            compatible = "simple-bus";
            #address-cells = <1>;
            #size-cells = <1>;
            ranges;
            mmc@4000 {
                compatible = "acme,sd-host", "generic,sdhci";
                reg = <0x4000 0x100>;
                clocks = <&clocks 51>;
                vqmmc-supply = <&sd_io>;
                vmmc-supply = <&sd_vcc>;
                broken-cd;
            };
        };

        mmc@5000 {
            compatible = "acme,wifi-host";
            reg = <0x5000 0x100>;
            non-removable;
            vmmc-supply = <&wifi_power>;
        };

        mmc@6000 { compatible = "acme,spare-host"; reg = <0x6000 0x100>; status = "disabled"; };
    };

    sd_io: regulator-sd-io { compatible = "regulator-gpio"; gpios = <&expgpio 4 0>; };
    sd_vcc: regulator-sd-vcc { compatible = "regulator-fixed"; gpio = <&expgpio 6 0>; };
    wifi_power: regulator-wifi { compatible = "acme,wifi-power"; };
};
"""
# of: aliases as depmod writes them: each compatible alone and followed by others (C*).
ALIASES = "\n".join(f"alias of:N*T*C{compatible}{tail} {module}"
                    for compatible, module in (("acme,sd-host", "sd_host"), ("generic,sdhci", "sdhci_generic"),
                                               ("regulator-gpio", "gpio_regulator"), ("regulator-fixed", "fixed"),
                                               ("acme,wifi-host", "wifi_host"), ("acme,wifi-power", "wifi_power"),
                                               ("acme,dsi", "dsi_drm"), ("acme,spare-host", "spare_host"))
                    for tail in ("", "C*")) + "\nalias platform:something unrelated\n"
DEPS = """\
kernel/drivers/mmc/host/sd-host.ko.xz: kernel/drivers/mmc/host/sdhci-pltfm.ko.xz kernel/drivers/mmc/host/sdhci.ko.xz
kernel/drivers/mmc/host/sdhci-generic.ko.xz: kernel/drivers/mmc/host/sdhci.ko.xz
kernel/drivers/mmc/host/sdhci-pltfm.ko.xz: kernel/drivers/mmc/host/sdhci.ko.xz
kernel/drivers/mmc/host/sdhci.ko.xz:
kernel/drivers/regulator/gpio-regulator.ko.xz:
kernel/drivers/regulator/fixed.ko.xz:
kernel/drivers/net/wifi-host.ko.xz:
kernel/drivers/regulator/wifi-power.ko.xz:
kernel/drivers/gpu/dsi-drm.ko.xz:
kernel/drivers/mmc/host/spare-host.ko.xz:
kernel/fs/ext4/ext4.ko.xz: kernel/fs/jbd2/jbd2.ko.xz kernel/lib/crc16.ko.xz
kernel/fs/jbd2/jbd2.ko.xz:
kernel/lib/crc16.ko.xz:
kernel/crypto/crc32c_generic.ko.xz:
kernel/drivers/block/virtio_blk.ko.xz:
"""
BUILTIN = "kernel/drivers/mmc/core/mmc_block.ko\nkernel/drivers/virtio/virtio_pci.ko\n"

needs_dtc = pytest.mark.skipif(shutil.which("dtc") is None, reason="needs dtc (device-tree-compiler)")


def compile_tree(source: str, tmp_path: Path, name: str = "board.dtb") -> bytes:
    (tmp_path / "board.dts").write_text(source)
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(tmp_path / name), str(tmp_path / "board.dts")],
                   check=True)
    return (tmp_path / name).read_bytes()


@needs_dtc
def test_the_sd_host_brings_its_supplies_and_their_dependencies(tmp_path: Path) -> None:
    tool = initramfs_tool()
    kernel = tool.Kernel.read(ALIASES, DEPS, BUILTIN)
    needs = tool.board_needs(compile_tree(BOARD, tmp_path), kernel, "board.dtb")
    assert needs.model == "Test board"
    assert needs.hosts == ("/soc/sdbus/mmc@4000",)
    # Both compatibles of the host match (the kernel's modalias lists them all); the
    # regulators come through vqmmc/vmmc-supply. The Wi-Fi host (non-removable), the
    # disabled host and the disabled DSI clock provider bring nothing.
    assert needs.modules == ["sd_host", "sdhci_generic", "gpio_regulator", "fixed"]
    assert dict(needs.by_node)["/regulator-sd-io"] == ("gpio_regulator",)
    # Reached, with no module: the parents, the clock controller and its oscillator, the
    # GPIO expander, its firmware parent and the firmware's mailbox, the interrupt controller.
    assert set(needs.no_module) >= {"/soc/sdbus", "/soc", "/soc/cprman@2000", "/oscillator", "/soc/firmware/gpio",
                                    "/soc/firmware", "/soc/mailbox@1000", "/interrupt-controller"}
    assert "/soc/dsi@3000" not in needs.no_module
    top, _ = tool.needed_modules({"board.dtb": compile_tree(BOARD, tmp_path)}, kernel)
    assert top == ["sd_host", "sdhci_generic", "gpio_regulator", "fixed", "ext4", "crc32c_generic", "virtio_blk"]
    assert kernel.closure(top) == ["sd_host", "sdhci_generic", "gpio_regulator", "fixed", "ext4", "crc32c_generic",
                                   "virtio_blk", "sdhci_pltfm", "sdhci", "jbd2", "crc16"]


@needs_dtc
def test_a_hand_list_without_the_regulators_is_found_short(tmp_path: Path) -> None:
    """What the card's check says of an initramfs made from a list naming only the SD
    host's own driver (the card's list before the regulators were read from the tree)."""
    tool = initramfs_tool()
    kernel = tool.Kernel.read(ALIASES, DEPS, BUILTIN)
    top, _ = tool.needed_modules({"board.dtb": compile_tree(BOARD, tmp_path)}, kernel)
    present = set(kernel.closure(["sd_host", "sdhci_generic", "ext4", "crc32c_generic", "virtio_blk"]))
    assert [m for m in kernel.closure(top) if m not in present] == ["gpio_regulator", "fixed"]


@needs_dtc
def test_bad_trees_and_kernels_are_one_sentence(tmp_path: Path) -> None:
    tool = initramfs_tool()
    kernel = tool.Kernel.read(ALIASES, DEPS, BUILTIN)
    tree = compile_tree(BOARD, tmp_path)
    with pytest.raises(tool.TreeError, match="is not a flattened device tree"):
        tool.parse_fdt(b"not a tree at all, but long enough to have a header", "junk.dtb")
    with pytest.raises(tool.TreeError, match="cut short"):
        tool.parse_fdt(tree[:200], "short.dtb")
    hostless = compile_tree(BOARD.replace('broken-cd;', 'broken-cd; status = "disabled";'), tmp_path, "hostless.dtb")
    with pytest.raises(tool.TreeError, match=r"hostless\.dtb has no enabled SD host controller"):
        tool.board_needs(hostless, kernel, "hostless.dtb")
    no_ext4 = tool.Kernel.read(ALIASES, DEPS.replace("kernel/fs/ext4/ext4.ko.xz", "kernel/fs/ext2/ext2.ko.xz"), BUILTIN)
    with pytest.raises(tool.TreeError, match="the kernel has no module ext4"):
        tool.needed_modules({"board.dtb": tree}, no_ext4)


@needs_dtc
def test_the_command_line_prints_the_list_or_one_sentence(tmp_path: Path) -> None:
    modules = tmp_path / "modules"
    modules.mkdir()
    for name, text in (("modules.alias", ALIASES), ("modules.dep", DEPS), ("modules.builtin", BUILTIN)):
        (modules / name).write_text(text)
    trees = tmp_path / "broadcom"
    trees.mkdir()
    tool = initramfs_tool()
    for name in tool.BOARD_TREES:
        compile_tree(BOARD, trees, name)
    done = subprocess.run([sys.executable, str(TOOL), str(modules), str(trees)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["sd_host", "sdhci_generic", "gpio_regulator", "fixed", "ext4", "crc32c_generic",
                                   "virtio_blk"]
    assert "SD host /soc/sdbus/mmc@4000" in done.stderr
    (trees / tool.BOARD_TREES[0]).unlink()
    done = subprocess.run([sys.executable, str(TOOL), str(modules), str(trees)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"initramfs-modules: cannot read the device tree {trees / tool.BOARD_TREES[0]}: "
                                   "No such file or directory")


CACHED_ROOTS = sorted(glob.glob("/var/cache/game-table/trixie-arm64-*.tar.zst"))


@pytest.mark.skipif(not CACHED_ROOTS, reason="no cached Debian 13 arm64 root (scripts/target-lib.sh makes it)")
def test_debians_raspberry_pi_trees_need_the_sd_regulators(tmp_path: Path) -> None:
    """Debian's kernel and trees: the Pi 4's and Pi 400's SD host (emmc2, sdhci-iproc)
    waits for a GPIO regulator and a fixed one, both modules; the Pi 3's (sdhost) does not."""
    tool = initramfs_tool()
    subprocess.run(["tar", "--zstd", "-x", "-f", CACHED_ROOTS[-1], "-C", str(tmp_path), "--wildcards",
                    "./usr/lib/modules/*/modules.alias", "./usr/lib/modules/*/modules.dep",
                    "./usr/lib/modules/*/modules.builtin", "./usr/lib/linux-image-*/broadcom/bcm2*-rpi-*.dtb"],
                   check=True, timeout=900)
    modules = Path(sorted(glob.glob(str(tmp_path / "usr/lib/modules/*")))[-1])
    trees = Path(sorted(glob.glob(str(tmp_path / "usr/lib/linux-image-*/broadcom")))[-1])
    kernel = tool.Kernel.from_folder(modules)
    top, per_board = tool.needed_modules({n: (trees / n).read_bytes() for n in tool.BOARD_TREES}, kernel)
    for pi4 in ("bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb"):
        assert per_board[pi4].hosts == ("/emmc2bus/mmc@7e340000",)
        assert per_board[pi4].modules == ["sdhci_iproc", "gpio_regulator", "fixed"]
    for pi3 in ("bcm2837-rpi-3-b-plus.dtb", "bcm2837-rpi-3-b.dtb"):
        assert per_board[pi3].modules == ["bcm2835"]
    assert {"sdhci_pltfm", "sdhci", "ext4", "virtio_blk"} <= set(kernel.closure(top))
