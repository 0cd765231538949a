# Shared steps of the arm64 checks, sourced by scripts/target-check, scripts/wheelhouse
# and scripts/image-build (never run by itself): the step log with its heartbeat, the host
# tools, the wheel, the one cached Debian 13 (trixie) arm64 root, the cached wheelhouse,
# running commands inside the root (with or without its network), and cleaning up.
#
# The sourcing script sets `root` (the checkout) before sourcing; this file sets
# `cache`, `suite`, `mirror`, `work` and `R` (the root being worked on).
# shellcheck shell=bash

cache="${TABLE_TARGET_CACHE:-/var/cache/game-table}"
suite=trixie
mirror="${TABLE_TARGET_MIRROR:-http://deb.debian.org/debian}"
# What Raspberry Pi OS Lite has before anyone installs anything (it is Debian 13 based).
base_packages="python3 systemd systemd-sysv udev kmod ca-certificates sudo util-linux passwd"
work="$(mktemp -d /tmp/table-target.XXXXXX)"
R="$work/root"
started=$(date +%s)
# Prefix of every log line ("target", "image", ...); the sourcing script may change it.
log_name="${log_name:-target}"

# The CPU qemu-user emulates for every arm64 program (QEMU_CPU, read by qemu from each
# program's environment): the Raspberry Pi 4's Cortex-A72. QEMU's default ("max") has
# pointer authentication, which Debian's arm64 programs use on every function call and
# qemu 7.2 computes in software: Python ran 20 times slower with it, and ONNX Runtime's
# import crashed.
export QEMU_CPU="${TABLE_QEMU_CPU:-cortex-a72}"

say() { echo "$log_name: $*"; }
fail() { say "$step ... FAILED: $*"; exit 1; }

step_start=0
step=""
begin() { step="$1"; step_start=$(date +%s); }
ok() { say "$step ... ok ($(( $(date +%s) - step_start )) s)${1:+: $1}"; }

# long_run LOG COMMAND...: runs COMMAND (a program or a function) with its output in LOG,
# and meanwhile prints a line every 50 s with the time so far and LOG's last line, so
# that a log never stays silent for a minute. Returns COMMAND's status.
long_run() {
  local log="$1" pid waited=0 last
  shift
  "$@" >"$log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    waited=$((waited + 5))
    if [ $((waited % 50)) = 0 ]; then
      last="$(tail -n 1 "$log" 2>/dev/null | tr -d '\r' | cut -c1-110)"
      say "  ... $step: $waited s so far${last:+ ($last)}"
    fi
  done
  wait "$pid"
}

# Scripts of one run share the cache and may run side by side (scripts/run-tests runs
# the target check and the SD card's boot test at once): whoever comes second to a lock
# waits, printing a line every 50 s, and then finds the first one's work in the cache.
# lock NAME takes it; unlock NAME gives it back (both also end with the script).
declare -A lock_fds=()
lock() {
  local fd waited=0
  mkdir -p "$cache"
  exec {fd}>"$cache/.$1.lock"
  lock_fds[$1]=$fd
  until flock -n "$fd"; do
    sleep 5
    waited=$((waited + 5))
    [ $((waited % 50)) != 0 ] || say "  ... $step: waiting $waited s for another check's $1"
  done
}
unlock() { flock -u "${lock_fds[$1]}"; }

unmount_root() {
  local m
  for m in proc/cpuinfo proc sys dev/pts dev/shm dev root/.cache/pip media/wheelhouse; do
    mountpoint -q "$R/$m" 2>/dev/null && umount -l "$R/$m" || true
  done
}

cleanup() {
  unmount_root
  # Never delete through a mount that is still there (the host's /dev, the caches).
  local m
  for m in proc sys dev root/.cache/pip media/wheelhouse; do
    if mountpoint -q "$R/$m" 2>/dev/null; then
      echo "$log_name: $R/$m is still mounted; leaving $work in place" >&2
      return
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Run a command inside the root with a clean environment (nothing of the host leaks in);
# Python unbuffered, so that a long step's log shows how far it is.
in_root() {
  chroot "$R" /usr/bin/env -i QEMU_CPU="$QEMU_CPU" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    DEBIAN_FRONTEND=noninteractive PYTHONUNBUFFERED=1 "$@"
}
# The same with the root's network cut: a new network namespace holding only a loopback
# that is down, so no name resolves and no address is reachable (a hall with no internet).
offline_in_root() {
  unshare --net -- chroot "$R" /usr/bin/env -i QEMU_CPU="$QEMU_CPU" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 PIP_DISABLE_PIP_VERSION_CHECK=1 DEBIAN_FRONTEND=noninteractive PYTHONUNBUFFERED=1 "$@"
}
run_table() {
  # runuser from util-linux: the same user switch systemd's User= does, without a login.
  in_root /usr/sbin/runuser -u table -- /usr/bin/env -i QEMU_CPU="$QEMU_CPU" PATH=/usr/bin:/bin HOME=/var/lib/table \
    LANG=C.UTF-8 SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy /bin/sh -c "cd / && $*"
}

# The Debian packages of a list file in packaging/ (comments, blank lines and anything
# after the first word left out).
package_list() { grep -v '^\s*#' "$root/packaging/$1" | grep -v '^\s*$' | awk '{print $1}'; }
# The recipe's packages that Debian has (packaging/raspi-only.txt names the others).
debian_recipe_packages() { grep -vxF -f <(package_list raspi-only.txt) <(package_list debian-pi.txt) || true; }

need_root() {
  [ "$(id -u)" = 0 ] || { step="start"; fail "$1 needs root (mmdebstrap and chroot)"; }
}

# host_tools PACKAGE...: install what is missing, and make arm64 programs runnable.
host_tools() {
  begin "host tools ($*, binfmt_misc)"
  local missing=() pkg
  for pkg in qemu-user-static binfmt-support mmdebstrap zstd "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
      || fail "could not install ${missing[*]}"
  fi
  mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
    || fail "binfmt_misc cannot be mounted, so arm64 programs cannot run here"
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || fail "qemu-aarch64 is not registered with binfmt_misc"
  ok
}

# build_wheel: sets `wheel` to the wheel built from this checkout.
build_wheel() {
  begin "build the wheel"
  local python="${PYTHON:-$root/.venv/bin/python}"
  [ -x "$python" ] || python=python3
  # From a copy: setuptools builds in the source tree (build/, *.egg-info), and a stray
  # egg-info in the checkout would confuse the checkout's own editable install.
  mkdir -p "$work/src"
  tar -C "$root" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='./*.egg-info' \
    --exclude=__pycache__ --exclude=.mypy_cache --exclude=.ruff_cache -cf - . | tar -C "$work/src" -xf -
  "$python" -m pip wheel --no-deps -q -w "$work/dist" "$work/src" >"$work/wheel.log" 2>&1 \
    || { cat "$work/wheel.log"; fail "pip could not build the wheel"; }
  wheel="$(ls "$work"/dist/game_table-*.whl)"
  ok "$(basename "$wheel")"
}

# The root's recipe: every package any of the arm64 checks needs, installed in one
# mmdebstrap run (dpkg under qemu-user is the slow part, so it runs once): Raspberry Pi
# OS Lite's base, the recipe's packages that Debian has, the wheelhouse's build tools and
# the card's kernel, firmware and display libraries. No initramfs is made here: the kernel
# and initramfs-tools' trigger would each make one under emulation, and only the SD card
# needs one, so scripts/image-build makes it, once.
root_recipe="mmdebstrap minbase main,non-free-firmware; no initramfs; no docs; v3"

# root_packages: the comma-separated package list of the root.
root_packages() {
  { printf '%s\n' $base_packages; debian_recipe_packages; package_list debian-wheelhouse.txt
    package_list debian-image.txt; } | paste -sd, -
}

# make_root: sets `root_tarball` to the cached root (made unless it is in the cache).
make_root() {
  local packages key tmp
  packages="$(root_packages)"
  key="$(echo "$suite $packages $root_recipe" | sha256sum | cut -c1-12)"
  root_tarball="$cache/$suite-arm64-$key.tar.zst"
  mkdir -p "$cache"
  root_made=""
  lock root
  [ -s "$root_tarball" ] && { unlock root; return 0; }
  tmp="$work/mmdebstrap-root"
  # Before the packages are installed: update-initramfs diverted to a stub that does
  # nothing (the kernel's hook then skips it, as it does when initramfs-tools is absent);
  # the customize hook puts the real one back.
  local hook='mkdir -p "$1/boot/firmware" "$1/usr/sbin"
chroot "$1" dpkg-divert --quiet --local --rename --divert /usr/sbin/update-initramfs.table-build --add /usr/sbin/update-initramfs
printf "#!/bin/sh\nexit 0\n" >"$1/usr/sbin/update-initramfs"
chmod 0755 "$1/usr/sbin/update-initramfs"'
  local unhook='rm -f "$1/usr/sbin/update-initramfs"
chroot "$1" dpkg-divert --quiet --local --rename --divert /usr/sbin/update-initramfs.table-build --remove /usr/sbin/update-initramfs'
  # Documentation, manual pages and translations are left out (nobody reads them on the
  # table, and each file is written by dpkg under emulation); the licences stay.
  long_run "$work/mmdebstrap.log" mmdebstrap --mode=root --arch=arm64 --variant=minbase \
    --components=main,non-free-firmware --include="$packages" --essential-hook="$hook" \
    --customize-hook="$unhook" --dpkgopt=force-confold --dpkgopt=force-unsafe-io \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --aptopt='Acquire::Retries "5"' "$suite" "$tmp" "$mirror" \
    || { tail -30 "$work/mmdebstrap.log"; fail "mmdebstrap could not make the $suite arm64 root"; }
  [ -e "$tmp/vmlinuz" ] && [ -x "$tmp/usr/sbin/update-initramfs" ] \
    || fail "the root has no /vmlinuz, or update-initramfs was not put back"
  tar -C "$tmp" -I 'zstd -T0 -3' -cf "$root_tarball.part" . && mv "$root_tarball.part" "$root_tarball"
  rm -rf "$tmp"
  root_made=1
  unlock root
}

# root_step: the step that makes (or takes from the cache) the root and unpacks it into $R.
root_step() {
  begin "Debian 13 ($suite) arm64 root"
  make_root
  mkdir -p "$R"
  tar -C "$R" -I zstd -xf "$root_tarball" || fail "the cached root $root_tarball cannot be unpacked (remove it)"
  if [ -n "$root_made" ]; then ok "made with mmdebstrap and cached as $root_tarball"; else ok "from the cache $root_tarball"; fi
}

# enter_root: mount what programs inside need, DNS and the CA bundle.
enter_root() {
  mount -t proc proc "$R/proc"
  # The host's /proc/cpuinfo describes its own CPUs; programs that read it to learn their
  # CPU's features (ONNX Runtime's cpuinfo) see an arm64 machine's instead: the emulated
  # Cortex-A72's lines, without a Raspberry Pi's Revision and Model (no board is claimed).
  local core
  for core in 0 1; do
    printf 'processor\t: %s\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n' "$core"
  done >"$work/cpuinfo-arm64"
  mount --bind "$work/cpuinfo-arm64" "$R/proc/cpuinfo"
  mount --bind /sys "$R/sys"
  mount --bind /dev "$R/dev"
  cp /etc/resolv.conf "$R/etc/resolv.conf"
  # The host's CA bundle, so pip inside trusts what the host trusts.
  cp /etc/ssl/certs/ca-certificates.crt "$R/etc/ssl/certs/ca-certificates.crt"
  [ "$(in_root uname -m)" = aarch64 ] || { step="arm64 emulation"; fail "programs in the root do not run as aarch64"; }
}

# The wheelhouse: every wheel the table's install needs on the target (CPython 3.13,
# aarch64), with the extras in $wheelhouse_extras: the pi extra (Pi 4 and Pi 5) and the
# pi5 extra (the Pi 5's LED driver, a published wheel). The build machine's pip
# downloads the published ones natively (tools/wheelhouse/fetch.py: the target's tags
# and environment markers), and the root builds only the projects that publish no wheel
# for the target (lgpio with swig; rpi_ws281x with gcc when TABLE_WHEELHOUSE_EXTRAS
# adds the neopixel extra, which the kiosk does not use): pip under emulation takes
# minutes for what takes seconds natively. The wheelhouse is cached by the project's
# [project] table (its dependencies and extras, not its comments), the extras, the root
# and the fetcher; the table's own wheel is replaced by the fresh one every time.
wheelhouse_extras="${TABLE_WHEELHOUSE_EXTRAS:-pi,pi5}"
wheelhouse_key() {
  { sed -n '/^\[project\]/,/^\[tool\./p' "$root/pyproject.toml" | grep -v '^\s*#'; echo "$root_tarball"
    echo "$wheelhouse_extras"; cat "$root/tools/wheelhouse/fetch.py"; } | sha256sum | cut -c1-12
}

# host_python: the build machine's Python with pip (the checkout's venv, else python3).
host_python() {
  local python="${PYTHON:-$root/.venv/bin/python}"
  [ -x "$python" ] || python=python3
  echo "$python"
}

# build_on_target REQUIREMENT: the wheel of one project that publishes only its source,
# built inside $R (entered) and added to $work/built. The build machine downloads the
# source; the root builds it with setuptools (from the wheel Debian's python3-venv
# brings, unpacked once) through its PEP 517 hooks, without pip: under emulation pip's
# start alone takes half a minute, and its build isolation would install setuptools anew
# for each project.
build_on_target() {
  local requirement="$1" sdist name
  mkdir -p "$work/built" "$work/sdists"
  say "  ... $step: building $requirement in the root (it publishes no wheel for the target)"
  rm -rf "$work/sdists"/*
  "$(host_python)" -m pip download -q --no-deps --no-binary=:all: --disable-pip-version-check -d "$work/sdists" \
    "$requirement" >"$work/sdist.log" 2>&1 || { cat "$work/sdist.log"; fail "pip could not download $requirement's source"; }
  sdist="$(ls "$work"/sdists/*.tar.gz 2>/dev/null | head -n 1)"
  [ -n "$sdist" ] || fail "$requirement's source is not a .tar.gz"
  if [ ! -d "$R/tmp/buildtools/setuptools" ]; then
    mkdir -p "$R/tmp/buildtools"
    "$(host_python)" -m zipfile -e "$(ls "$R"/usr/share/python-wheels/setuptools-*.whl | head -n 1)" "$R/tmp/buildtools" \
      || fail "cannot unpack the root's setuptools wheel"
  fi
  rm -rf "$R/tmp/build" && mkdir -p "$R/tmp/build" "$R/tmp/built"
  tar -C "$R/tmp/build" -xzf "$sdist"
  name="$(ls "$R/tmp/build")"
  if grep -qs '^build-backend' "$R/tmp/build/$name/pyproject.toml" \
     && ! grep -qs '^build-backend *= *"setuptools.build_meta' "$R/tmp/build/$name/pyproject.toml"; then
    fail "$name builds with $(grep '^build-backend' "$R/tmp/build/$name/pyproject.toml"), not setuptools"
  fi
  # PYPI=1 makes lgpio's setup.py compile its own C library into the module (as its
  # published wheels are made) instead of linking to liblgpio, which only Raspberry Pi's
  # archive has.
  long_run "$work/build.log" in_root /usr/bin/env PYPI=1 PYTHONPATH=/tmp/buildtools /bin/sh -c "cd '/tmp/build/$name' \
      && python3 -c 'from setuptools.build_meta import __legacy__ as b; print(b.build_wheel(\"/tmp/built\"))'" \
    || { tail -30 "$work/build.log"; fail "setuptools could not build $name in the root"; }
  cp "$R"/tmp/built/*.whl "$work/built/"
  rm -rf "$R/tmp/build" "$R/tmp/built"
}

# wheelhouse_step: sets `wheelhouse` (a host folder) to the table's wheel and every
# wheel it needs, unless cached: downloaded here, the missing ones built inside $R
# (entered, with network).
wheelhouse_step() {
  begin "the wheelhouse: every wheel for CPython 3.13 on aarch64 (downloaded here, sdists built in the root)"
  local cached="$cache/wheelhouse-$(wheelhouse_key)" python version glibc rounds=0 status requirement built_ones=""
  wheelhouse="$work/wheelhouse"
  rm -rf "$wheelhouse"
  lock wheelhouse
  if [ -d "$cached" ]; then
    unlock wheelhouse
    cp -a "$cached" "$wheelhouse"
    cp "$wheel" "$wheelhouse/"
    ok "from the cache $cached: $(ls "$wheelhouse" | wc -l) wheels"
    return
  fi
  python="$(host_python)"
  version="$(in_root python3 -c 'import platform; print(platform.python_version())')"
  glibc="$(in_root python3 -c 'import platform; print(platform.libc_ver()[1])')"
  mkdir -p "$work/built"
  # Each round resolves the whole install; a project with no wheel for the target stops
  # it, is built in the root, and the next round takes that wheel from $work/built.
  while :; do
    rounds=$((rounds + 1))
    [ "$rounds" -le 8 ] || fail "more than 7 projects had to be built in the root; see $work/fetch.log"
    status=0
    long_run "$work/fetch.log" "$python" "$root/tools/wheelhouse/fetch.py" --dest "$wheelhouse" \
      --find-links "$work/built" --python "$version" --glibc "$glibc" "$wheel[$wheelhouse_extras]" || status=$?
    [ "$status" = 0 ] && break
    requirement="$(sed -n 's/^needs-build: //p' "$work/fetch.log")"
    [ "$status" = 3 ] && [ -n "$requirement" ] || { tail -30 "$work/fetch.log"; fail "pip could not download the wheels"; }
    [[ " $built_ones " != *" $requirement "* ]] \
      || fail "the wheel built for $requirement does not fit the target ($(ls "$work/built" | paste -sd' ' -))"
    built_ones+=" $requirement"
    build_on_target "$requirement"
  done
  # Any sdist left means a wheel is missing: the offline install would need a compiler.
  ls "$wheelhouse" | grep -v '\.whl$' && fail "the wheelhouse holds something that is not a wheel"
  mkdir -p "$cache"
  rm -rf "$cached.part"
  cp -a "$wheelhouse" "$cached.part"
  rm -f "$cached.part/$(basename "$wheel")"
  mv "$cached.part" "$cached"
  unlock wheelhouse
  ok "$(ls "$wheelhouse" | wc -l) wheels for Python $version, glibc $glibc; built in the root: \
$(cd "$work/built" && ls | sed 's/-[0-9].*//' | paste -sd' ' -)"
}

# install_offline: docs/kiosk.md's install from the wheelhouse, inside $R with its
# network cut: the venv, pip from the wheelhouse alone, `table install`.
install_offline() {
  begin "offline: the venv and the wheel with its pi extra from the wheelhouse (no network)"
  mkdir -p "$R/media/wheelhouse"
  mount --bind "$wheelhouse" "$R/media/wheelhouse"
  mount -o remount,bind,ro "$R/media/wheelhouse"
  # The cut is real: inside, not even the mirror's name resolves.
  offline_in_root python3 -c "import socket; socket.getaddrinfo('deb.debian.org', 80)" >/dev/null 2>&1 \
    && fail "the root still reaches the network"
  long_run "$work/pip.log" offline_in_root python3 -m venv --system-site-packages /opt/table/venv \
    && long_run "$work/pip-install.log" offline_in_root /opt/table/venv/bin/pip install -q --no-index \
      --only-binary=:all: --find-links /media/wheelhouse 'game-table[pi]' \
    || { cat "$work/pip.log"; tail -30 "$work/pip-install.log"; fail "pip could not install from the wheelhouse"; }
  umount "$R/media/wheelhouse"
  ok "$(offline_in_root /opt/table/venv/bin/pip list 2>/dev/null | grep -ci '^[a-z]') distributions in /opt/table/venv"

  begin "table install (no network)"
  offline_in_root /bin/sh -c "cd / && /opt/table/venv/bin/table install" >"$work/install.log" 2>&1 \
    || { cat "$work/install.log"; fail "table install failed"; }
  sed 's/^/    /' "$work/install.log"
  in_root id table >/dev/null || fail "table install made no table user"
  [ -f "$R/etc/table/umtata/board.toml" ] || fail "table install did not copy the defaults to /etc/table"
  [ -L "$R/etc/systemd/system/multi-user.target.wants/table.service" ] || fail "table.service is not enabled"
  ok
}

# raspi_config_stand_in: what `raspi-config nonint do_spi 0` does to a card (raspi-config
# is in Raspberry Pi's archive only): the SPI line in the firmware's config.txt.
raspi_config_stand_in() {
  mkdir -p "$R/boot/firmware"
  grep -qx "dtparam=spi=on" "$R/boot/firmware/config.txt" 2>/dev/null || echo "dtparam=spi=on" >>"$R/boot/firmware/config.txt"
}

# The root as install_offline leaves it is kept for the next script of the same run:
# the target check saves it, the image builder starts from it instead of installing
# again (the install takes minutes under emulation). It is keyed by the root, the
# wheelhouse and the table wheel's contents (names and CRCs: a rebuilt wheel of the same
# code has the same key), and only the newest one is kept.
installed_key() {
  local contents
  contents="$(python3 -c 'import sys, zipfile; print(sorted((i.filename, i.CRC) for i in zipfile.ZipFile(sys.argv[1]).infolist()))' "$wheel")"
  echo "$root_tarball $(wheelhouse_key) $contents" | sha256sum | cut -c1-12
}
save_installed() {
  local tarball
  tarball="$cache/installed-$(installed_key).tar.zst"
  begin "keep the installed root for the SD card"
  unmount_root
  tar -C "$R" -I 'zstd -T0 -1' -cf "$tarball.part" . || fail "cannot write $tarball"
  rm -f "$cache"/installed-*.tar.zst
  mv "$tarball.part" "$tarball"
  enter_root
  ok "$tarball"
}
# take_installed: unpacks the kept installed root into $R (returns 1 when there is none).
take_installed() {
  local tarball
  begin "the installed root the target check kept"
  # A target check running beside this script installs first (it holds the lock).
  lock install
  unlock install
  tarball="$cache/installed-$(installed_key).tar.zst"
  [ -s "$tarball" ] || return 1
  mkdir -p "$R"
  tar -C "$R" -I zstd -xf "$tarball" || fail "the kept root $tarball cannot be unpacked (remove it)"
  ok "$tarball"
}
