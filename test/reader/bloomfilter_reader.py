"""
bloomfilter_reader.py - an independent reader of bloomfilter values.

Written from STORAGE.md alone, as a check that the document is enough to
read a filter without PostgreSQL: it parses and validates the 64-byte
header, hashes canonical bytes with XXH3-128, and answers membership for the
blocked and classic layouts.  It never writes filters.

Needs Python 3 and the xxhash module (Debian: python3-xxhash), which wraps
xxHash 0.8's XXH3_128bits_withSeed.

    import bloomfilter_reader as r
    f = r.Filter.from_bytes(data)         # the bytes of f::bytea
    f = r.Filter.from_hex(hex_string)     # encode(f::bytea, 'hex')
    f = r.Filter.from_text(base64_text)   # f::text
    f.contains(r.canonical_int(42))
    f.contains(r.canonical_text("hello"))
    f.contains_value(42)                  # the same, from a Python value

Run as a script to print a filter's header and the positions an element
maps to:
    python3 bloomfilter_reader.py FILTER_HEX [text:STR | int:N | hex:HEX | uuid:U] ...
"""

import base64
import binascii
import math
import struct
import sys
import uuid as uuid_module

import xxhash

MASK64 = (1 << 64) - 1

MAGIC = b"BLMF"
HEADER_SIZE = 64
FORMAT_VERSION = 1
HASH_XXH3_128 = 1
VARIANT_BLOCKED = 1
VARIANT_CLASSIC = 2
VARIANT_NAMES = {VARIANT_BLOCKED: "blocked", VARIANT_CLASSIC: "classic"}
# Variants STORAGE.md documents that this reader does not implement
# (counting, scalable, cuckoo): it rejects them as a reader must
OTHER_VARIANTS = (3, 4, 5)
MAX_HASHES = 64
# Largest bit count a valid header may declare (STORAGE.md, rule 8)
MAX_BITS = 8589934040
# Largest serialised filter: a PostgreSQL value less its 4-byte length word
MAX_VALUE_BYTES = 1073741819
BLOCK_BITS = 512
BLOCK_BYTES = 64
LCG_MUL = 6364136223846793005
LCG_ADD = 1442695040888963407


class FormatError(ValueError):
    """The bytes are not a valid filter; .rule names the rule broken."""

    def __init__(self, rule, message):
        super().__init__(message)
        self.rule = rule


# ---- canonical bytes (STORAGE.md, "Canonical bytes of elements") ----------

def canonical_int(value):
    """smallint, integer, bigint: 8-byte little-endian two's complement."""
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError("integer out of bigint range: %r" % (value,))
    return struct.pack("<q", value)


def canonical_text(value, encoding="utf-8"):
    """text, varchar: the bytes in the database encoding, no terminator."""
    return value.encode(encoding)


def canonical_bytea(value):
    """bytea: the raw bytes."""
    return bytes(value)


def canonical_uuid(value):
    """uuid: its 16 bytes, in the order of the text form."""
    if not isinstance(value, uuid_module.UUID):
        value = uuid_module.UUID(str(value))
    return value.bytes


# Containers (STORAGE.md section 6.2): built from the canonical bytes of
# their parts.  A part is NULL (None) or bytes; every count and length is an
# unsigned 32-bit little-endian word, and 0xffffffff stands for NULL.

NULL_PART = b"\xff\xff\xff\xff"
RANGE_EMPTY, RANGE_LB_INC, RANGE_UB_INC, RANGE_LB_INF, RANGE_UB_INF = 1, 2, 4, 8, 16


def _u32(n):
    return struct.pack("<I", n & 0xFFFFFFFF)


def canonical_part(part):
    """A part of a container: its length and bytes, or the NULL marker."""
    if part is None:
        return NULL_PART
    part = bytes(part)
    return _u32(len(part)) + part


def canonical_array(parts, dims=None, lower_bounds=None):
    """An array: ndim, (length, lower bound) per dimension, then each element
    (row-major order) as a part.  dims defaults to one dimension holding
    every part, lower_bounds to 1 each; an empty array has no dimensions."""
    parts = list(parts)
    if dims is None:
        dims = [len(parts)] if parts else []
    if lower_bounds is None:
        lower_bounds = [1] * len(dims)
    n = 1
    for d in dims:
        n *= d
    if (n if dims else 0) != len(parts):
        raise ValueError("dimensions %r do not hold %d elements" % (dims, len(parts)))
    out = _u32(len(dims))
    for d, lb in zip(dims, lower_bounds):
        out += _u32(d) + _u32(lb)
    return out + b"".join(canonical_part(p) for p in parts)


def canonical_record(columns):
    """A composite value or anonymous record: the number of (not dropped)
    columns, then each column as a part."""
    columns = list(columns)
    return _u32(len(columns)) + b"".join(canonical_part(c) for c in columns)


def canonical_range(lower=None, upper=None, lower_inc=True, upper_inc=False,
                    empty=False):
    """A range: a flags byte, then each finite bound as a part.  None for a
    bound means unbounded (infinite); an empty range is the flags byte 01.
    Pass bounds as the range type stores them (int4range '[1,5]' is stored
    as [1,6))."""
    if empty:
        return bytes([RANGE_EMPTY])
    flags = 0
    if lower is None:
        flags |= RANGE_LB_INF
    elif lower_inc:
        flags |= RANGE_LB_INC
    if upper is None:
        flags |= RANGE_UB_INF
    elif upper_inc:
        flags |= RANGE_UB_INC
    out = bytes([flags])
    if lower is not None:
        out += canonical_part(lower)
    if upper is not None:
        out += canonical_part(upper)
    return out


def canonical_multirange(ranges):
    """A multirange: the number of ranges, then each range's canonical bytes
    as a part."""
    ranges = list(ranges)
    return _u32(len(ranges)) + b"".join(canonical_part(r) for r in ranges)


def canonical(value, encoding="utf-8"):
    """Canonical bytes of a Python value standing for an SQL value."""
    if isinstance(value, bool):
        raise TypeError("boolean is hashed by its send form; pass bytes")
    if isinstance(value, int):
        return canonical_int(value)
    if isinstance(value, str):
        return canonical_text(value, encoding)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return canonical_bytea(value)
    if isinstance(value, uuid_module.UUID):
        return canonical_uuid(value)
    raise TypeError("no canonical encoding for %r; pass its bytes" % (value,))


# ---- hashing (STORAGE.md, "Hashing") --------------------------------------

def element_hash(data, seed):
    """Hash scheme 1: XXH3-128 of the canonical bytes; returns (lo, hi)."""
    h = xxhash.xxh3_128_intdigest(bytes(data), seed=seed & MASK64)
    return h & MASK64, h >> 64


def mulhi64(a, b):
    """High 64 bits of the 128-bit product of two unsigned 64-bit values."""
    return (a * b) >> 64


# ---- the filter ------------------------------------------------------------

class Filter:
    """A validated, read-only view of one serialised filter."""

    def __init__(self, data):
        data = bytes(data)
        self.data = data
        header = parse_header(data)
        self.__dict__.update(header)
        self.payload = data[HEADER_SIZE:]
        if self.variant == VARIANT_CLASSIC:
            # rule 13: padding bits past m are zero
            for i in range(self.bits, self.payload_bytes * 8):
                if self.payload[i >> 3] >> (i & 7) & 1:
                    raise FormatError(13, "padding bit %d is set" % i)

    @classmethod
    def from_bytes(cls, data):
        return cls(data)

    @classmethod
    def from_hex(cls, text):
        text = text.strip()
        if text.startswith("\\x"):
            text = text[2:]
        return cls(bytes.fromhex(text))

    @classmethod
    def from_text(cls, text):
        """The type's text form: standard base64 with padding."""
        try:
            data = base64.b64decode(text.strip(), validate=True)
        except binascii.Error as e:
            raise FormatError(0, "not base64: %s" % e)
        return cls(data)

    @property
    def variant_name(self):
        return VARIANT_NAMES[self.variant]

    @property
    def blocks(self):
        return self.bits // BLOCK_BITS

    def bit(self, i):
        return self.payload[i >> 3] >> (i & 7) & 1

    def positions(self, lo, hi):
        """The payload bit numbers an element with hash (lo, hi) maps to."""
        k = self.hashes
        if self.variant == VARIANT_BLOCKED:
            block = mulhi64(hi, self.blocks)
            x = lo
            out = []
            for _ in range(k):
                out.append(block * BLOCK_BITS + (x >> 55))
                x = (x * LCG_MUL + LCG_ADD) & MASK64
            return out
        m = self.bits
        x = mulhi64(lo, m)
        y = mulhi64(hi, m)
        out = [x]
        for i in range(1, k):
            x = (x + y) % m
            y = (y + i) % m
            out.append(x)
        return out

    def contains_hash(self, lo, hi):
        return all(self.bit(p) for p in self.positions(lo, hi))

    def contains(self, canonical_bytes):
        """Membership of an element given by its canonical bytes."""
        return self.contains_hash(*element_hash(canonical_bytes, self.seed))

    def contains_value(self, value, encoding="utf-8"):
        return self.contains(canonical(value, encoding))

    def bits_set(self):
        return sum(bin(b).count("1") for b in self.payload)

    def describe(self):
        return ("%s filter: %d bits, %d hashes, seed %d (0x%016x), %d items "
                "added, expected_items %d, target_fpr %r, %d payload bytes"
                % (self.variant_name, self.bits, self.hashes, self.seed,
                   self.seed, self.items, self.expected_items,
                   self.target_fpr, self.payload_bytes))


def _payload_bytes(variant, bits):
    if variant == VARIANT_BLOCKED:
        return bits // 8
    return (bits + 63) // 64 * 8


def parse_header(data):
    """Validates a serialised filter's header and length (rules 1-12).

    Returns the header fields as a dict.  The padding rule (13) needs the
    payload and is checked by Filter.
    """
    if len(data) < HEADER_SIZE:
        raise FormatError(1, "%d bytes: shorter than the 64-byte header"
                          % len(data))
    (magic, version, variant, scheme, flags, hashes, reserved, seed, bits,
     items, expected, target, payload) = struct.unpack_from(
        "<4sBBBBIIQQQQdQ", data, 0)
    if magic != MAGIC:
        raise FormatError(2, "bad magic %r" % magic)
    if version != FORMAT_VERSION:
        raise FormatError(3, "unknown format version %d" % version)
    if variant not in VARIANT_NAMES:
        raise FormatError(4, "unknown variant %d" % variant)
    if scheme != HASH_XXH3_128:
        raise FormatError(5, "unknown hash scheme %d" % scheme)
    if flags != 0 or reserved != 0:
        raise FormatError(6, "reserved fields not zero")
    if not 1 <= hashes <= MAX_HASHES:
        raise FormatError(7, "hashes %d outside 1..64" % hashes)
    if not 1 <= bits <= MAX_BITS:
        raise FormatError(8, "bits %d outside 1..%d" % (bits, MAX_BITS))
    if variant == VARIANT_BLOCKED and bits % BLOCK_BITS != 0:
        raise FormatError(8, "blocked bits %d not a multiple of 512" % bits)
    if payload != _payload_bytes(variant, bits):
        raise FormatError(9, "payload_bytes %d, expected %d"
                          % (payload, _payload_bytes(variant, bits)))
    if HEADER_SIZE + payload > MAX_VALUE_BYTES:
        raise FormatError("9a", "%d payload bytes pass the 1 GB limit" % payload)
    target_bytes = data[48:56]
    if target_bytes == bytes(8):
        if expected != 0:
            raise FormatError(10, "expected_items %d without a target_fpr"
                              % expected)
    elif not 0.0 < target < 1.0 or expected == 0:
        raise FormatError(10, "target_fpr %r is not a rate, or has no "
                          "expected_items" % target)
    total = HEADER_SIZE + payload
    if len(data) < total:
        raise FormatError(11, "%d bytes, header says %d" % (len(data), total))
    if len(data) > total:
        raise FormatError(12, "%d bytes, header says %d" % (len(data), total))
    return {
        "version": version, "variant": variant, "hash_scheme": scheme,
        "hashes": hashes, "seed": seed, "bits": bits, "items": items,
        "expected_items": expected, "target_fpr": target,
        "payload_bytes": payload, "total_bytes": total,
    }


# ---- sizing models (STORAGE.md, "Sizing") ---------------------------------

def classic_fpr(bits, items, hashes):
    if items <= 0:
        return 0.0
    return (-math.expm1(-hashes * items / bits)) ** hashes


def blocked_fpr(bits, items, hashes):
    """Poisson mixture over the block loads (Putze et al.)."""
    blocks = bits // BLOCK_BITS
    if items <= 0:
        return 0.0
    lam = items / blocks
    total = 0.0
    # sum far enough either side of the mean for double precision
    lo = max(0, int(lam - 40 * math.sqrt(lam) - 40))
    hi = int(lam + 40 * math.sqrt(lam) + 40)
    for i in range(lo, hi + 1):
        pmf = math.exp(i * math.log(lam) - lam - math.lgamma(i + 1))
        if i:
            total += pmf * (-math.expm1(i * hashes *
                                        math.log1p(-1 / BLOCK_BITS))) ** hashes
    return min(total, 1.0)


# ---- command line ----------------------------------------------------------

def _parse_element(arg):
    kind, _, rest = arg.partition(":")
    if kind == "text":
        return canonical_text(rest)
    if kind == "int":
        return canonical_int(int(rest))
    if kind == "hex":
        return bytes.fromhex(rest)
    if kind == "uuid":
        return canonical_uuid(rest)
    raise SystemExit("element must be text:STR, int:N, hex:HEX or uuid:U")


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    f = Filter.from_hex(argv[1])
    print(f.describe())
    for arg in argv[2:]:
        data = _parse_element(arg)
        lo, hi = element_hash(data, f.seed)
        pos = f.positions(lo, hi)
        print("%s: bytes %s  lo %016x  hi %016x" % (arg, data.hex(), lo, hi))
        if f.variant == VARIANT_BLOCKED:
            print("  block %d, bits in block %s"
                  % (pos[0] // BLOCK_BITS, [p % BLOCK_BITS for p in pos]))
        else:
            print("  positions %s" % pos)
        print("  contains: %s" % f.contains(data))


if __name__ == "__main__":
    main(sys.argv)
