#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_oat_code (tests/fuzz/fuzz_oat_code.c describes the format).
Hand-made mini OAT layouts, one per layout row: a class table, an all-compiled, a some-compiled
and a none-compiled class, and method headers + code in oatexec.  Run from the repo root."""
import os, struct

VERSIONS = [39, 45, 79, 124, 138, 156, 170, 183, 192, 195]
HEADER = {39: 24, 45: 28, 79: 20, 124: 24, 138: 24, 156: 12, 170: 8, 183: 8, 192: 4, 195: 4}
OUT = 'tests/fuzz/corpus/fuzz_oat_code'

def seed(sel, thumb):
    v = VERSIONS[sel]
    mo = 8 if v < 44 else 4
    hdr = HEADER[v]
    exec_rel = 0x200
    exe = bytearray()
    codes = []
    for size in (12, 20, 8):
        exe += b'\0' * ((-len(exe)) % 16)
        h = bytearray(hdr)
        struct.pack_into('<I', h, hdr - 4, size)
        exe += h
        codes.append(exec_rel + len(exe) + thumb)
        exe += bytes((0x90 + i) & 0xff for i in range(size))
    classes = bytearray()
    offs = []
    base = 4 + 4 * 3
    def add(rec):
        offs.append(base + len(classes))
        classes.extend(rec)
    def mofs(cs):
        return b''.join(struct.pack('<I', c) + (b'\0' * 4 if mo == 8 else b'') for c in cs)
    if v >= 194:
        add(struct.pack('<hHI', 10, 0, 2) + mofs(codes[:2]))
        add(struct.pack('<hHIII', 10, 1, 33, 0, 1) + mofs(codes[2:]))
    else:
        add(struct.pack('<hH', 10, 0) + mofs(codes[:2]))
        add(struct.pack('<hHII', 10, 1, 4, 5) + mofs(codes[1:3]))
    add(struct.pack('<hH', 8, 2))
    data = struct.pack('<I', 3) + b''.join(struct.pack('<I', o) for o in offs) + classes
    data += b'\0' * ((-len(data)) % 4)
    head = struct.pack('<BBHI', sel, thumb, len(data), exec_rel)
    return head + data + bytes(exe)

os.makedirs(OUT, exist_ok=True)
for sel in range(len(VERSIONS)):
    for thumb in (0, 1):
        with open(f'{OUT}/oat{VERSIONS[sel]:03d}_{"thumb" if thumb else "plain"}', 'wb') as f:
            f.write(seed(sel, thumb))
