"""The lgpio pin factory on a Pi whose kernel gives no board revision (Debian's), through
gpiozero's real ``LGPIOFactory`` over the fake ``lgpio`` of :mod:`fakes.lgpio`.

* the chip is the one labelled as the Pi's pin controller, wherever the kernel numbers
  it (Pi 4: gpiochip0; Pi 5: gpiochip4 on older kernels, gpiochip0 on newer ones), and
  pin names turn into GPIO numbers through a board revision made from the device
  tree's model; a machine without such a chip gets one sentence naming what it has;
* presses on two stations come out in the kernel's edge order even when the callback
  thread delivers them the other way round;
* lgpio gets a writable working directory before it is imported.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fakes.lgpio import Alert, FakeChip, FakeKernel, FakeLgpio, LgpioFinder
from fakes.pins import VirtualClock

from table.common.errors import TableError
from table.hardware.buttons import Timing
from table.hardware.config import HardwareConfig, StationWiring
from table.hardware.gpio import GpioStations, board_revision, lgpio_workdir, make_pin_factory
from table.hardware.interfaces import StationInput

T = Timing(settle=0.015, tie_window=0.002, debounce=0.030, false_start_lockout=0.5, long_push=2.0)

DEBIAN_CPUINFO = "processor\t: 0\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n\n"


def pi4() -> list[FakeChip]:
    return [FakeChip(0, "pinctrl-bcm2711", 58), FakeChip(1, "raspberrypi-exp-gpio", 8)]


def pi5_older_kernel() -> list[FakeChip]:
    others = [FakeChip(n, f"gpio-brcmstb@107d5085{n}0", 32) for n in range(4)]
    return [*others, FakeChip(4, "pinctrl-rp1", 54)]


def pi5_newer_kernel() -> list[FakeChip]:
    return [FakeChip(0, "pinctrl-rp1", 54), FakeChip(10, "gpio-brcmstb@107d508500", 32),
            FakeChip(11, "gpio-brcmstb@107d517c00", 15), FakeChip(12, "rpi-firmware-gpio", 8)]


class Machine:
    """A made-up root (``dev``, ``proc``) with its kernel, and lgpio imported through the fake."""

    def __init__(self, root: Path, chips: list[FakeChip], model: str | None, cpuinfo: str,
                 read_only: tuple[Path, ...] = ()) -> None:
        self.root = root
        self.kernel = FakeKernel(chips, read_only)
        self.kernel.make_nodes(root)
        (root / "proc").mkdir(parents=True, exist_ok=True)
        (root / "proc" / "cpuinfo").write_text(cpuinfo)
        if model is not None:
            (root / "proc" / "device-tree").mkdir()
            (root / "proc" / "device-tree" / "model").write_bytes(model.encode() + b"\0")
        self.finder = LgpioFinder(self.kernel)

    @property
    def lgpio(self) -> FakeLgpio:
        assert len(self.finder.modules) == 1
        return self.finder.modules[0]


MakeMachine = Callable[..., Machine]


@pytest.fixture
def machines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Machine]]:
    # The code under test sets LG_WD in os.environ: make the monkeypatch put it back.
    monkeypatch.setenv("LG_WD", "")
    monkeypatch.delenv("LG_WD")
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    run = tmp_path / "run"
    run.mkdir()
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(run))
    made: list[Machine] = []
    yield made
    for machine in made:
        machine.finder.uninstall()


@pytest.fixture
def machine(machines: list[Machine], tmp_path: Path) -> Iterator[MakeMachine]:
    def make(chips: list[FakeChip], model: str | None = None, cpuinfo: str = DEBIAN_CPUINFO,
             read_only: tuple[Path, ...] = ()) -> Machine:
        m = Machine(tmp_path / f"root{len(machines)}", chips, model, cpuinfo, read_only)
        machines.append(m)
        m.finder.install()
        return m
    yield make


# --- the chip, found by its label; the board from the device tree ----------------------

@pytest.mark.parametrize(("chips", "model", "chip", "board", "pcb"), [
    (pi4(), "Raspberry Pi 4 Model B Rev 1.4", 0, "4B", "1.4"),
    (pi5_older_kernel(), "Raspberry Pi 5 Model B Rev 1.0", 4, "5B", "1.0"),
    (pi5_newer_kernel(), "Raspberry Pi 5 Model B Rev 1.1", 0, "5B", "1.1"),
    (pi5_newer_kernel(), None, 0, "5B", "1.0"),  # no model either: the RP1 means a Pi 5
    (pi4(), "Raspberry Pi 400 Rev 1.1", 0, "400", "1.1"),
])
def test_the_pin_controller_is_found_by_label_without_a_revision(
    machine: MakeMachine, chips: list[FakeChip], model: str | None, chip: int, board: str, pcb: str,
) -> None:
    m = machine(chips, model)
    factory = make_pin_factory("lgpio", root=m.root)
    try:
        assert factory.chip == chip
        assert (factory.board_info.model, factory.board_info.pcb_revision) == (board, pcb)
        # pin names go through the board info: BCM number, name, header position
        pins = [factory.pin(17), factory.pin("GPIO22"), factory.pin("BOARD16")]  # BOARD16 is GPIO23
        assert [p.info.name for p in pins] == ["GPIO17", "GPIO22", "GPIO23"]
        lines = m.kernel.chips[chip].line
        assert all(lines[n].owner is not None for n in (17, 22, 23))
        assert all(line.owner is None for c in m.kernel.chips.values() if c.number != chip for line in c.line)
    finally:
        factory.close()
    assert all(line.owner is None for line in m.kernel.chips[chip].line)


def test_a_revision_the_kernel_gives_is_used_as_it_is(machine: MakeMachine) -> None:
    cpuinfo = DEBIAN_CPUINFO + "Revision\t: b03112\n"  # Raspberry Pi OS's kernel
    m = machine(pi4(), "Raspberry Pi 4 Model B Rev 1.4", cpuinfo=cpuinfo)
    factory = make_pin_factory("lgpio", root=m.root)
    try:
        info = factory.board_info
        assert (info.revision, info.model, info.pcb_revision, info.memory) == ("b03112", "4B", "1.2", 2048)
    finally:
        factory.close()


def test_board_revision_reads_the_device_tree_system_node(tmp_path: Path) -> None:
    system = tmp_path / "proc" / "device-tree" / "system"
    system.mkdir(parents=True)
    (system / "linux,revision").write_bytes(bytes.fromhex("00d04170"))
    assert board_revision("pinctrl-rp1", tmp_path) == 0xD04170
    # a model the table has no code for: the pin controller's family
    (system / "linux,revision").unlink()
    (tmp_path / "proc" / "device-tree" / "model").write_text("Some Board\0")
    assert board_revision("pinctrl-bcm2835", tmp_path) & 0xFF0 == 0x080  # a Pi 3 B: the 40-pin header


@pytest.mark.parametrize(("chips", "seen"), [
    ([FakeChip(0, "INT34C5:00", 360), FakeChip(1, "ftdi-cbus", 4)],
     "gpiochip0 'INT34C5:00' (360 lines), gpiochip1 'ftdi-cbus' (4 lines)"),
    ([FakeChip(0, "pinctrl-bcm2711", 58, openable=False), FakeChip(1, "raspberrypi-exp-gpio", 8)],
     "gpiochip0 (not opened: can not open gpiochip), gpiochip1 'raspberrypi-exp-gpio' (8 lines)"),
    ([], "no /dev/gpiochip* at all"),
])
def test_no_pi_pin_controller_is_one_sentence_naming_the_chips(
    machine: MakeMachine, chips: list[FakeChip], seen: str,
) -> None:
    m = machine(chips, "Raspberry Pi 4 Model B Rev 1.4")
    with pytest.raises(TableError) as info:
        make_pin_factory("lgpio", root=m.root)
    message = str(info.value)
    assert message.startswith("GPIO is not available on this machine (no Raspberry Pi pin controller "
                              "(pinctrl-bcm2711, pinctrl-bcm2835, pinctrl-rp1) among the GPIO chips: ")
    assert seen in message and "table sim" in message and "\n" not in message
    assert m.lgpio._slots.keys() == {0}  # every probed chip closed again


# --- presses ordered by the kernel's ticks --------------------------------------------

def latest_first(alerts: list[Alert]) -> list[Alert]:
    return sorted(alerts, key=lambda a: -a.tick_ns)


@pytest.mark.parametrize("chips", [pi4(), pi5_older_kernel()])
def test_presses_delivered_out_of_order_come_out_in_tick_order(machine: MakeMachine, chips: list[FakeChip]) -> None:
    m = machine(chips, None)
    chip = next(c.number for c in chips if c.label.startswith("pinctrl-"))
    wiring = (StationWiring(button=5, knob="none"), StationWiring(button=6, knob="none"))
    clock = VirtualClock()
    factory = make_pin_factory("lgpio", root=m.root)
    stations = GpioStations(HardwareConfig(stations=wiring), T, pin_factory=factory, clock=clock, run_thread=False)
    got: list[StationInput] = []
    stations.start(got.append)
    try:
        lines = m.kernel.chips[chip].line
        assert lines[5].flags & 32 and lines[5].edges == 3  # pulled up, both edges, as gpiozero asks
        boot_ns = 7_200_000_000_000  # the kernel's clock: two hours since boot
        for first, second in ((0, 1), (1, 0), (0, 1)):
            pins = (5, 6)
            m.kernel.drive(chip, pins[first], 0, boot_ns)  # pressed: the line falls
            m.kernel.drive(chip, pins[second], 0, boot_ns + 5_000_000)  # 5 ms later
            clock.t += 0.004
            sent = m.lgpio.deliver(latest_first)
            assert [a.gpio for a in sent] == [pins[second], pins[first]]  # the later edge first
            assert all(isinstance(a, Alert) and a.level == 0 for a in sent)
            clock.t += 0.1
            stations.pump()
            m.kernel.drive(chip, 5, None, boot_ns + 200_000_000)
            m.kernel.drive(chip, 6, None, boot_ns + 200_000_000)
            m.lgpio.deliver()
            clock.t += 0.3
            stations.pump()
            boot_ns += 1_000_000_000
            clock.t += 0.6
    finally:
        stations.stop()
        factory.close()
    presses = [i for i in got if i.kind == "press"]
    assert [i.station for i in presses] == [0, 1, 1, 0, 0, 1]
    assert all(i.tie == () for i in presses)
    gaps = [b.t - a.t for a, b in zip(presses[::2], presses[1::2], strict=True)]
    assert gaps == [pytest.approx(0.005, abs=1e-6)] * 3


def test_a_line_held_by_a_kernel_driver_is_one_sentence(machine: MakeMachine) -> None:
    chips = pi4()
    chips[0] = FakeChip(0, "pinctrl-bcm2711", 58, busy={6: "spi0 CS0"})
    m = machine(chips, "Raspberry Pi 4 Model B Rev 1.4")
    wiring = (StationWiring(button=5, knob="none"), StationWiring(button=6, knob="none"))
    factory = make_pin_factory("lgpio", root=m.root)
    stations = GpioStations(HardwareConfig(stations=wiring), T, pin_factory=factory, clock=VirtualClock(),
                            run_thread=False)
    try:
        with pytest.raises(TableError, match=r"^the station pins could not be opened: 'GPIO busy'$"):
            stations.start(lambda item: None)
        line = m.kernel.chips[0].line[5]  # what was opened is closed again: gpiozero leaves
        assert (line.mode, line.flags) == (1, 128)  # a closed pin an input, pull off...
    finally:
        factory.close()
    assert line.owner is None  # ...until the factory closes


# --- the fake holds to what lgpio enforces ----------------------------------------------

def test_the_fake_lgpio_refuses_what_the_real_one_refuses(machine: MakeMachine) -> None:
    m = machine(pi4(), None)
    import lgpio

    assert lgpio is m.lgpio
    h = lgpio.gpiochip_open(0)
    assert h == 1 | 0 << 16  # slot 0 is the notification pipe
    other = lgpio.gpiochip_open(0)
    assert lgpio.gpio_get_chip_info(h) == [0, 58, "gpiochip0", "pinctrl-bcm2711"]
    assert lgpio.gpio_claim_input(h, 4, lgpio.SET_PULL_UP) == 0
    assert lgpio.gpio_read(h, 4) == 1
    assert lgpio.gpio_get_mode(h, 4) & (lgpio.SET_PULL_UP | 1 << 8) == lgpio.SET_PULL_UP | 1 << 8

    def refused(text: str, call: object, *args: object) -> None:
        with pytest.raises(lgpio.error) as info:
            call(*args)
        assert info.value.value == text and str(info.value) == repr(text)

    refused("GPIO busy", lgpio.gpio_claim_input, other, 4)  # another request holds it
    refused("bad event request", lgpio.gpio_claim_alert, other, 4, lgpio.BOTH_EDGES)
    refused("GPIO operation not permitted", lgpio.gpio_claim_output, h, 59)
    refused("bad GPIO number", lgpio.gpio_read, h, 58)
    refused("GPIO not allocated", lgpio.gpio_free, h, 7)
    refused("bad debounce microseconds", lgpio.gpio_set_debounce_micros, h, 4, 6_000_000)
    refused("bad PWM frequency", lgpio.tx_pwm, h, 12, 20_000, 50)
    refused("can not open gpiochip", lgpio.gpiochip_open, 2)
    with pytest.raises(TypeError):
        lgpio.gpio_claim_input(h, "4")
    assert lgpio.gpio_claim_output(h, 4, 1) == 0  # the same handle: freed and claimed again
    assert lgpio.gpio_read(h, 4) == 1 and lgpio.gpio_write(h, 4, 0) == 0 and lgpio.gpio_read(h, 4) == 0
    lgpio.gpiochip_close(h)
    refused("unknown handle", lgpio.gpio_read, h, 4)
    refused("unknown handle", lgpio.gpiochip_close, h)
    assert lgpio.gpio_claim_input(other, 4) == 0  # closing freed the line
    lgpio.exceptions = False
    assert lgpio.gpio_free(other, 9) == -80  # a negative code instead of an exception
    lgpio.gpiochip_close(other)


# --- lgpio's working directory -----------------------------------------------------------

def test_lgpio_gets_a_writable_directory_from_a_read_only_one(
    machine: MakeMachine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    m = machine(pi4(), "Raspberry Pi 4 Model B Rev 1.4", read_only=(ro,))
    monkeypatch.chdir(ro)
    # As it was: lgpio imported in a read-only directory has no pipe and fails.
    with pytest.raises(FileNotFoundError, match=re.escape(".lgd-nfy-3")):
        import lgpio  # noqa: F401
    assert m.finder.modules[0].env_at_import is None
    os.chdir(ro)  # the library moved the process before it failed
    m.finder.modules.clear()
    factory = make_pin_factory("lgpio", root=m.root)
    factory.close()
    module = m.finder.modules[0]
    run = tmp_path / "run"
    assert module.env_at_import == str(run) and module.cwd_at_import == str(ro)
    assert (run / ".lgd-nfy0").exists()
    assert os.getcwd() == str(ro)  # given back after the import


def test_the_lgpio_directory_prefers_the_services_own(tmp_path: Path) -> None:
    run, state = tmp_path / "run", tmp_path / "state"
    run.mkdir()
    state.mkdir()
    env = {"LG_WD": "/somewhere", "RUNTIME_DIRECTORY": str(run)}
    assert lgpio_workdir(env) == "/somewhere"  # the operator's own is kept
    env = {"RUNTIME_DIRECTORY": f"{run}:{tmp_path}", "STATE_DIRECTORY": str(state)}
    assert lgpio_workdir(env) == str(run) == env["LG_WD"]
    env = {"STATE_DIRECTORY": str(state)}
    assert lgpio_workdir(env) == str(state)
    env = {"RUNTIME_DIRECTORY": str(tmp_path / "missing")}
    private = Path(lgpio_workdir(env))
    assert private.is_dir() and private.name.startswith("table-lgpio-") and private.stat().st_mode & 0o777 == 0o700
