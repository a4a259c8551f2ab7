"""The local sandbox's work dir: copy-on-write layers, so snapshots and forks are cheap.

As root (the normal case on our machines and in CI) the work dir is an overlay mount:
read-only *layers* below, and a writable upper dir on a size-limited tmpfs above (the
tmpfs is the disk quota). A snapshot freezes the upper dir into a new layer, so it costs
what changed since the last snapshot, not the size of the tree; a restore or a fork mounts
a new overlay on the same layers. Layers are shared between snapshots and forks and
deleted when the last one that uses them is gone.

Without root, overlay and tmpfs mounts are not allowed: :class:`CopyWorkspace` keeps the
same interface with full copies (``cp --reflink=auto``, so copy-on-write where the file
system has it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import re
import subprocess
import tempfile
import uuid
import weakref
from pathlib import Path

from codegym.errors import SandboxError, SandboxSetupError

from .paths import remove_path

# Not "/tmp/codegym": a folder of that name would shadow the package for scripts run from /tmp.
# Root's folder, or one per user: a folder another user made is not ours to write in.
_DEFAULT_ROOT = "/tmp/codegym-sandbox" if os.geteuid() == 0 else f"/tmp/codegym-sandbox-{os.geteuid()}"
ROOT = Path(os.environ.get("CODEGYM_TMP", _DEFAULT_ROOT))
#: overlayfs takes the lower dirs in one mount option of at most a page; squash before it fills.
MAX_LAYERS = 40

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
MNT_DETACH = 2
MS_BIND, MS_SHARED = 4096, 1 << 20


def _mount(source: str, target: Path, fstype: str, options: str, flags: int = 0) -> None:
    if _libc.mount(source.encode(), str(target).encode(), fstype.encode(), flags, options.encode()) != 0:
        err = ctypes.get_errno()
        raise SandboxSetupError(f"mount {fstype} on {target} failed: {os.strerror(err)} ({options[:200]})")


def _umount(target: Path) -> None:
    if _libc.umount2(str(target).encode(), MNT_DETACH) != 0 and ctypes.get_errno() not in (22, 2):
        raise SandboxError(f"umount {target} failed: {os.strerror(ctypes.get_errno())}")


def _copy_tree(src: Path, dst: Path) -> None:
    """``cp -a`` keeps what overlay needs: whiteout devices, opaque xattrs, owners, links."""
    dst.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", "--reflink=auto", f"{src}/.", str(dst)], check=True, capture_output=True)


class Layer:
    """A read-only folder of files; deleted when no snapshot or work dir uses it any more."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._finalizer = weakref.finalize(self, remove_path, str(path))

    @classmethod
    def from_tree(cls, src: Path | None, uid: int | None) -> Layer:
        """A new layer holding a copy of ``src`` (empty when None), owned by ``uid``."""
        layer = cls(_new_dir("L"))
        if src is not None:
            _copy_tree(src, layer.path)
        if uid is not None:
            for dirpath, dirnames, filenames in os.walk(layer.path):
                for name in (*dirnames, *filenames):
                    os.lchown(os.path.join(dirpath, name), uid, uid)
            os.chown(layer.path, uid, uid)
        return layer


_base_layers: dict[tuple[object, ...], Layer] = {}


def base_layer(src: str | Path | None, uid: int | None) -> Layer:
    """The layer a work dir starts from, cached per source folder and its files' stat data."""
    key: tuple[object, ...] = (None, uid) if src is None else (str(src), uid, _tree_signature(Path(src)))
    if key not in _base_layers:
        _base_layers[key] = Layer.from_tree(None if src is None else Path(src), uid)
    return _base_layers[key]


def _tree_signature(root: Path) -> int:
    if not root.is_dir():
        raise SandboxError(f"workdir_from={str(root)!r} is not a folder")
    entries = []
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            st = os.lstat(os.path.join(dirpath, name))
            entries.append((dirpath, name, st.st_size, st.st_mtime_ns, st.st_mode))
    return hash(tuple(sorted(entries)))


class OverlayWorkspace:
    """An overlay mount of shared layers plus a private upper dir on a tmpfs (root only).

    Args:
        layers: the read-only layers, lowest first.
        disk_bytes: size of the tmpfs under the upper dir (the disk quota).
        uid: owner of the upper dir.
        shared: make the mount point a shared mount of its own first, so that a container
            that bind-mounts it (with ``rslave`` propagation) sees every later overlay mounted
            there: a restore then needs no new container.
        mount: mount the overlay now (False: the caller calls :meth:`reset_to` later, e.g.
            after a container has bound the still empty, shared mount point).

    """

    def __init__(
        self, layers: tuple[Layer, ...], disk_bytes: int, uid: int, *, shared: bool = False, mount: bool = True
    ) -> None:
        self.layers = layers
        self.disk_bytes, self.uid = disk_bytes, uid
        self.dir = _new_dir("W")
        self.rw, self.merged = self.dir / "rw", self.dir / "merged"
        self.rw.mkdir()
        self.merged.mkdir()
        self.shared = shared
        if shared:
            _mount(str(self.merged), self.merged, "", "", MS_BIND)
            _mount("none", self.merged, "", "", MS_SHARED)
        self._mounted = False
        if mount:
            self._mount()

    @property
    def path(self) -> Path:
        """The host folder that commands see as the work dir."""
        return self.merged

    def _mount(self) -> None:
        _mount("tmpfs", self.rw, "tmpfs", f"size={self.disk_bytes},mode=0700")
        upper, work = self.rw / "upper", self.rw / "work"
        upper.mkdir()
        work.mkdir()
        os.chown(upper, self.uid, self.uid)
        lower = ":".join(str(layer.path) for layer in reversed(self.layers))
        _mount("overlay", self.merged, "overlay", f"lowerdir={lower},upperdir={upper},workdir={work}")
        self._mounted = True

    def _unmount(self) -> None:
        if self._mounted:
            _umount(self.merged)
            _umount(self.rw)
            self._mounted = False

    def freeze(self) -> tuple[Layer, ...]:
        """The layers of the work dir as it is now; the changes so far become a new layer."""
        upper = self.rw / "upper"
        if not any(upper.iterdir()):
            return self.layers
        if len(self.layers) >= MAX_LAYERS:
            squashed = Layer(_new_dir("L"))
            _copy_tree(self.merged, squashed.path)
            os.chown(squashed.path, self.uid, self.uid)
            self.reset_to((squashed,))
            return self.layers
        layer = Layer(_new_dir("L"))
        _copy_tree(upper, layer.path)
        os.chown(layer.path, self.uid, self.uid)
        self.reset_to((*self.layers, layer))
        return self.layers

    def reset_to(self, layers: tuple[Layer, ...]) -> None:
        """Make the work dir exactly ``layers``, dropping changes not frozen."""
        self._unmount()
        self.layers = layers
        self._mount()

    def close(self) -> None:
        """Unmount and delete the private part; shared layers live on while used."""
        self._unmount()
        if self.shared:
            _umount(self.merged)
        remove_path(self.dir)


class CopyWorkspace:
    """The same interface without mount rights: a plain folder, snapshots are full copies."""

    def __init__(self, layers: tuple[Layer, ...], disk_bytes: int, uid: int | None) -> None:
        self.disk_bytes = disk_bytes
        self.dir = _new_dir("W")
        self.layers: tuple[Layer, ...] = ()
        self.reset_to(layers)

    @property
    def path(self) -> Path:
        """The host folder that commands see as the work dir."""
        return self.dir / "work"

    def freeze(self) -> tuple[Layer, ...]:
        """A full copy of the work dir as one layer."""
        self.layers = (Layer.from_tree(self.path, None),)
        return self.layers

    def reset_to(self, layers: tuple[Layer, ...]) -> None:
        """Replace the work dir by a copy of ``layers`` (each a full tree here: the last wins).

        The folder itself stays (it may be bind-mounted into a container): only its
        contents are replaced.
        """
        self.path.mkdir(exist_ok=True)
        for child in self.path.iterdir():
            remove_path(child)
        if layers:
            _copy_tree(layers[-1].path, self.path)
        self.layers = layers

    def close(self) -> None:
        """Delete the work dir."""
        remove_path(self.dir)


@functools.cache
def can_mount() -> bool:
    """True where overlay and tmpfs mounts are allowed (root with CAP_SYS_ADMIN)."""
    if os.geteuid() != 0:
        return False
    probe = _new_dir("P")
    try:
        _mount("tmpfs", probe, "tmpfs", "size=4k")
        _umount(probe)
        return True
    except SandboxSetupError:
        return False
    finally:
        remove_path(probe)


def _new_dir(kind: str) -> Path:
    # One folder per owning process, so that stale ones of dead processes can be swept.
    base = ROOT / str(os.getpid())
    base.mkdir(parents=True, exist_ok=True, mode=0o711)
    os.chmod(ROOT, 0o711)
    path = Path(tempfile.mkdtemp(prefix=f"{kind}{uuid.uuid4().hex[:6]}", dir=base))
    os.chmod(path, 0o755)
    return path


def sweep_stale() -> int:
    """Unmount and delete work dirs left by processes that died without closing; the count.

    Never raises: it runs as every process's first sandbox starts, so one bad left-over
    (a tree too deep to walk, a mount that will not go) must not stop every later process.
    Mounts are found in the mount table, not with ``os.path.ismount``, which does not
    see a folder bind-mounted on itself (the docker backend's shared mount point).
    """
    try:
        owners = [o for o in ROOT.iterdir() if o.name.isdigit() and not Path(f"/proc/{o.name}").exists()]
    except OSError:
        return 0
    swept = 0
    for owner in owners:
        try:
            for _ in range(8):  # stacked mounts (an overlay on a shared bind) come off one per pass
                inside = [m for m in _mount_points() if m.startswith(f"{owner}/")]
                if not inside:
                    break
                for point in sorted(inside, key=len, reverse=True):
                    _libc.umount2(point.encode(), MNT_DETACH)
            remove_path(owner)
            swept += 1
        except Exception:  # noqa: BLE001 - see the docstring: sweeping is best effort
            continue
    return swept


def _mount_points() -> list[str]:
    """Every mount point of this mount namespace (``/proc/self/mountinfo``, octal escapes undone)."""
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        field = line.split(" ")[4]
        points.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field))
    return points
