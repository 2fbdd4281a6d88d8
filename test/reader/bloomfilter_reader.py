"""
bloomfilter_reader.py - an independent reader of bloomfilter values.

Written from STORAGE.md alone, as a check that the document is enough to
read a filter without PostgreSQL: it parses and validates the 64-byte
header, hashes elements (canonical bytes with XXH3-128; under hash scheme 2
integer elements by two fmix64 finalisers of their value), and answers
membership for the blocked and classic layouts, of either hash scheme (1:
releases 1.0 and 1.1; 2: release 1.2 on).  It never writes filters.

Needs Python 3 and the xxhash module (Debian: python3-xxhash), which wraps
xxHash 0.8's XXH3_128bits_withSeed.

    import bloomfilter_reader as r
    f = r.Filter.from_bytes(data)         # the bytes of f::bytea
    f = r.Filter.from_hex(hex_string)     # encode(f::bytea, 'hex')
    f = r.Filter.from_text(text_form)     # f::text: base64, or '~' and the
                                          # base64 of the sparse form
    data = r.decode_text(text_form)       # its bytes, of any variant
    f.hash_scheme                         # 1 or 2
    f.contains(r.canonical_text("hello")) # an element by its canonical bytes
    f.contains_int(42)                    # an integer, by the filter's scheme
    f.contains_value(42)                  # the same, from a Python value
    f.contains_value(Decimal("2.50"))     # numeric, by the filter's scheme
    f.contains(r.canonical_interval(1, 0, 0))   # scheme 2's '1 mon'

f.contains(bytes) hashes the bytes by XXH3-128: right for every element of
a scheme-1 filter and every element of a scheme-2 filter but an integer (of
any width, or a numeric that is one), which scheme 2 hashes by
integer_hash; contains_int, contains_numeric and contains_value know that.

Run as a script to print a filter's header and the positions an element
maps to (int and num by the filter's scheme; the scheme-2 forms: num, float,
float4, interval, inet, jsonb):
    python3 bloomfilter_reader.py FILTER_HEX [text:STR | int:N | hex:HEX | uuid:U
        | num:DECIMAL | float:X | float4:X | interval:MONTHS,DAYS,MICROSECONDS
        | inet:ADDR[/BITS] | jsonb:JSON] ...
"""

import base64
import binascii
import decimal
import ipaddress
import json
import math
import struct
import sys
import uuid as uuid_module

import xxhash

MASK64 = (1 << 64) - 1

MAGIC = b"BLMF"
HEADER_SIZE = 64
FORMAT_VERSION = 1
# Hash schemes (header byte 6): both hash canonical bytes with XXH3-128
# seeded by the filter's seed and differ in the canonical bytes of some
# types; scheme 2 hashes integer elements by integer_hash instead
HASH_XXH3_128 = 1               # releases 1.0 and 1.1
HASH_EQUALITY = 2               # release 1.2 on: by each type's equality
HASH_SCHEMES = (HASH_XXH3_128, HASH_EQUALITY)
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


# ---- the text form (STORAGE.md, "The text form") ---------------------------

SPARSE_MARK = "~"
MAX_TOTAL = 1073741819          # rule 9a: the largest value
MAX_RICE = 32


def decode_text(text):
    """The bytes of a text form, of any variant: base64 of the bytes, or '~'
    and the base64 of the sparse form.  Only what decoding needs of the
    header is checked here (its length, and a total within 1 GB before
    anything is made that large); Filter() applies the rules of section 3."""
    text = text.strip(" \t\n\r\f")
    sparse = text.startswith(SPARSE_MARK)
    try:
        data = base64.b64decode(text[1:] if sparse else text, validate=True)
    except binascii.Error as e:
        raise FormatError(0, "not base64: %s" % e)
    return decode_sparse(data) if sparse else data


def decode_sparse(data):
    """The filter bytes of a sparse form: the 64-byte header as it is; r
    (u8); n (u64); then n Rice codes, each q zero bits, a one bit and r bits
    (lowest first) of the gap g = q * 2^r + remainder since the bit after
    the previous set bit (since bit 0 for the first), bits taken from bit 0
    of each byte up; nothing after the last code but zero bits to the end
    of its byte."""
    if len(data) < HEADER_SIZE:
        raise FormatError(1, "the sparse form is shorter than the header")
    payload_bytes = struct.unpack_from("<Q", data, 56)[0]
    if HEADER_SIZE + payload_bytes > MAX_TOTAL:
        raise FormatError("9a", "the header declares %d payload bytes" % payload_bytes)
    if len(data) < HEADER_SIZE + 9:
        raise FormatError("sparse", "the sparse form ends before r and n")
    r = data[HEADER_SIZE]
    n = struct.unpack_from("<Q", data, HEADER_SIZE + 1)[0]
    codes = data[HEADER_SIZE + 9:]
    m = payload_bytes * 8
    if r > MAX_RICE:
        raise FormatError("sparse", "Rice parameter %d" % r)
    if n > m or n * (r + 1) > len(codes) * 8:
        raise FormatError("sparse", "%d set bits do not fit" % n)
    stream = int.from_bytes(codes, "little")
    nbits = len(codes) * 8
    payload = bytearray(payload_bytes)
    pos = 0
    nxt = 0
    for _ in range(n):
        rest = stream >> pos
        if rest == 0:
            raise FormatError("sparse", "the codes end before the last gap")
        q = (rest & -rest).bit_length() - 1     # zero bits before the one
        pos += q + 1
        if pos + r > nbits:
            raise FormatError("sparse", "a remainder is cut short")
        g = (q << r) | (stream >> pos) & ((1 << r) - 1)
        pos += r
        p = nxt + g
        if p >= m:
            raise FormatError("sparse", "a gap passes the end of the payload")
        payload[p >> 3] |= 1 << (p & 7)
        nxt = p + 1
    if nbits - pos >= 8 or stream >> pos:
        raise FormatError("sparse", "bits or bytes after the last code")
    return bytes(data[:HEADER_SIZE]) + bytes(payload)


# ---- canonical bytes (STORAGE.md, "Canonical bytes of elements") ----------

def canonical_int(value):
    """smallint, integer, bigint: 8-byte little-endian two's complement (the
    bytes scheme 1 hashes, and both schemes put into containers)."""
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


# Hash scheme 2 (STORAGE.md section 6.3): the types whose = is not equality
# of their scheme-1 bytes get canonical forms of their own.  Text, bytea,
# uuid and the containers above are the same under both schemes; integers
# keep their bytes (in containers) but are hashed by integer_hash.

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
FLOAT_NAN_BITS = 0x7FF8000000000000
USECS_PER_DAY = 86400000000


def _decimal(value):
    if isinstance(value, bool):
        raise TypeError("a boolean is not a numeric")
    if isinstance(value, decimal.Decimal):
        return value
    if isinstance(value, int):
        return decimal.Decimal(value)
    if isinstance(value, str):
        try:
            return decimal.Decimal(value.strip())
        except decimal.InvalidOperation:
            raise ValueError("not a numeric: %r" % (value,))
    raise TypeError("pass a numeric as a Decimal, an int or its decimal string, not %r"
                    % (value,))


def numeric_text(value):
    """A numeric's normalised text, as PostgreSQL's numeric_normalize gives
    it: plain decimal notation without trailing zeros after the point and
    without the point when none remain; 'NaN', 'Infinity', '-Infinity'."""
    d = _decimal(value)
    if d.is_snan():
        raise ValueError("a signalling NaN is no numeric")
    if d.is_nan():
        return "NaN"
    if d.is_infinite():
        return "-Infinity" if d < 0 else "Infinity"
    if d.is_zero():
        return "0"                  # numeric has no -0
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def numeric_integer(value):
    """The integer a numeric is, when int64 holds it (whatever its scale:
    1.000 is 1), else None (fractions, larger integers, NaN, infinities)."""
    s = numeric_text(value)
    if s.lstrip("-").isdigit():
        n = int(s)
        if INT64_MIN <= n <= INT64_MAX:
            return n
    return None


def canonical_numeric(value):
    """numeric (scheme 2): an integer that int64 holds as the integers'
    8 bytes (so 1.0::numeric is 1::int), else the ASCII of numeric_text.
    As an element, an integral numeric is hashed by integer_hash
    (numeric_hash); these bytes are its form inside a container."""
    n = numeric_integer(value)
    if n is not None:
        return canonical_int(n)
    return numeric_text(value).encode("ascii")


def canonical_float(value, single=False):
    """float8, and float4 with single=True (scheme 2): the IEEE double
    (float4 widened exactly), -0 as +0, every NaN as 0x7ff8000000000000;
    8 bytes little-endian."""
    x = float(value)
    if single:
        # the float4 nearest the value, as float4 input rounds
        x = struct.unpack("<f", struct.pack("<f", x))[0]
    if math.isnan(x):
        return struct.pack("<Q", FLOAT_NAN_BITS)
    if x == 0.0:
        x = 0.0
    return struct.pack("<d", x)


def canonical_interval(months, days, microseconds):
    """interval (scheme 2), given its three fields: the span interval's =
    compares, time + (month * 30 + day) * 86 400 000 000 microseconds, as a
    128-bit two's complement integer, 16 bytes little-endian."""
    if not (-(1 << 31) <= months < (1 << 31) and -(1 << 31) <= days < (1 << 31)
            and INT64_MIN <= microseconds <= INT64_MAX):
        raise ValueError("interval fields out of range")
    span = microseconds + (months * 30 + days) * USECS_PER_DAY
    return (span & ((1 << 128) - 1)).to_bytes(16, "little")


def canonical_inet(value):
    """inet and cidr alike (scheme 2): family (2 IPv4, 3 IPv6), prefix bits,
    then the 4 or 16 address bytes.  value: the text form ('10.1.2.3/8',
    '::1'), or an ipaddress address, interface or network."""
    if isinstance(value, (ipaddress.IPv4Network, ipaddress.IPv6Network)):
        addr, bits = value.network_address, value.prefixlen
    elif isinstance(value, (ipaddress.IPv4Interface, ipaddress.IPv6Interface)):
        addr, bits = value.ip, value.network.prefixlen
    elif isinstance(value, (ipaddress.IPv4Address, ipaddress.IPv6Address)):
        addr, bits = value, value.max_prefixlen
    else:
        iface = ipaddress.ip_interface(str(value).strip())
        addr, bits = iface.ip, iface.network.prefixlen
    return bytes([2 if addr.version == 4 else 3, bits]) + addr.packed


def canonical_type_hash(value, bits=64):
    """A user-defined base type with a default hash operator class (scheme
    2): the value of its extended hash function (support 2) with seed 0, 8
    bytes little-endian; bits=32 for a type with only a 32-bit hash (support
    1), 4 bytes.  value: the hash as SQL returns it (signed or not)."""
    if bits == 64:
        return struct.pack("<Q", value & MASK64)
    if bits == 32:
        return struct.pack("<I", value & 0xFFFFFFFF)
    raise ValueError("a type's hash has 64 or 32 bits, not %r" % (bits,))


def _jsonb_key(key):
    if not isinstance(key, str):
        raise TypeError("a jsonb object key is a string, not %r" % (key,))
    return key.encode("utf-8")


def _jsonb_value(v, out):
    if isinstance(v, dict):
        # jsonb stores keys unique, sorted by length, then by their bytes
        pairs = sorted(((_jsonb_key(k), e) for k, e in v.items()),
                       key=lambda p: (len(p[0]), p[0]))
        out += b"{" + _u32(len(pairs))
        for k, e in pairs:
            out += b"k" + _u32(len(k)) + k
            _jsonb_value(e, out)
        out += b"}"
    elif isinstance(v, (list, tuple)):
        out += b"[" + _u32(len(v))
        for e in v:
            _jsonb_value(e, out)
        out += b"]"
    elif v is None:
        out += b"z"
    elif v is True:
        out += b"t"
    elif v is False:
        out += b"f"
    elif isinstance(v, str):
        b = v.encode("utf-8")
        out += b'"' + _u32(len(b)) + b
    elif isinstance(v, (int, float, decimal.Decimal)):
        d = decimal.Decimal(repr(v)) if isinstance(v, float) else _decimal(v)
        if not d.is_finite():
            raise ValueError("JSON has no %s" % (v,))
        n = canonical_numeric(d)
        out += b"#" + _u32(len(n)) + n
    else:
        raise TypeError("no jsonb value for %r" % (v,))


def canonical_jsonb(value):
    """jsonb (scheme 2) from a Python value (dict, list, str, int, Decimal,
    float by its repr, True, False, None): its tokens in jsonb's storage
    order; a scalar at the top is jsonb's one-element raw-scalar array."""
    out = bytearray()
    if isinstance(value, (dict, list, tuple)):
        _jsonb_value(value, out)
    else:
        out += b"s" + _u32(1)
        _jsonb_value(value, out)
        out += b"]"
    return bytes(out)


def _no_constant(name):
    raise ValueError("JSON has no %s" % name)


def parse_json(text):
    """A JSON text as canonical_jsonb takes it: numbers as Decimal (jsonb
    keeps them as numeric), the last of duplicate keys (jsonb keeps it)."""
    return json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal,
                      parse_constant=_no_constant, object_pairs_hook=dict)


def canonical_jsonb_text(text):
    """jsonb (scheme 2) from its text, e.g. '{"a": 1.50}'."""
    return canonical_jsonb(parse_json(text))


def canonical(value, encoding="utf-8", scheme=HASH_EQUALITY):
    """Canonical bytes, by hash scheme 'scheme', of a Python value standing
    for an SQL value: int (smallint, integer, bigint), str (text), bytes
    (bytea), uuid.UUID, bool (boolean's send form, both schemes); scheme 2
    also Decimal (numeric), float (float8) and ipaddress objects (inet).
    These are the bytes of a part of a container; to hash an element use
    value_hash (scheme 2 hashes integer elements by integer_hash)."""
    if scheme not in HASH_SCHEMES:
        raise ValueError("unknown hash scheme %r" % (scheme,))
    if isinstance(value, bool):
        return b"\x01" if value else b"\x00"
    if isinstance(value, int):
        return canonical_int(value)
    if isinstance(value, str):
        return canonical_text(value, encoding)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return canonical_bytea(value)
    if isinstance(value, uuid_module.UUID):
        return canonical_uuid(value)
    if isinstance(value, float) and scheme == HASH_XXH3_128:
        return struct.pack(">d", value)     # scheme 1: float8's send form
    if scheme == HASH_EQUALITY:
        if isinstance(value, decimal.Decimal):
            return canonical_numeric(value)
        if isinstance(value, float):
            return canonical_float(value)
        if isinstance(value, (ipaddress.IPv4Address, ipaddress.IPv6Address,
                              ipaddress.IPv4Interface, ipaddress.IPv6Interface,
                              ipaddress.IPv4Network, ipaddress.IPv6Network)):
            return canonical_inet(value)
    raise TypeError("no canonical encoding for %r under hash scheme %d; pass its bytes"
                    % (value, scheme))


# ---- hashing (STORAGE.md, "Hashing") --------------------------------------

GOLDEN64 = 0x9E3779B97F4A7C15


def element_hash(data, seed):
    """Both hash schemes (section 5.1): XXH3-128 of the canonical bytes
    seeded by the filter's seed; returns (lo, hi).  Not for an integer
    element of a scheme-2 filter (integer_hash)."""
    h = xxhash.xxh3_128_intdigest(bytes(data), seed=seed & MASK64)
    return h & MASK64, h >> 64


def fmix64(x):
    """MurmurHash3's 64-bit finaliser (section 5.2)."""
    x &= MASK64
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & MASK64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & MASK64
    x ^= x >> 33
    return x


def integer_hash(value, seed):
    """Hash scheme 2's hash of an integer element (section 5.3): any width,
    or a numeric that is an integer int64 holds.  x = value XOR seed (the
    value's 64-bit two's complement pattern); lo = fmix64(x), hi =
    fmix64(x XOR 0x9e3779b97f4a7c15).  Returns (lo, hi)."""
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError("integer out of bigint range: %r" % (value,))
    x = (value & MASK64) ^ (seed & MASK64)
    return fmix64(x), fmix64(x ^ GOLDEN64)


def int_hash(value, seed, scheme):
    """An integer element (smallint, integer, bigint) by hash scheme
    'scheme': XXH3-128 of its 8 bytes (1), integer_hash (2)."""
    if scheme == HASH_XXH3_128:
        return element_hash(canonical_int(value), seed)
    if scheme == HASH_EQUALITY:
        return integer_hash(value, seed)
    raise ValueError("unknown hash scheme %r" % (scheme,))


def numeric_hash(value, seed):
    """A numeric element of a scheme-2 filter: integer_hash of the integer
    it is (when int64 holds it), else XXH3-128 of its normalised text.
    (Scheme 1 hashed numeric's send form, which this reader does not
    compose.)"""
    n = numeric_integer(value)
    if n is not None:
        return integer_hash(n, seed)
    return element_hash(numeric_text(value).encode("ascii"), seed)


def value_hash(value, seed, scheme=HASH_EQUALITY, encoding="utf-8"):
    """(lo, hi) of a Python value standing for an SQL element (as
    canonical() takes them), by hash scheme 'scheme'."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int_hash(value, seed, scheme)
    if isinstance(value, decimal.Decimal) and scheme == HASH_EQUALITY:
        return numeric_hash(value, seed)
    return element_hash(canonical(value, encoding, scheme), seed)


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
        """The type's text form: standard base64 with padding, or the sparse
        form behind a '~' (STORAGE.md section 15)."""
        return cls(decode_text(text))

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
        """Membership of an element given by its canonical bytes, hashed by
        XXH3-128: every element but, in a scheme-2 filter, an integer
        (contains_int, contains_numeric)."""
        return self.contains_hash(*element_hash(canonical_bytes, self.seed))

    def contains_int(self, value):
        """Membership of an integer element (smallint, integer, bigint), by
        the filter's hash scheme."""
        return self.contains_hash(*int_hash(value, self.seed, self.hash_scheme))

    def contains_numeric(self, value):
        """Membership of a numeric element (a Decimal, an int or its text) in
        a scheme-2 filter."""
        if self.hash_scheme != HASH_EQUALITY:
            raise ValueError("numeric elements of hash scheme %d filters are hashed by "
                             "their send form, which this reader does not compose"
                             % self.hash_scheme)
        return self.contains_hash(*numeric_hash(value, self.seed))

    def contains_value(self, value, encoding="utf-8"):
        """Membership of a Python value, by the filter's hash scheme."""
        return self.contains_hash(*value_hash(value, self.seed, self.hash_scheme,
                                              encoding))

    def bits_set(self):
        return sum(bin(b).count("1") for b in self.payload)

    def describe(self):
        return ("%s filter, hash scheme %d: %d bits, %d hashes, seed %d (0x%016x), "
                "%d items added, expected_items %d, target_fpr %r, %d payload bytes"
                % (self.variant_name, self.hash_scheme, self.bits, self.hashes, self.seed,
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
    if scheme not in HASH_SCHEMES:
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

def _parse_element(arg, f):
    """(canonical bytes, (lo, hi)) of a command-line element for filter f"""
    kind, _, rest = arg.partition(":")
    if kind == "int":
        n = int(rest)
        return canonical_int(n), int_hash(n, f.seed, f.hash_scheme)
    if kind == "num":
        if f.hash_scheme != HASH_EQUALITY:
            raise SystemExit("num: a scheme-1 filter hashes numeric by its send form; pass hex:")
        return canonical_numeric(rest), numeric_hash(rest, f.seed)
    data = _element_bytes(kind, rest)
    return data, element_hash(data, f.seed)


def _element_bytes(kind, rest):
    if kind == "text":
        return canonical_text(rest)
    if kind == "hex":
        return bytes.fromhex(rest)
    if kind == "uuid":
        return canonical_uuid(rest)
    # the scheme-2 forms
    if kind in ("float", "float4"):
        return canonical_float(rest, single=kind == "float4")
    if kind == "interval":
        months, days, usecs = (int(x) for x in rest.split(","))
        return canonical_interval(months, days, usecs)
    if kind == "inet":
        return canonical_inet(rest)
    if kind == "jsonb":
        return canonical_jsonb_text(rest)
    raise SystemExit("element must be text:STR, int:N, hex:HEX, uuid:U, num:DECIMAL, "
                     "float:X, float4:X, interval:MONTHS,DAYS,MICROSECONDS, inet:ADDR "
                     "or jsonb:JSON")


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    f = Filter.from_hex(argv[1])
    print(f.describe())
    for arg in argv[2:]:
        data, (lo, hi) = _parse_element(arg, f)
        pos = f.positions(lo, hi)
        print("%s: bytes %s  lo %016x  hi %016x" % (arg, data.hex(), lo, hi))
        if f.variant == VARIANT_BLOCKED:
            print("  block %d, bits in block %s"
                  % (pos[0] // BLOCK_BITS, [p % BLOCK_BITS for p in pos]))
        else:
            print("  positions %s" % pos)
        print("  contains: %s" % f.contains_hash(lo, hi))


if __name__ == "__main__":
    main(sys.argv)
