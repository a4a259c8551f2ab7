"""The local backend's seccomp filter: the syscalls Docker's default profile also refuses.

bubblewrap loads a compiled classic-BPF program (``--seccomp FD``) and applies it to the
command and everything it starts. The program is assembled here, a few dozen instructions,
rather than through libseccomp: the Python bindings of libseccomp come only with the
system interpreter, not as a wheel, and the filter is a short blocklist that reads top to
bottom.

Refused with ``EPERM``: reaching into other processes (``ptrace``,
``process_vm_readv``/``writev``, ``pidfd_getfd``, ``kcmp``: with them a command took the
launcher's pipes from bubblewrap's pid 1), new namespaces (``unshare``, ``setns``, and
``clone`` with any ``CLONE_NEW*`` flag), and kernel surfaces a command never needs (keys,
BPF, perf, userfaultfd, io_uring, mounts, modules, handles). ``clone3`` gets ``ENOSYS``, as
in Docker's profile, so that the C library falls back to ``clone``, whose flags the filter
can read. A 32-bit (x32 or i386) syscall is refused outright: its numbers differ.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

# Syscall numbers: linux/arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h.
_X86_64 = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "pidfd_getfd": 438,
    "kcmp": 312,
    "unshare": 272,
    "setns": 308,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "fsopen": 430,
    "fsmount": 432,
    "open_tree": 428,
    "move_mount": 429,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_by_handle_at": 304,
    "name_to_handle_at": 303,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "acct": 163,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "syslog": 103,
    "iopl": 172,
    "ioperm": 173,
    "quotactl": 179,
    "lookup_dcookie": 212,
    "vhangup": 153,
}
_AARCH64 = {
    "ptrace": 117,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "pidfd_getfd": 438,
    "kcmp": 272,
    "unshare": 97,
    "setns": 268,
    "mount": 40,
    "umount2": 39,
    "pivot_root": 41,
    "fsopen": 430,
    "fsmount": 432,
    "open_tree": 428,
    "move_mount": 429,
    "keyctl": 219,
    "add_key": 217,
    "request_key": 218,
    "bpf": 280,
    "perf_event_open": 241,
    "userfaultfd": 282,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_by_handle_at": 265,
    "name_to_handle_at": 264,
    "init_module": 105,
    "finit_module": 273,
    "delete_module": 106,
    "kexec_load": 104,
    "kexec_file_load": 294,
    "acct": 89,
    "swapon": 224,
    "swapoff": 225,
    "reboot": 142,
    "syslog": 116,
    "quotactl": 60,
    "lookup_dcookie": 18,
    "vhangup": 58,
}
# machine -> (AUDIT_ARCH_*, syscall table, clone, clone3)
_ARCHES = {
    "x86_64": (0xC000003E, _X86_64, 56, 435),
    "aarch64": (0xC00000B7, _AARCH64, 220, 435),
}
_X32_BIT = 0x40000000  # x86-64's x32 ABI numbers have this bit set
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME
_CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080

# Classic BPF (linux/filter.h, linux/seccomp.h)
_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _ERRNO, _KILL = 0x7FFF0000, 0x00050000, 0x80000000
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NR, _ARCH, _ARG0_LOW = 0, 4, 16


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine's architecture, or None where it has no syscall table here."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, table, clone, clone3 = arch
    blocked = sorted(set(table.values()))
    eperm, enosys = _ERRNO | errno.EPERM, _ERRNO | errno.ENOSYS
    code = [
        _insn(_LD_W_ABS, _ARCH),
        _insn(_JEQ, audit_arch, jt=1),
        _insn(_RET, _KILL),  # another ABI (i386 on x86-64): its numbers mean other calls
        _insn(_LD_W_ABS, _NR),
    ]
    if audit_arch == _ARCHES["x86_64"][0]:
        code += [_insn(_JGE, _X32_BIT, jf=1), _insn(_RET, eperm)]
    # Then: each listed call jumps to EPERM; clone3 to ENOSYS; clone to the check of its flags.
    base = len(code)
    enosys_at = base + len(blocked) + 3
    flags_at, eperm_at = enosys_at + 1, enosys_at + 4

    def to(target: int, at: int) -> int:  # a jump's offset counts from the next instruction
        return target - at - 1

    for nr in blocked:
        code.append(_insn(_JEQ, nr, jt=to(eperm_at, len(code))))
    code.append(_insn(_JEQ, clone3, jt=to(enosys_at, len(code))))
    code.append(_insn(_JEQ, clone, jt=to(flags_at, len(code))))
    code.append(_insn(_RET, _ALLOW))
    assert len(code) == enosys_at
    code.append(_insn(_RET, enosys))
    code.append(_insn(_LD_W_ABS, _ARG0_LOW))
    code.append(_insn(_JSET, _CLONE_NEW, jt=to(eperm_at, len(code))))
    code.append(_insn(_RET, _ALLOW))
    assert len(code) == eperm_at
    code.append(_insn(_RET, eperm))
    return b"".join(code)


def memfd() -> int | None:
    """A sealed in-memory file holding the filter (bubblewrap reads it from an fd), or None."""
    prog = program()
    if prog is None or not hasattr(os, "memfd_create"):
        return None
    fd = os.memfd_create("codegym-seccomp", os.MFD_CLOEXEC)
    os.write(fd, prog)
    return fd
