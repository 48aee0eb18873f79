#!/usr/bin/env python3
"""Writes impossible-values.vxm (see README.md): a format version 2 map file with valid
checksums whose clearance and touch_time layers hold values those layers cannot hold."""
import math
import struct
import zlib

N = 4 ** 3  # region size 4


def region(key, bad_clearance, nan_touch):
    occupancy = [math.inf] * N
    touch = [0.0] * N
    clearance = [-1.0] * N
    for i in range(11):
        occupancy[i] = 3.0 if i == 10 else -1.0
        touch[i] = 100.0 + i
        clearance[i] = 0.0 if i == 10 else 0.5
    for i in bad_clearance:
        clearance[i] = -3.0
    for i in nan_touch:
        touch[i] = math.nan
    payload = struct.pack('<%df' % N, *occupancy) + struct.pack('<%dd' % N, *touch) + struct.pack('<%df' % N, *clearance)
    packed = zlib.compress(payload, 6)
    head = struct.pack('<3iII', *key, len(payload), len(packed))
    return head + struct.pack('<I', zlib.crc32(head + payload)) + packed


header = b'VOXENMAP' + struct.pack('<Idi5fIdQ', 2, 0.5, 4, 0.9, 0.45, 0.5, -2.0, 3.511, 3, 0.0, 2)
header += struct.pack('<I', zlib.crc32(header))
table = b''
for name, size, element, version in (('occupancy', 4, 4, 1), ('touch_time', 8, 8, 2), ('clearance', 4, 4, 1)):
    table += name.encode().ljust(32, b'\0') + struct.pack('<3I', size, element, version)
table += struct.pack('<I', zlib.crc32(table))
blocks = region((0, 0, 0), [5, 6], []) + region((1, 0, 0), [7], [4])
with open('impossible-values.vxm', 'wb') as out:
    out.write(header + table + blocks)
