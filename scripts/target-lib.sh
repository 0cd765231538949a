# Shared steps of the arm64 checks, sourced by scripts/target-check and
# scripts/image-build (never run by itself): the step log, the host tools, the wheel,
# the cached Debian 12 arm64 root, running commands inside it, and cleaning up.
#
# The sourcing script sets `root` (the checkout) before sourcing; this file sets
# `cache`, `suite`, `mirror`, `base_packages`, `work` and `R` (the root being built).
# shellcheck shell=bash

cache="${TABLE_TARGET_CACHE:-/var/cache/game-table}"
suite=bookworm
mirror="${TABLE_TARGET_MIRROR:-http://deb.debian.org/debian}"
# What Raspberry Pi OS Lite has before anyone installs anything (it is Debian 12 based).
base_packages="python3,systemd,systemd-sysv,udev,ca-certificates,sudo,util-linux,passwd"
work="$(mktemp -d /tmp/table-target.XXXXXX)"
R="$work/root"
started=$(date +%s)
# Prefix of every log line ("target", "image", ...); the sourcing script may change it.
log_name="${log_name:-target}"

say() { echo "$log_name: $*"; }
fail() { say "$step ... FAILED: $*"; exit 1; }

step_start=0
step=""
begin() { step="$1"; step_start=$(date +%s); }
ok() { say "$step ... ok ($(( $(date +%s) - step_start )) s)${1:+: $1}"; }

unmount_root() {
  for m in proc/cpuinfo proc sys dev/pts dev root/.cache/pip; do
    mountpoint -q "$R/$m" 2>/dev/null && umount -l "$R/$m" || true
  done
}

cleanup() {
  unmount_root
  # Never delete through a mount that is still there (the host's /dev, the pip cache).
  for m in proc sys dev root/.cache/pip; do
    if mountpoint -q "$R/$m" 2>/dev/null; then
      echo "$log_name: $R/$m is still mounted; leaving $work in place" >&2
      return
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT

# Run a command inside the root with a clean environment (nothing of the host leaks in).
in_root() {
  chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    DEBIAN_FRONTEND=noninteractive "$@"
}
run_table() {
  # runuser from util-linux: the same user switch systemd's User= does, without a login.
  in_root /usr/sbin/runuser -u table -- /usr/bin/env -i PATH=/usr/bin:/bin HOME=/var/lib/table \
    LANG=C.UTF-8 SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy /bin/sh -c "cd / && $*"
}

# The Debian packages of a list file in packaging/ (comments and blank lines left out).
package_list() { grep -v '^\s*#' "$root/packaging/$1" | grep -v '^\s*$'; }

need_root() {
  [ "$(id -u)" = 0 ] || { step="start"; fail "$1 needs root (debootstrap and chroot)"; }
}

# host_tools PACKAGE...: install what is missing, and make arm64 programs runnable.
host_tools() {
  begin "host tools ($*, binfmt_misc)"
  local missing=() pkg
  for pkg in "$@"; do
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

# base_root_tarball: sets `base_tarball` (made with debootstrap unless cached) and
# `base_key`, the key the tarball is cached under.
base_root_tarball() {
  base_key="$(echo "$suite $base_packages" | sha256sum | cut -c1-12)"
  base_tarball="$cache/$suite-arm64-$base_key.tar.gz"
  mkdir -p "$cache"
  [ -s "$base_tarball" ] && return 0
  local tmp="$work/debootstrap-root"
  debootstrap --arch=arm64 --variant=minbase --include="$base_packages" "$suite" "$tmp" "$mirror" \
    >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log"; fail "debootstrap failed"; }
  tar -C "$tmp" -czf "$base_tarball.part" . && mv "$base_tarball.part" "$base_tarball"
  rm -rf "$tmp"
  base_made=1
}

# enter_root: mount what programs inside need, the pip cache, DNS and the CA bundle.
enter_root() {
  mount -t proc proc "$R/proc"
  mount --bind /sys "$R/sys"
  mount --bind /dev "$R/dev"
  # pip's cache lives with the root's cache, so wheels built from source on arm64
  # (rpi_ws281x, the Pi 5 LED driver) are built once per machine, as on a real Pi.
  mkdir -p "$cache/pip" "$R/root/.cache/pip"
  mount --bind "$cache/pip" "$R/root/.cache/pip"
  cp /etc/resolv.conf "$R/etc/resolv.conf"
  # The host's CA bundle, so pip inside trusts what the host trusts.
  cp /etc/ssl/certs/ca-certificates.crt "$R/etc/ssl/certs/ca-certificates.crt"
  [ "$(in_root uname -m)" = aarch64 ] || { step="arm64 emulation"; fail "programs in the root do not run as aarch64"; }
}

# install_wheel_and_table: the docs' recipe from the venv on (the Debian packages are in).
install_wheel_and_table() {
  begin "venv with the system's packages, the wheel with its pi extra"
  cp "$wheel" "$R/tmp/"
  in_root python3 -m venv --system-site-packages /opt/table/venv >"$work/pip.log" 2>&1 \
    && in_root /opt/table/venv/bin/pip install -q "/tmp/$(basename "$wheel")[pi]" >>"$work/pip.log" 2>&1 \
    || { tail -30 "$work/pip.log"; fail "pip could not install the wheel with its pi extra"; }
  rm -f "$R/tmp/$(basename "$wheel")"
  ok

  begin "table install"
  in_root /bin/sh -c "cd / && /opt/table/venv/bin/table install" >"$work/install.log" 2>&1 \
    || { cat "$work/install.log"; fail "table install failed"; }
  sed 's/^/    /' "$work/install.log"
  in_root id table >/dev/null || fail "table install made no table user"
  [ -f "$R/etc/table/umtata/board.toml" ] || fail "table install did not copy the defaults to /etc/table"
  [ -L "$R/etc/systemd/system/multi-user.target.wants/table.service" ] || fail "table.service is not enabled"
  ok
}
