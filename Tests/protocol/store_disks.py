"""Small real file systems for the store-fault tests and bench (root only): a tmpfs to fill,
and a loop-mounted ext4 image that can be unmounted, made read-only and mounted again."""
import contextlib
import os
import subprocess
from pathlib import Path


def run(*command, check=True):
    return subprocess.run(command, check=check, capture_output=True, text=True)


@contextlib.contextmanager
def tmpfs(directory, megabytes):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    run("mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs", str(directory))
    try:
        yield directory
    finally:
        run("umount", "-l", str(directory), check=False)


class LoopDisk:
    """An ext4 image on its own loop device, mounted at `directory`. Mounting the same
    device again after a lazy unmount gives the same file system back, as a disk plugged in
    again does."""

    def __init__(self, image, directory, options="errors=remount-ro"):
        self.image, self.directory, self.options = Path(image), Path(directory), options
        run("truncate", "-s", "64M", str(self.image))
        run("mkfs.ext4", "-q", "-F", str(self.image))
        self.device = run("losetup", "-f", "--show", str(self.image)).stdout.strip()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.mount()

    def mount(self):
        run("mount", "-o", self.options, self.device, str(self.directory))

    def unmount_lazily(self):
        """What pulling the disk looks like at the path: the mount point is left, empty, on the root file system."""
        run("umount", "-l", str(self.directory))

    def is_mounted(self):
        return os.path.ismount(self.directory)

    def cleanup(self):
        while self.is_mounted():
            if run("umount", "-l", str(self.directory), check=False).returncode != 0:
                break
        run("losetup", "-d", self.device, check=False)


@contextlib.contextmanager
def loop_disk(image, directory, **kwargs):
    disk = LoopDisk(image, directory, **kwargs)
    try:
        yield disk
    finally:
        disk.cleanup()


def fill(directory, name="filler"):
    """Takes every free byte, as another program writing until ENOSPC would."""
    target = Path(directory) / name
    run("dd", "if=/dev/zero", f"of={target}", "bs=1M", check=False)
    return target


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise KeyError(name)
