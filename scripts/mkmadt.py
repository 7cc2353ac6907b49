#!/usr/bin/env python3
"""Write an ACPI MADT ("APIC" table) for the emulated machine.

Linux numbers CPUs in the order their entries appear in the MADT.  QEMU
lists them in its own vCPU index order, so the firmware's numbering of a
platform with numbering=linux in configs/platform/ (every core's first
thread, then the second threads, as on every EPYC 2P) needs a table of
our own, given to the kernel through its initrd table upgrade
(Documentation/admin-guide/acpi/initrd_table_override.rst).  The kernel
takes it in place of QEMU's only when signature, OEM ID and OEM table ID
match and the OEM revision is higher, so the header names QEMU's
"BOCHS "/"BXPC    " with revision 2 (QEMU writes 1).

The order and the APIC IDs come from the caller (scripts/lib.sh
platform_madt, where the platform's numbering and APIC ID rules are), so
this script holds no platform of its own.  Everything but the order is
what QEMU's q35 table holds: one local APIC
entry per vCPU (an x2APIC entry for APIC IDs of 255 and above), the I/O
APIC at 0xfec00000, the ISA overrides (IRQ 0 to GSI 2; IRQs 5, 9, 10 and
11 level, active high) and one NMI entry on LINT1 for all processors.
"""
import argparse
import struct
import sys

LAPIC_ADDRESS = 0xFEE00000
IOAPIC_ADDRESS = 0xFEC00000
PCAT_COMPAT = 1
ENABLED = 1
PCI_IRQS = (5, 9, 10, 11)
LEVEL_ACTIVE_HIGH = 0xD


def cpu_entry(uid, apic_id):
    if apic_id < 255:
        return struct.pack("<BBBBI", 0, 8, uid, apic_id, ENABLED)
    return struct.pack("<BBHIII", 9, 16, 0, apic_id, ENABLED, uid)


def madt(cpus):
    body = struct.pack("<II", LAPIC_ADDRESS, PCAT_COMPAT)
    for uid, apic_id in cpus:
        body += cpu_entry(uid, apic_id)
    body += struct.pack("<BBBBII", 1, 12, 0, 0, IOAPIC_ADDRESS, 0)
    body += struct.pack("<BBBBIH", 2, 10, 0, 0, 2, 0)
    for irq in PCI_IRQS:
        body += struct.pack("<BBBBIH", 2, 10, 0, irq, irq, LEVEL_ACTIVE_HIGH)
    if any(a >= 255 for _, a in cpus):
        body += struct.pack("<BBHIB3x", 0xA, 12, 0, 0xFFFFFFFF, 1)
    else:
        body += struct.pack("<BBBHB", 4, 6, 0xFF, 0, 1)
    length = 36 + len(body)
    head = struct.pack("<4sIBB6s8sI4sI", b"APIC", length, 1, 0, b"BOCHS ",
                       b"BXPC    ", 2, b"BXPC", 1)
    table = bytearray(head + body)
    table[9] = (-sum(table)) & 0xFF
    return bytes(table)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", required=True, help="the table file")
    ap.add_argument("cpus", nargs="+", metavar="UID:APICID",
                    help="processor UID (QEMU's vCPU index) and APIC ID, "
                         "in the order Linux is to number them")
    args = ap.parse_args()
    try:
        cpus = [tuple(int(v) for v in c.split(":")) for c in args.cpus]
    except ValueError:
        sys.exit("mkmadt.py: error: entries are UID:APICID, not "
                 + " ".join(args.cpus[:3]))
    if len({u for u, _ in cpus}) != len(cpus) or \
            len({a for _, a in cpus}) != len(cpus):
        sys.exit("mkmadt.py: error: a UID or APIC ID appears twice")
    with open(args.out, "wb") as f:
        f.write(madt(cpus))


if __name__ == "__main__":
    main()
