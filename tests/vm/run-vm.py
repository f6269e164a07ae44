#!/usr/bin/env python3
"""run-vm: runs the uinput checks in a small VM with a stock Debian kernel.

Usage: run-vm.py GUEST [P99_MS]

GUEST is the statically linked check program (vm-pad-uinput).  The VM is
qemu-system-x86_64 in software emulation, its clock counting instructions
(-icount) so that load on this host does not make the guest late: the kernel
from the host's
linux-image package (/boot/vmlinuz-VERSION), its evdev and uinput modules
(with what they depend on, per modules.dep; .ko, .ko.xz, .ko.gz or .ko.zst)
and busybox-static make an initramfs whose /init loads the modules and runs
GUEST.  The exit code is GUEST's.

Where there is no qemu but /dev/uinput is usable here, GUEST runs on this
host instead.  Where there is neither, the test is skipped (exit 77).  A
kernel image or modules that cannot be found while qemu is there is a
failure that names the package to install.

RXDECK_VM_KERNEL=/path/to/vmlinuz and RXDECK_VM_MODULES=/lib/modules/VERSION
choose another kernel.
"""
import glob
import gzip
import io
import lzma
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time

SKIP = 77
MODULES = ["evdev", "uinput"]
RESULT = re.compile(rb"RXDECK-VM-RESULT (\d+)")


def say(msg):
    print("run-vm: " + msg, flush=True)


def fail(msg):
    say(msg)
    sys.exit(1)


def uinput_usable():
    return os.path.exists("/dev/uinput") and os.access("/dev/uinput", os.W_OK)


def find_kernel():
    """(vmlinuz, modules folder), or raises LookupError saying what is missing."""
    kernel = os.environ.get("RXDECK_VM_KERNEL")
    modules = os.environ.get("RXDECK_VM_MODULES")
    if kernel:
        if not modules:
            ver = os.path.basename(kernel).replace("vmlinuz-", "")
            modules = "/lib/modules/" + ver
        return kernel, modules
    candidates = []
    for k in glob.glob("/boot/vmlinuz-*"):
        ver = os.path.basename(k)[len("vmlinuz-"):]
        if os.path.exists(os.path.join("/lib/modules", ver, "modules.dep")):
            candidates.append((os.path.getmtime(k), k, os.path.join("/lib/modules", ver)))
    if not candidates:
        raise LookupError("no kernel image with its modules under /boot and /lib/modules "
                          "(install linux-image-amd64)")
    candidates.sort()
    return candidates[-1][1], candidates[-1][2]


def module_files(moddir, names):
    """The module files for names and what they depend on, dependencies first."""
    deps = {}
    with open(os.path.join(moddir, "modules.dep")) as f:
        for line in f:
            path, _, rest = line.partition(":")
            deps[path.strip()] = rest.split()

    def base(p):
        b = os.path.basename(p)
        return re.sub(r"\.ko(\.(xz|gz|zst))?$", "", b)

    by_name = {base(p): p for p in deps}
    order = []

    def visit(path, seen):
        if path in order:
            return
        if path in seen:
            raise LookupError("module dependency cycle at " + path)
        seen.add(path)
        for d in deps.get(path, []):
            visit(d, seen)
        order.append(path)

    for n in names:
        if n not in by_name:
            raise LookupError("module '%s' is not in %s/modules.dep (is it built in, or is "
                              "the kernel package incomplete?)" % (n, moddir))
        visit(by_name[n], set())
    return [os.path.join(moddir, p) for p in order]


def module_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".xz"):
        return lzma.decompress(data)
    if path.endswith(".gz"):
        return gzip.decompress(data)
    if path.endswith(".zst"):
        zstd = shutil.which("zstd")
        if not zstd:
            raise LookupError("%s is zstd-compressed and zstd is not installed" % path)
        return subprocess.run([zstd, "-dc", path], check=True, capture_output=True).stdout
    return data


def is_static(path):
    """True when the ELF file has no program interpreter."""
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            return False
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, = struct.unpack("<I", f.read(4))
            if p_type == 3:  # PT_INTERP
                return False
    return True


def find_busybox():
    for p in [shutil.which("busybox"), "/bin/busybox", "/usr/bin/busybox"]:
        if p and os.path.exists(p) and is_static(p):
            return p
    raise LookupError("no statically linked busybox (install busybox-static)")


class Cpio:
    """A newc cpio archive, built in memory (device nodes need no root)."""

    def __init__(self):
        self.out = io.BytesIO()
        self.ino = 1

    def _pad(self):
        self.out.write(b"\0" * (-self.out.tell() % 4))

    def add(self, name, mode, data=b"", rdev=(0, 0)):
        name_b = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 1, int(time.time()), len(data), 0, 0,
                  rdev[0], rdev[1], len(name_b), 0]
        self.ino += 1
        self.out.write(b"070701" + b"".join(b"%08X" % v for v in fields))
        self.out.write(name_b)
        self._pad()
        self.out.write(data)
        self._pad()

    def finish(self):
        self.add("TRAILER!!!", 0)
        return self.out.getvalue()


def initramfs(guest, args, busybox, modules):
    init = ["#!/bin/busybox sh",
            "/bin/busybox --install -s /bin",
            "export PATH=/bin",
            "mount -t proc proc /proc",
            "mount -t sysfs sysfs /sys",
            "mount -t devtmpfs devtmpfs /dev"]
    for m in modules:
        name = os.path.basename(m)
        init.append("insmod /lib/modules/%s || echo 'RXDECK-VM: insmod %s failed'" % (name, name))
    init += ["echo RXDECK-VM-START",
             "/test " + " ".join(args),
             "echo \"RXDECK-VM-RESULT $?\"",
             "poweroff -f"]
    c = Cpio()
    for d in ["bin", "dev", "proc", "sys", "tmp", "lib", "lib/modules"]:
        c.add(d, stat.S_IFDIR | 0o755)
    c.add("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
    c.add("init", stat.S_IFREG | 0o755, ("\n".join(init) + "\n").encode())
    with open(busybox, "rb") as f:
        c.add("bin/busybox", stat.S_IFREG | 0o755, f.read())
    with open(guest, "rb") as f:
        c.add("test", stat.S_IFREG | 0o755, f.read())
    for m in modules:
        name = re.sub(r"\.(xz|gz|zst)$", "", os.path.basename(m))
        c.add("lib/modules/" + name, stat.S_IFREG | 0o644, module_bytes(m))
    return c.finish(), [re.sub(r"\.(xz|gz|zst)$", "", os.path.basename(m)) for m in modules]


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    guest = sys.argv[1]
    args = sys.argv[2:]
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        if uinput_usable():
            say("no qemu-system-x86_64; running the checks on this host's /dev/uinput")
            return subprocess.run([guest] + args).returncode
        say("skip: neither qemu-system-x86_64 nor a usable /dev/uinput here "
            "(install qemu-system-x86 busybox-static linux-image-amd64)")
        return SKIP
    if not is_static(guest):
        fail("'%s' is not linked statically" % guest)
    try:
        kernel, moddir = find_kernel()
        busybox = find_busybox()
        modules = module_files(moddir, MODULES)
        image, names = initramfs(guest, args, busybox, modules)
    except (LookupError, OSError, subprocess.CalledProcessError) as e:
        fail(str(e))
    if not os.access(kernel, os.R_OK):
        fail("cannot read the kernel image '%s' (it may be readable by root only)" % kernel)

    with tempfile.TemporaryDirectory(prefix="rxdeck-vm-") as tmp:
        img = os.path.join(tmp, "initramfs.cpio")
        with open(img, "wb") as f:
            f.write(image)
        # -icount: the guest's clock counts instructions (1 ns each) and
        # skips over idle time, so a busy host slows the VM down but does
        # not make the guest's timers late; the checks then see the
        # schedule as the guest kernel keeps it, whatever else runs here
        cmd = [qemu, "-M", "pc", "-m", "256", "-smp", "1", "-accel", "tcg",
               "-icount", "shift=0,sleep=off",
               "-nodefaults", "-display", "none", "-serial", "stdio", "-no-reboot",
               "-kernel", kernel, "-initrd", img,
               "-append", "console=ttyS0 panic=-1 quiet loglevel=3 rdinit=/init"]
        say("booting %s with %s in qemu (software emulation, instruction-counted clock)"
            % (kernel, " ".join(names)))
        start = time.monotonic()
        try:
            out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 timeout=240).stdout
        except subprocess.TimeoutExpired as e:
            sys.stdout.write((e.stdout or b"").decode(errors="replace"))
            fail("the VM did not finish within 240 s")
        took = time.monotonic() - start
    text = out.decode(errors="replace")
    guest_part = text.split("RXDECK-VM-START", 1)
    sys.stdout.write(guest_part[1] if len(guest_part) > 1 else text)
    m = RESULT.search(out)
    if not m:
        fail("the VM ended without a result (%.1f s); its console is above" % took)
    rc = int(m.group(1))
    say("the VM ran for %.1f s; the checks exited %d" % (took, rc))
    if rc == SKIP:
        fail("the VM's kernel has no usable uinput; the modules did not load")
    return rc


if __name__ == "__main__":
    sys.exit(main())
