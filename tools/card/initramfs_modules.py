"""The kernel modules the SD card's initramfs needs to reach its root, read from the boards' device trees.

A Raspberry Pi's root is on the SD card: its SD host controller must be probed before the
initramfs can mount the root, and the controller probes only once everything it leans on
has probed: its parents, its supplies (``vmmc-supply``, ``vqmmc-supply``: regulators,
and the GPIO controllers that switch those), its clocks, power domains, resets, DMA
channels, mailboxes and pin controllers. Any of those whose driver is a module must be in
the initramfs, or the SD host waits for ever and the root never appears (on a Pi 4 with
Debian's kernel: the SD card's ``regulator-gpio`` and ``regulator-fixed`` supplies).

For each device tree this finds the SD card's host controllers (the enabled ``mmc`` nodes
that are not ``non-removable``: those hold the soldered Wi-Fi chip), walks from them to
every node they depend on (transitively, with each node's ancestors), and matches each
node's ``compatible`` strings against the kernel's ``modules.alias`` (``of:N*T*C...``
patterns, matched as the kernel's uevent modalias is). The modules found, and ``extra``
ones (ext4, the boot test's virtio disk), are closed over ``modules.dep``. A node whose
compatibles match no module is built into the kernel or needs no driver.

    python3 tools/card/initramfs_modules.py MODULES_DIR DTB_DIR

reads the :data:`BOARD_TREES` in ``DTB_DIR`` (the kernel package's ``broadcom`` folder)
with the kernel's module lists in ``MODULES_DIR`` (``/lib/modules/VERSION``), prints the
top-level module names, one a line (initramfs-tools' ``MODULES=list`` file;
``mkinitramfs`` adds their dependencies), and to stderr what each tree needs. Exit 2
with one sentence when a tree or the module lists cannot be read, or a tree has no SD
host.
"""

from __future__ import annotations

import argparse
import fnmatch
import struct
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

# The boards the card is for, by their device trees (Debian's kernel package names them
# so; the Pi's firmware picks its own): the Raspberry Pi 4 Model B and the Raspberry Pi
# 400, and the Raspberry Pi 3 Model B+ and Model B (their SD host is another driver).
BOARD_TREES = ("bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb", "bcm2837-rpi-3-b-plus.dtb", "bcm2837-rpi-3-b.dtb")
# What no device tree names: the SD card's block driver (mmc_block), the root's file
# system (ext4, with crc32c for its metadata checksums, a soft dependency modules.dep
# does not list) and the boot test's disk (QEMU's ``-M virt`` with a virtio drive:
# virtio-blk on PCI). Built-in ones (mmc_block, virtio_pci in Debian's kernel) count as present.
EXTRA_MODULES = ("mmc_block", "ext4", "crc32c_generic", "virtio_blk", "virtio_pci")

FDT_MAGIC = 0xD00DFEED
FDT_BEGIN_NODE, FDT_END_NODE, FDT_PROP, FDT_NOP, FDT_END = 1, 2, 3, 4, 9

# Properties that point at providers: name -> the provider's "#...-cells" property, whose
# value says how many argument cells follow each phandle ("" for plain phandle lists).
PROVIDER_LISTS = {
    "clocks": "#clock-cells",
    "power-domains": "#power-domain-cells",
    "resets": "#reset-cells",
    "dmas": "#dma-cells",
    "mboxes": "#mbox-cells",
    "phys": "#phy-cells",
    "gpios": "#gpio-cells",
    "gpio": "#gpio-cells",
    "interrupts-extended": "#interrupt-cells",
    "interrupt-parent": "",
}


class TreeError(Exception):
    """A device tree or a module list that cannot be read (the message is one sentence)."""


@dataclass
class Node:
    name: str  # with its unit address: "mmc@7e340000"
    path: str
    parent: Node | None
    props: dict[str, bytes] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)

    def cells(self, prop: str) -> list[int]:
        value = self.props.get(prop, b"")
        return list(struct.unpack(f">{len(value) // 4}I", value[: len(value) // 4 * 4]))

    def strings(self, prop: str) -> list[str]:
        value = self.props.get(prop)
        if not value:
            return []
        return [s.decode("ascii", "replace") for s in value.rstrip(b"\0").split(b"\0")]

    @property
    def enabled(self) -> bool:
        status = self.strings("status")
        return not status or status[0] in ("okay", "ok")

    def modalias(self) -> str:
        """The modalias the kernel gives this node's device (``of:N<name>T<type>C<compatible>...``)."""
        kind = self.strings("device_type")
        return (f"of:N{self.name.split('@')[0]}T{kind[0] if kind else ''}"
                + "".join(f"C{c}" for c in self.strings("compatible")))


def parse_fdt(data: bytes, source: str = "the device tree") -> Node:
    """The root node of the flattened device tree ``data`` (the ``.dtb`` format)."""
    if len(data) < 40 or struct.unpack_from(">I", data, 0)[0] != FDT_MAGIC:
        raise TreeError(f"{source} is not a flattened device tree (.dtb)")
    total, off_struct, off_strings = struct.unpack_from(">III", data, 4)
    if total > len(data):
        raise TreeError(f"{source} is cut short ({len(data)} of {total} bytes)")
    strings = data[off_strings:]
    at, root, node = off_struct, None, None
    try:
        while True:
            token = struct.unpack_from(">I", data, at)[0]
            at += 4
            if token == FDT_BEGIN_NODE:
                end = data.index(b"\0", at)
                name = data[at:end].decode("ascii", "replace")
                at = (end + 4) & ~3
                path = "/" if node is None else (node.path.rstrip("/") + "/" + name)
                child = Node(name, path, node)
                if node is None:
                    root = child
                else:
                    node.children.append(child)
                node = child
            elif token == FDT_END_NODE:
                if node is None:
                    raise TreeError(f"{source} closes a node it never opened")
                node = node.parent
            elif token == FDT_PROP:
                size, name_at = struct.unpack_from(">II", data, at)
                at += 8
                if node is None:
                    raise TreeError(f"{source} has a property outside any node")
                prop = strings[name_at:strings.index(b"\0", name_at)].decode("ascii", "replace")
                node.props[prop] = data[at:at + size]
                at = (at + size + 3) & ~3
            elif token == FDT_NOP:
                continue
            elif token == FDT_END:
                break
            else:
                raise TreeError(f"{source} has an unknown token {token} at byte {at - 4}")
    except (struct.error, ValueError) as error:
        raise TreeError(f"{source} is cut short or damaged ({error})") from None
    if root is None:
        raise TreeError(f"{source} has no root node")
    return root


def walk(root: Node) -> Iterator[Node]:
    yield root
    for child in root.children:
        yield from walk(child)


def sd_hosts(root: Node) -> list[Node]:
    """The enabled SD/MMC host controllers that serve a card slot (not ``non-removable``)."""
    return [n for n in walk(root)
            if n.name.split("@")[0] in ("mmc", "sdhci", "sdhost", "emmc2") and n.enabled
            and "non-removable" not in n.props and n.strings("compatible")]


def providers(node: Node, by_phandle: dict[int, Node]) -> Iterator[Node]:
    """The nodes ``node`` points at through its supplies, clocks, GPIOs, pins and the like."""
    for prop in node.props:
        if prop.endswith("-supply") or (prop.startswith("pinctrl-") and prop[len("pinctrl-"):].isdigit()):
            cells_prop = ""
        elif prop in PROVIDER_LISTS:
            cells_prop = PROVIDER_LISTS[prop]
        elif prop.endswith("-gpios") or prop.endswith("-gpio"):
            cells_prop = "#gpio-cells"
        else:
            continue
        cells, at = node.cells(prop), 0
        while at < len(cells):
            target = by_phandle.get(cells[at])
            at += 1
            if target is None:
                continue  # 0: an empty slot in a list; anything else is the tree's own fault
            yield target
            if cells_prop:
                count = target.cells(cells_prop)
                at += count[0] if count else 0


def needed_nodes(root: Node) -> tuple[list[Node], list[Node]]:
    """The SD hosts, and every node they depend on (with the hosts, in the order found)."""
    by_phandle = {}
    for node in walk(root):
        for prop in ("phandle", "linux,phandle"):
            if prop in node.props:
                by_phandle[node.cells(prop)[0]] = node
    hosts = sd_hosts(root)
    seen: dict[str, Node] = {}
    todo = list(hosts)
    while todo:
        node = todo.pop(0)
        if node.path in seen:
            continue
        seen[node.path] = node
        if node.parent is not None:
            todo.append(node.parent)
        # A disabled provider never probes (the clock tree's optional DSI clocks): nothing to load.
        todo.extend(p for p in providers(node, by_phandle) if p.enabled)
    return hosts, list(seen.values())


@dataclass(frozen=True)
class Kernel:
    """The kernel's module lists: aliases (pattern, module), dependencies (module -> modules
    by file), built-in module names; module names with ``-`` written ``_``."""

    aliases: tuple[tuple[str, str], ...]
    deps: dict[str, tuple[str, ...]]
    files: dict[str, str]  # module -> its file, relative to the modules folder
    builtin: frozenset[str]

    @classmethod
    def read(cls, alias_text: str, dep_text: str, builtin_text: str) -> Kernel:
        aliases = tuple((words[1], words[2]) for line in alias_text.splitlines()
                        if (words := line.split()) and len(words) == 3 and words[0] == "alias"
                        and words[1].startswith("of:"))
        deps, files = {}, {}
        for line in dep_text.splitlines():
            if ":" not in line:
                continue
            path, rest = line.split(":", 1)
            name = module_name(path)
            files[name] = path
            deps[name] = tuple(module_name(p) for p in rest.split())
        builtin = frozenset(module_name(p) for p in builtin_text.split())
        if not files:
            raise TreeError("modules.dep lists no modules")
        return cls(aliases, deps, files, builtin)

    @classmethod
    def from_folder(cls, folder: Path) -> Kernel:
        try:
            return cls.read(*((folder / f).read_text() for f in ("modules.alias", "modules.dep", "modules.builtin")))
        except OSError as error:
            raise TreeError(f"cannot read the kernel's module lists in {folder}: {error.strerror}") from None

    def modules_for(self, node: Node) -> list[str]:
        """The modules whose ``of:`` aliases match ``node``'s device."""
        compatibles = node.strings("compatible")
        if not compatibles:
            return []
        modalias = node.modalias()
        found = []
        for pattern, module in self.aliases:
            # Most patterns name one compatible: a substring test skips the others cheaply.
            if any(c in pattern for c in compatibles) and fnmatch.fnmatchcase(modalias, pattern):
                name = module.replace("-", "_")
                if name not in found:
                    found.append(name)
        return found

    def closure(self, modules: Iterable[str]) -> list[str]:
        """``modules`` with everything they depend on (modules.dep), loadable ones only."""
        out: list[str] = []
        todo = [m.replace("-", "_") for m in modules]
        while todo:
            name = todo.pop(0)
            if name in out or name not in self.files:
                continue
            out.append(name)
            todo.extend(self.deps.get(name, ()))
        return out

    def present(self, module: str) -> bool:
        name = module.replace("-", "_")
        return name in self.files or name in self.builtin


def module_name(path: str) -> str:
    """``kernel/drivers/mmc/host/sdhci-iproc.ko.xz`` -> ``sdhci_iproc``."""
    base = path.rsplit("/", 1)[-1]
    return base.split(".ko", 1)[0].replace("-", "_")


@dataclass(frozen=True)
class Needs:
    """What one board's tree needs: its SD hosts, node paths with the modules each matched,
    and the nodes matched by no module (built in, or needing no driver)."""

    model: str
    hosts: tuple[str, ...]
    by_node: tuple[tuple[str, tuple[str, ...]], ...]
    no_module: tuple[str, ...]

    @property
    def modules(self) -> list[str]:
        return list(dict.fromkeys(m for _, mods in self.by_node for m in mods))


def board_needs(tree: bytes, kernel: Kernel, source: str) -> Needs:
    root = parse_fdt(tree, source)
    hosts, nodes = needed_nodes(root)
    if not hosts:
        raise TreeError(f"{source} has no enabled SD host controller")
    by_node, no_module = [], []
    for node in nodes:
        found = kernel.modules_for(node)
        if found:
            by_node.append((node.path, tuple(found)))
        elif node.strings("compatible"):
            no_module.append(node.path)
    model = (root.strings("model") or [source])[0]
    return Needs(model, tuple(h.path for h in hosts), tuple(by_node), tuple(no_module))


def needed_modules(trees: dict[str, bytes], kernel: Kernel,
                   extra: Iterable[str] = EXTRA_MODULES) -> tuple[list[str], dict[str, Needs]]:
    """The top-level modules every tree in ``trees`` (name -> .dtb) needs, with ``extra``
    (in that order, once each), and each tree's :class:`Needs`. An extra module the kernel
    has neither as a module nor built in is a :class:`TreeError`."""
    per_board = {name: board_needs(data, kernel, name) for name, data in trees.items()}
    absent = [m for m in extra if not kernel.present(m)]
    if absent:
        raise TreeError(f"the kernel has no module {', '.join(absent)} (neither loadable nor built in)")
    top = list(dict.fromkeys([*(m for needs in per_board.values() for m in needs.modules),
                              *(m.replace("-", "_") for m in extra if m.replace("-", "_") in kernel.files)]))
    return top, per_board


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules_dir", type=Path, help="the kernel's modules folder (/lib/modules/VERSION)")
    parser.add_argument("dtb_dir", type=Path, help=f"the folder with the device trees {', '.join(BOARD_TREES)}")
    args = parser.parse_args(argv)
    try:
        kernel = Kernel.from_folder(args.modules_dir)
        trees = {}
        for name in BOARD_TREES:
            try:
                trees[name] = (args.dtb_dir / name).read_bytes()
            except OSError as error:
                raise TreeError(f"cannot read the device tree {args.dtb_dir / name}: {error.strerror}") from None
        top, per_board = needed_modules(trees, kernel)
    except TreeError as error:
        print(f"initramfs-modules: {error}", file=sys.stderr)
        return 2
    for name, needs in per_board.items():
        print(f"{name} ({needs.model}): SD host {', '.join(needs.hosts)}; modules "
              f"{', '.join(kernel.closure(needs.modules)) or 'none'}", file=sys.stderr)
    print("\n".join(top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
