"""Writes and checks the .npy files of the TTRANS lit tests without numpy (docs/isa.md §19).

  ttrans_npy.py make PATH ROWS COLS   a uint32 ROWSxCOLS array: element [r][c] is the FP32 bit
                                      pattern 0x40000000 + r*COLS + c, except a quiet NaN with a
                                      payload at [0][1], -0 at [1][0] and a signalling NaN at the
                                      last element
  ttrans_npy.py check IN OUT          OUT is IN transposed, bit for bit (any 4-byte dtype)
"""
import struct
import sys


def read(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    major = data[6]
    hlen_size = 2 if major == 1 else 4
    (hlen,) = struct.unpack("<H" if hlen_size == 2 else "<I", data[8 : 8 + hlen_size])
    header = eval(data[8 + hlen_size : 8 + hlen_size + hlen].decode("latin1"))
    assert header["descr"][0] in "<|" and header["descr"][2:] == "4", header
    assert not header["fortran_order"], header
    rows, cols = header["shape"]
    body = data[8 + hlen_size + hlen :]
    assert len(body) == rows * cols * 4, (path, len(body))
    flat = struct.unpack("<%dI" % (rows * cols), body)
    return [list(flat[r * cols : (r + 1) * cols]) for r in range(rows)]


def write(path, rows):
    shape = "(%d, %d)" % (len(rows), len(rows[0]))
    header = "{'descr': '<u4', 'fortran_order': False, 'shape': %s, }" % shape
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(b"".join(struct.pack("<I", v) for row in rows for v in row))


if sys.argv[1] == "make":
    path, rows, cols = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    x = [[0x40000000 + r * cols + c for c in range(cols)] for r in range(rows)]
    x[0][1] = 0x7FC00001
    x[1][0] = 0x80000000
    x[rows - 1][cols - 1] = 0x7F800001
    write(path, x)
elif sys.argv[1] == "check":
    x, y = read(sys.argv[2]), read(sys.argv[3])
    rows, cols = len(x), len(x[0])
    assert (len(y), len(y[0])) == (cols, rows), ((rows, cols), (len(y), len(y[0])))
    for r in range(rows):
        for c in range(cols):
            assert y[c][r] == x[r][c], "out[%d][%d] = %#x, in[%d][%d] = %#x" % (c, r, y[c][r], r, c, x[r][c])
    print("transpose of %dx%d: bit for bit" % (rows, cols))
else:
    sys.exit(__doc__)
