#!/usr/bin/env python3
"""test/gateway/protocol_test.py: otsd at the HTTP level, as the SDKs see it.

Run by test/gateway/run.sh with otsd up; reads the environment it sets:
endpoint, instancename, accessKeyId, secretAccessKey (the key acting as
gw_app) and OTSGW_OTHER_KEY_ID / OTSGW_OTHER_KEY_SECRET. Python 3 standard
library only: a minimal protobuf encoder/decoder and PlainBuffer
encoder/decoder (with Tablestore's CRC-8) are written here.

Each test prints "test protocol_NAME ... ok|FAILED (why)". Every response
of every test is checked as the SDKs check them:
  - every response: x-ots-requestid (the Java SDK refuses an error without
    it), x-ots-date (within 15 minutes, "%Y-%m-%dT%H:%M:%S.%fZ" as the Python
    SDK parses it), x-ots-contentmd5 (the base64 MD5 of the body: Java and
    Python compare it), x-ots-contenttype;
  - the response signature, as the Java SDK's OTSValidationResponseHandler
    and the Python SDK's _check_authorization verify it: Authorization is
    "OTS <accesskeyid>:<signature>", the signature the base64 HMAC-SHA1, with
    the key's secret, of every x-ots-* response header sorted by name as
    "name:value\\n", then "/" + the action. Required on every reply to a
    request whose key is known, except OTSAuthFailed (the Python SDK skips
    the check there: the server may not know or trust the key); where a reply
    carries one anyway, it must verify;
  - an error reply's body is a protobuf Error{code, message}: both decoded
    and compared with Tablestore's status, code and message.
Expected codes and messages come from Tablestore's documented error list
and its SDKs' tests (see the comments at each test); where those sources
disagree, each documented variant is accepted.
"""

import base64
import datetime
import email.utils
import hashlib
import hmac
import http.client
import math
import os
import random
import re
import select
import socket
import struct
import sys
import time
import urllib.parse
import zlib

def env(name):
    value = os.environ.get(name)
    if not value:
        sys.exit("protocol_test.py: %s is not set (run test/gateway/run.sh)" % name)
    return value


ENDPOINT = urllib.parse.urlparse(env("endpoint"))
HOST, PORT = ENDPOINT.hostname, ENDPOINT.port or 80
INSTANCE = env("instancename")
KEY_ID = env("accessKeyId")
SECRET = env("secretAccessKey")
OTHER_ID = env("OTSGW_OTHER_KEY_ID")
OTHER_SECRET = env("OTSGW_OTHER_KEY_SECRET")
THIRD_ID = env("OTSGW_THIRD_KEY_ID")
THIRD_SECRET = env("OTSGW_THIRD_KEY_SECRET")
STS_ID, STS_SECRET, STS_TOKEN = env("OTSGW_STS_KEY_ID"), env("OTSGW_STS_KEY_SECRET"), env("OTSGW_STS_TOKEN")
SECRETS = {KEY_ID: SECRET, OTHER_ID: OTHER_SECRET, THIRD_ID: THIRD_SECRET, STS_ID: STS_SECRET}
API_VERSION = "2015-12-31"
TABLE = "gw_protocol_%d" % os.getpid()
STREAM_TABLE = "gw_protocol_stream_%d" % os.getpid()


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


# ---------------------------------------------------------------- protobuf

def varint(n):
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def f_varint(no, value):
    return varint(no << 3) + varint(int(value))


def f_bytes(no, value):
    if isinstance(value, str):
        value = value.encode("utf-8")
    return varint((no << 3) | 2) + varint(len(value)) + value


def read_varint(buf, pos):
    shift = result = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def pb_decode(buf):
    """A message as {field number: [values]}: varints as ints, the rest as bytes."""
    fields = {}
    pos = 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        no, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire == 1:
            check(pos + 8 <= len(buf), "truncated fixed64")
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = read_varint(buf, pos)
            check(pos + n <= len(buf), "truncated length-delimited field %d" % no)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            check(pos + 4 <= len(buf), "truncated fixed32")
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("wire type %d" % wire)
        fields.setdefault(no, []).append(value)
    return fields


def one(fields, no, default=None):
    values = fields.get(no)
    return values[-1] if values else default


def signed64(n):
    return n - (1 << 64) if n >= 1 << 63 else n


def decode_error(body):
    err = pb_decode(body)
    check(1 in err, "an Error without its required code: %r" % body[:80])
    return one(err, 1).decode("utf-8"), (one(err, 2, b"")).decode("utf-8")


# ------------------------------------------------------------- PlainBuffer

HEADER = 0x75
TAG_ROW_PK, TAG_ROW_DATA, TAG_CELL, TAG_CELL_NAME, TAG_CELL_VALUE = 1, 2, 3, 4, 5
TAG_CELL_TYPE, TAG_CELL_TIMESTAMP, TAG_DELETE_ROW_MARKER, TAG_ROW_CHECKSUM = 6, 7, 8, 9
TAG_CELL_CHECKSUM, TAG_EXTENSION = 0x0A, 0x0B
VT_INTEGER, VT_DOUBLE, VT_BOOLEAN, VT_STRING, VT_BLOB = 0, 1, 2, 3, 7
VT_INF_MIN, VT_INF_MAX, VT_AUTO_INCREMENT = 9, 10, 11
OP_DELETE_ALL, OP_DELETE_ONE, OP_INCREMENT = 1, 3, 4


def _crc_table():
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
        table.append(crc)
    return table


CRC8 = _crc_table()


def crc8(crc, data):
    for byte in data:
        crc = CRC8[crc ^ byte]
    return crc


class Val:
    """A typed value: Val('int', 5), Val('str', 'x'), Val('inf_min')...; Val('raw', payload):
    the bytes after the value's length as given (its type byte first), right or not"""

    def __init__(self, kind, value=None):
        self.kind, self.value = kind, value

    def encode(self):
        """(bytes after TAG_CELL_VALUE, the bytes the cell checksum covers)"""
        k, v = self.kind, self.value
        if k == "int":
            payload = bytes([VT_INTEGER]) + struct.pack("<q", v)
        elif k == "dbl":
            payload = bytes([VT_DOUBLE]) + struct.pack("<d", v)
        elif k == "bool":
            payload = bytes([VT_BOOLEAN, 1 if v else 0])
        elif k == "raw":
            payload = v
        elif k in ("str", "bin"):
            data = v.encode("utf-8") if k == "str" else v
            payload = bytes([VT_STRING if k == "str" else VT_BLOB]) + struct.pack("<I", len(data)) + data
        else:
            payload = bytes([{"inf_min": VT_INF_MIN, "inf_max": VT_INF_MAX, "auto": VT_AUTO_INCREMENT}[k]])
        return struct.pack("<I", len(payload)) + payload, payload


def pb_cell(name, value=None, ts=None, op=None, corrupt_crc=False):
    """name: a str, or bytes as they go (any bytes)"""
    name_b = name if isinstance(name, bytes) else name.encode("utf-8")
    out = bytearray([TAG_CELL, TAG_CELL_NAME]) + struct.pack("<I", len(name_b)) + name_b
    crc = crc8(0, name_b)
    if value is not None:
        wire, covered = value.encode()
        out += bytes([TAG_CELL_VALUE]) + wire
        crc = crc8(crc, covered)
    if op is not None:
        out += bytes([TAG_CELL_TYPE, op])
    if ts is not None:
        out += bytes([TAG_CELL_TIMESTAMP]) + struct.pack("<q", ts)
        crc = crc8(crc, struct.pack("<q", ts))
    if op is not None:
        crc = crc8(crc, bytes([op]))
    if corrupt_crc:
        crc ^= 0x5A
    out += bytes([TAG_CELL_CHECKSUM, crc])
    return bytes(out), crc


def pb_row(pk, attrs=(), delete=False, corrupt_cell=None, corrupt_row=False, header=HEADER):
    """pk: [(name, Val)]; attrs: [(name, Val|None, ts, op)]. Returns the row's bytes."""
    out = bytearray(struct.pack("<I", header))
    out.append(TAG_ROW_PK)
    row_crc = 0
    index = 0
    for name, value in pk:
        cell, crc = pb_cell(name, value, corrupt_crc=(corrupt_cell == index))
        out += cell
        row_crc = crc8(row_crc, bytes([crc]))
        index += 1
    if attrs:
        out.append(TAG_ROW_DATA)
        for name, value, ts, op in attrs:
            cell, crc = pb_cell(name, value, ts, op, corrupt_crc=(corrupt_cell == index))
            out += cell
            row_crc = crc8(row_crc, bytes([crc]))
            index += 1
    if delete:
        out.append(TAG_DELETE_ROW_MARKER)
    row_crc = crc8(row_crc, bytes([1 if delete else 0]))
    if corrupt_row:
        row_crc ^= 0x33
    out += bytes([TAG_ROW_CHECKSUM, row_crc])
    return bytes(out)


class Reader:
    def __init__(self, buf):
        self.buf, self.pos = buf, 0

    def take(self, n):
        check(self.pos + n <= len(self.buf), "PlainBuffer truncated at %d (+%d of %d)" % (self.pos, n, len(self.buf)))
        data = self.buf[self.pos:self.pos + n]
        self.pos += n
        return data

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def byte(self):
        return self.take(1)[0]

    def peek(self):
        return self.buf[self.pos] if self.pos < len(self.buf) else None


def read_cell(r):
    """A cell after its TAG_CELL, checksum verified: (name, value, ts, op)."""
    check(r.byte() == TAG_CELL_NAME, "TAG_CELL_NAME expected")
    name = r.take(r.u32())
    crc = crc8(0, name)
    value = ts = op = None
    if r.peek() == TAG_CELL_VALUE:
        r.byte()
        size = r.u32()
        payload = r.take(size)
        check(size >= 1, "an empty cell value")
        crc = crc8(crc, payload)
        vt, data = payload[0], payload[1:]
        if vt == VT_INTEGER:
            check(len(data) == 8, "INTEGER of %d bytes" % len(data))
            value = ("int", struct.unpack("<q", data)[0])
        elif vt == VT_DOUBLE:
            check(len(data) == 8, "DOUBLE of %d bytes" % len(data))
            value = ("dbl", struct.unpack("<d", data)[0])
        elif vt == VT_BOOLEAN:
            check(len(data) == 1, "BOOLEAN of %d bytes" % len(data))
            value = ("bool", data[0] != 0)
        elif vt in (VT_STRING, VT_BLOB):
            check(len(data) >= 4 and struct.unpack("<I", data[:4])[0] == len(data) - 4, "a string's length prefix")
            value = ("str", data[4:].decode("utf-8")) if vt == VT_STRING else ("bin", bytes(data[4:]))
        else:
            value = ({VT_INF_MIN: "inf_min", VT_INF_MAX: "inf_max", VT_AUTO_INCREMENT: "auto"}.get(vt, "vt%d" % vt), None)
    if r.peek() == TAG_CELL_TYPE:
        r.byte()
        op = r.byte()
    if r.peek() == TAG_CELL_TIMESTAMP:
        r.byte()
        raw = r.take(8)
        ts = struct.unpack("<q", raw)[0]
        crc = crc8(crc, raw)
    if op is not None:
        crc = crc8(crc, bytes([op]))
    check(r.byte() == TAG_CELL_CHECKSUM, "cell %r: TAG_CELL_CHECKSUM expected" % name)
    got = r.byte()
    check(got == crc, "cell %r: checksum %d, computed %d" % (name, got, crc))
    return name.decode("utf-8"), value, ts, op, crc


def pb_decode_rows(buf):
    """Every row of a PlainBuffer (GetRange's rows, a row, a record), all checksums verified."""
    r = Reader(buf)
    check(r.u32() == HEADER, "PlainBuffer header 0x75 expected")
    rows = []
    while r.peek() is not None:
        row = {"pk": [], "attrs": [], "deleted": False}
        row_crc = 0
        if r.peek() == TAG_ROW_PK:
            r.byte()
            while r.peek() == TAG_CELL:
                r.byte()
                name, value, _, _, crc = read_cell(r)
                row["pk"].append((name, value))
                row_crc = crc8(row_crc, bytes([crc]))
        if r.peek() == TAG_ROW_DATA:
            r.byte()
            while r.peek() == TAG_CELL:
                r.byte()
                name, value, ts, op, crc = read_cell(r)
                row["attrs"].append((name, value, ts, op))
                row_crc = crc8(row_crc, bytes([crc]))
        if r.peek() == TAG_DELETE_ROW_MARKER:
            r.byte()
            row["deleted"] = True
        row_crc = crc8(row_crc, bytes([1 if row["deleted"] else 0]))
        if r.peek() == TAG_EXTENSION:
            # a stream record's sequence info, as the Go SDK reads it (readRowExtension)
            r.byte()
            check(r.u32() == 24, "extension length")
            check(r.byte() == 0x0C and r.u32() == 19, "TAG_SEQ_INFO and its length expected")
            check(r.byte() == 0x0D, "TAG_SEQ_INFO_EPOCH expected")
            epoch = r.u32()
            check(r.byte() == 0x0E, "TAG_SEQ_INFO_TS expected")
            ts = struct.unpack("<q", r.take(8))[0]
            check(r.byte() == 0x0F, "TAG_SEQ_INFO_ROW_INDEX expected")
            row["seq"] = (epoch, ts, r.u32())
        check(r.byte() == TAG_ROW_CHECKSUM, "TAG_ROW_CHECKSUM expected at %d" % (r.pos - 1))
        got = r.byte()
        # (the checksum does not cover the extension)
        check(got == row_crc, "row checksum %d, computed %d" % (got, row_crc))
        rows.append(row)
    return rows


def srm_decode(buf):
    """A SimpleRowMatrix block, read as the Java SDK's SimpleRowMatrixBlockParser reads it:
    (field names, key column count, rows as lists of values, None for none)."""
    check(len(buf) >= 22 and struct.unpack_from("<i", buf, 0)[0] == 0x304d5253, "SimpleRowMatrix API version")
    data_at, options_at, npk, nattr = struct.unpack_from("<iiii", buf, 4)
    pos = 20
    names = []
    for _ in range(npk + nattr):
        n = struct.unpack_from("<h", buf, pos)[0]
        names.append(buf[pos + 2:pos + 2 + n].decode())
        pos += 2 + n
    check(pos == options_at and buf[options_at] == 10 and buf[options_at + 1] == 1 and buf[options_at + 2] == 3,
          "SimpleRowMatrix options")
    nrows = struct.unpack_from("<i", buf, options_at + 3)[0]
    check(data_at == options_at + 7, "SimpleRowMatrix data offset")
    check(buf[-2] == 1 and buf[-1] == crc8(0, buf[:-1]), "SimpleRowMatrix checksum")
    rows = []
    pos = data_at
    while pos < len(buf) - 2:
        check(buf[pos] == 2, "TAG_ROW at %d" % pos)
        pos += 1
        row = []
        for _ in range(npk + nattr):
            t = buf[pos]
            pos += 1
            if t == 0:
                row.append(struct.unpack_from("<q", buf, pos)[0]); pos += 8
            elif t == 1:
                row.append(struct.unpack_from("<d", buf, pos)[0]); pos += 8
            elif t == 2:
                row.append(buf[pos] == 1); pos += 1
            elif t in (3, 7):
                n = struct.unpack_from("<i", buf, pos)[0]
                data = buf[pos + 4:pos + 4 + n]
                row.append(data.decode() if t == 3 else bytes(data)); pos += 4 + n
            elif t == 6:
                row.append(None)
            else:
                raise Failure("SimpleRowMatrix type %d" % t)
        rows.append(row)
    check(len(rows) == nrows, "%d rows, the block says %d" % (len(rows), nrows))
    return names, npk, rows


# -------------------------------------------------------------------- HTTP

def iso_now(offset=0.0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=offset)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def rfc822_now(offset=0.0):
    return email.utils.formatdate(time.time() + offset, usegmt=True)


def sign_request(path, method, headers, secret):
    names = sorted(k.lower() for k in headers if k.lower().startswith("x-ots-") and k.lower() != "x-ots-signature")
    lower = {k.lower(): v for k, v in headers.items()}
    text = path + "\n" + method + "\n\n" + "".join("%s:%s\n" % (n, lower[n].strip()) for n in names)
    return base64.b64encode(hmac.new(secret.encode(), text.encode("utf-8"), hashlib.sha1).digest()).decode()


class Reply:
    def __init__(self, action, status, headers, body, key_id, authenticated=True):
        self.action, self.status, self.headers, self.body, self.key_id = action, status, headers, body, key_id
        self.authenticated = authenticated
        self.code = self.message = None
        if status != 200 and body:
            self.code, self.message = decode_error(body)

    def __repr__(self):
        return "%d %s %r" % (self.status, self.code, self.message)


REQUEST_IDS = set()


def v4_signing_key(secret, sign_date, region):
    """The Java SDK's V4 signing key (CalculateV4SigningKeyUtil), as base64 bytes."""
    key = hmac.new(("aliyun_v4" + secret).encode(), sign_date.encode(), hashlib.sha256).digest()
    for part in (region, "ots", "aliyun_v4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return base64.b64encode(key)


def send_v4(action, body=b"", secret=None, sign_date=None, region="emulator", drop=(), authenticated=True,
            key_id=None, sent_region=None):
    """A request signed as the Java SDK's V4SignatureMaker signs: HMAC-SHA256 with the V4
    signing key over the V2 text (x-ots-* headers but the signature) and "ots"."""
    sign_date = sign_date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
    secret = SECRET if secret is None else secret
    path = "/" + action
    headers = {
        "x-ots-date": iso_now(), "x-ots-apiversion": API_VERSION, "x-ots-accesskeyid": key_id or KEY_ID,
        "x-ots-instancename": INSTANCE, "x-ots-contentmd5": base64.b64encode(hashlib.md5(body).digest()).decode(),
        "x-ots-signdate": sign_date, "x-ots-signregion": region,
    }
    for name in drop:
        headers.pop(name, None)
    key = v4_signing_key(secret, sign_date, region)
    names = sorted(k for k in headers if k.startswith("x-ots-"))
    text = path + "\nPOST\n\n" + "".join("%s:%s\n" % (n, headers[n].strip()) for n in names) + "ots"
    headers["x-ots-signaturev4"] = base64.b64encode(hmac.new(key, text.encode(), hashlib.sha256).digest()).decode()
    if sent_region is not None:
        headers["x-ots-signregion"] = sent_region  # changed after signing
    return send(action, body, sign=False, override=headers, drop=("x-ots-signature",), v4_key=key,
                authenticated=authenticated, key_id=key_id)


def send(action, body=b"", key_id=None, secret=None, instance=None, date=None, drop=(), override=None,
         method="POST", path=None, sign=True, bad_signature=False, authenticated=True, v4_key=None,
         endpoint=None):
    """One request; authenticated=False where it is refused before its signature is checked;
    endpoint: another otsd's URL (urllib.parse.urlparse's), the test's by default."""
    key_id = KEY_ID if key_id is None else key_id
    secret = SECRET if secret is None else secret
    path = path or "/" + action
    headers = {
        "x-ots-date": date or iso_now(),
        "x-ots-apiversion": API_VERSION,
        "x-ots-accesskeyid": key_id,
        "x-ots-instancename": INSTANCE if instance is None else instance,
        "x-ots-contentmd5": base64.b64encode(hashlib.md5(body).digest()).decode(),
    }
    headers.update(override or {})
    for name in drop:
        headers.pop(name, None)
    if sign and "x-ots-signature" not in drop:
        headers["x-ots-signature"] = sign_request(path, method, headers, secret)
        if bad_signature:
            headers["x-ots-signature"] = base64.b64encode(b"0" * 20).decode()
    host, port = (HOST, PORT) if endpoint is None else (endpoint.hostname, endpoint.port or 80)
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.request(method, path, body=body if method not in ("GET", "HEAD") else None, headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        reply_headers = {k.lower(): v for k, v in resp.getheaders()}
        reply = Reply(path.lstrip("/"), resp.status, reply_headers, data, key_id, authenticated)
        reply.v4_key = v4_key
    finally:
        conn.close()
    if method != "HEAD":
        check_reply_headers(reply)
    return reply


def check_reply_headers(reply):
    h = reply.headers
    for name in ("x-ots-requestid", "x-ots-date", "x-ots-contentmd5", "x-ots-contenttype"):
        check(name in h, "response header %s missing (%r)" % (name, reply))
    rid = h["x-ots-requestid"]
    check(rid and rid not in REQUEST_IDS, "x-ots-requestid %r not new" % rid)
    REQUEST_IDS.add(rid)
    if "x-ots-response-compress-type" in h:
        # a deflated reply (asked for): the MD5 is the inflated body's, as the Java SDK checks it
        check(h["x-ots-response-compress-type"] == "deflate", "compress type %r" % h["x-ots-response-compress-type"])
        reply.body = zlib.decompress(reply.body)
        check(str(len(reply.body)) == h.get("x-ots-response-compress-size"),
              "inflated %d bytes, x-ots-response-compress-size %r" % (len(reply.body), h.get("x-ots-response-compress-size")))
    md5 = base64.b64encode(hashlib.md5(reply.body).digest()).decode()
    check(h["x-ots-contentmd5"] == md5, "x-ots-contentmd5 %r, body's MD5 %r" % (h["x-ots-contentmd5"], md5))
    try:
        served = datetime.datetime.strptime(h["x-ots-date"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise Failure("x-ots-date %r not in the format the Python SDK parses" % h["x-ots-date"])
    skew = abs((datetime.datetime.now(datetime.timezone.utc) - served).total_seconds())
    check(skew < 15 * 60, "x-ots-date %s is %d s off" % (h["x-ots-date"], skew))
    for name, value in h.items():
        if name.startswith("x-ots-"):
            check(value == value.strip(), "header %s has surrounding blanks" % name)
    auth = h.get("authorization")
    known = reply.key_id in SECRETS and SECRETS[reply.key_id]
    if auth is None:
        # the SDKs require it on success and on a 403 other than OTSAuthFailed
        # (Python); we require it too on every reply to a request whose
        # signature checked out; a refusal before that may go unsigned
        check(not known or not reply.authenticated or reply.code == "OTSAuthFailed",
              "no Authorization on a reply to a signed request of a known key (%r)" % reply)
        return
    check(auth.startswith("OTS "), "Authorization %r does not start with 'OTS '" % auth)
    key_id, _, signature = auth[4:].partition(":")
    if key_id not in SECRETS:
        check(reply.code == "OTSAuthFailed", "Authorization names unknown key %r" % key_id)
        return
    check(key_id == reply.key_id, "Authorization names key %r, the request %r" % (key_id, reply.key_id))
    # the Java SDK: sorted x-ots-* headers "name:value\n", then "/" + action; keyed with
    # the secret, or, for a V4-signed request, with its signing key
    text = "".join("%s:%s\n" % (k, h[k]) for k in sorted(k for k in h if k.startswith("x-ots-"))) + "/" + reply.action
    key = getattr(reply, "v4_key", None) or SECRETS[key_id].encode()
    expected = base64.b64encode(hmac.new(key, text.encode("utf-8"), hashlib.sha1).digest()).decode()
    check(auth.endswith(":" + expected) and signature == expected,
          "response signature %r, computed %r over %r" % (signature, expected, text))


def expect_error(reply, status, codes, messages=None):
    codes = [codes] if isinstance(codes, str) else codes
    check(reply.status == status, "HTTP status %d, expected %d (%r)" % (reply.status, status, reply))
    check(reply.code in codes, "code %r, expected %s (%r)" % (reply.code, " or ".join(codes), reply))
    if messages is not None:
        messages = [messages] if isinstance(messages, str) else messages
        check(reply.message in messages, "message %r, expected %s" % (reply.message, " or ".join(repr(m) for m in messages)))
    return "%d %s %r" % (reply.status, reply.code, reply.message)


def expect_ok(reply):
    check(reply.status == 200, "HTTP status %d (%r)" % (reply.status, reply))
    return pb_decode(reply.body)


# ------------------------------------------------------------ the requests

def create_table_body(name, stream=False, keys=(("pk", 2), ("n", 1)), options=b""):
    """keys: (name, type) of the primary key, type 1 INTEGER, 2 STRING, or (name, type,
    option), option 1 AUTO_INCREMENT; options: more TableOptions fields (a field given
    here again wins: the last value of a field is the one protobuf keeps)"""
    meta = f_bytes(1, name) + b"".join(f_bytes(2, f_bytes(1, k[0]) + f_varint(2, k[1])
                                               + b"".join(f_varint(3, o) for o in k[2:])) for k in keys)
    body = f_bytes(1, meta) + f_bytes(2, f_bytes(1, f_varint(1, 0) + f_varint(2, 0)))
    body += f_bytes(3, f_varint(1, -1) + f_varint(2, 1) + options)
    if stream:
        body += f_bytes(5, f_varint(1, 1) + f_varint(2, 24))
    return body


def key_of(pk, n):
    return [("pk", Val("str", pk)), ("n", Val("int", n))]


def put_row_body(table, row, expectation=0):
    return f_bytes(1, table) + f_bytes(2, row) + f_bytes(3, f_varint(1, expectation))


def get_row_body(table, pk_row):
    return f_bytes(1, table) + f_bytes(2, pk_row) + f_varint(5, 1)


# --------------------------------------------------------------- the tests

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def signed_request_accepted():
    """A request signed as the Node SDK signs it (ISO 8601 date) is served."""
    reply = send("ListTable")
    fields = expect_ok(reply)
    names = [v.decode() for v in fields.get(1, [])]
    check(reply.headers.get("authorization"), "a signed reply")
    return "ListTable: %d tables, response signature verified" % len(names)


@test
def rfc822_date_accepted():
    """The Java SDK sends x-ots-date in RFC 822 form."""
    expect_ok(send("ListTable", date=rfc822_now()))
    return "x-ots-date %s" % rfc822_now()


@test
def table_and_row_roundtrip():
    """CreateTable, PutRow, GetRow, GetRange at the wire level; otsd's PlainBuffer verified."""
    expect_ok(send("CreateTable", create_table_body(TABLE)))
    stamp = int(time.time() * 1000) - 5000  # a version of its own, within the max version offset
    row = pb_row(key_of("a", 1), [("s", Val("str", "héllo"), None, None), ("i", Val("int", -7), stamp, None),
                                  ("d", Val("dbl", 2.0), None, None), ("b", Val("bool", True), None, None),
                                  ("x", Val("bin", b"\x00\xff"), None, None)])
    put = expect_ok(send("PutRow", put_row_body(TABLE, row)))
    consumed = pb_decode(one(put, 1))
    unit = pb_decode(one(consumed, 1))
    check(one(unit, 2, 0) >= 1, "PutRow consumed write CU %r" % unit)
    got = expect_ok(send("GetRow", get_row_body(TABLE, pb_row(key_of("a", 1)))))
    check(1 in got, "GetRow's consumed (required) missing")
    rows = pb_decode_rows(one(got, 2))
    check(len(rows) == 1, "%d rows" % len(rows))
    check(rows[0]["pk"] == [("pk", ("str", "a")), ("n", ("int", 1))], "key %r" % rows[0]["pk"])
    attrs = {name: (value, ts) for name, value, ts, _ in rows[0]["attrs"]}
    check(attrs["s"][0] == ("str", "héllo"), "s %r" % (attrs["s"],))
    check(attrs["i"] == (("int", -7), stamp), "i %r" % (attrs["i"],))
    check(attrs["d"][0] == ("dbl", 2.0), "a whole Double stays a Double: %r" % (attrs["d"],))
    check(attrs["b"][0] == ("bool", True), "b %r" % (attrs["b"],))
    check(attrs["x"][0] == ("bin", b"\x00\xff"), "x %r" % (attrs["x"],))
    for name, (value, ts) in attrs.items():
        check(ts is not None and ts > 0, "cell %s without its timestamp" % name)
    # a missing row: an empty row field, still present (it is required)
    miss = expect_ok(send("GetRow", get_row_body(TABLE, pb_row(key_of("zz", 9)))))
    check(2 in miss and one(miss, 2) == b"", "a missing row: empty row bytes, got %r" % miss.get(2))
    # GetRange over everything: the rows' PlainBuffer and an empty next key
    inf = pb_row([("pk", Val("inf_min")), ("n", Val("inf_min"))])
    sup = pb_row([("pk", Val("inf_max")), ("n", Val("inf_max"))])
    rng = expect_ok(send("GetRange", f_bytes(1, TABLE) + f_varint(2, 0) + f_varint(5, 1) + f_bytes(7, inf) + f_bytes(8, sup)))
    rows = pb_decode_rows(one(rng, 2))
    check(len(rows) == 1, "GetRange: %d rows" % len(rows))
    check(not one(rng, 3), "GetRange: next_start_primary_key %r after the last row" % one(rng, 3))
    return "5 types round-trip; every cell and row checksum of otsd's PlainBuffer verifies"


@test
def get_range_pages_inside_a_wide_row():
    """GetRange of a row larger than a page: the page ends inside it, next_start_primary_key
    is the row and next_token where it goes on (Tablestore's GetRange token); the token
    sent back continues the row, no column twice or missing; a token ots did not give is refused."""
    table = TABLE + "_wide"
    expect_ok(send("CreateTable", create_table_body(table)))
    try:
        # six columns of 1 MB (one request each), past the 4 MB page
        superuser_sql("SELECT count(*) FROM generate_series(0, 5) g, LATERAL ots.update_row('%s', "
                      "'{\"pk\": \"w\", \"n\": 1}', put => jsonb_build_object('c' || g, repeat('x', 1048576)))"
                      % table)
        inf = pb_row([("pk", Val("inf_min")), ("n", Val("inf_min"))])
        sup = pb_row([("pk", Val("inf_max")), ("n", Val("inf_max"))])
        start, token, seen, pages = inf, None, [], 0
        while True:
            body = f_bytes(1, table) + f_varint(2, 0) + f_varint(5, 1) + f_bytes(7, start) + f_bytes(8, sup)
            if token:
                body += f_bytes(13, token)
            rng = expect_ok(send("GetRange", body))
            pages += 1
            for row in pb_decode_rows(one(rng, 2)):
                check(row["pk"] == [("pk", ("str", "w")), ("n", ("int", 1))], "key %r" % row["pk"])
                seen += [name for name, value, _, _ in row["attrs"] if value == ("str", "x" * 1048576)]
            nxt, token = one(rng, 3), one(rng, 4)
            if not nxt:
                check(not token, "a next_token %r without next_start_primary_key" % token)
                break
            check(token, "page %d ended at the row it holds without a next_token" % pages)
            start = nxt
            check(pages < 10, "paging ends")
        check(pages >= 2 and sorted(seen) == ["c%d" % i for i in range(6)],
              "%d pages, columns %r" % (pages, seen))
        bad = send("GetRange", f_bytes(1, table) + f_varint(2, 0) + f_varint(5, 1) + f_bytes(7, inf)
                   + f_bytes(8, sup) + f_bytes(13, b"\x00\x01"))
        expect_error(bad, 400, "OTSParameterInvalid", "The token is invalid.")
    finally:
        send("DeleteTable", f_bytes(1, table))
    return "6 columns of 1 MB over %d pages, each column once; a token ots did not give refused" % pages


@test
def compute_split_points_by_size():
    """ComputeSplitPointsBySize (the Node SDK has none): the key schema; no split point for a
    table within one split (100 MB units); with split_size_unit_in_byte, points of the
    partition key alone, increasing, one location for every split, and ranges between
    them (as the Java SDK makes them: the other key columns INF_MIN) that together hold
    every row, none empty."""
    table = TABLE + "_splits"
    expect_ok(send("CreateTable", create_table_body(table)))
    try:
        reply = expect_ok(send("ComputeSplitPointsBySize", f_bytes(1, table) + f_varint(2, 1)))
        consumed = pb_decode(one(reply, 1))
        check(one(pb_decode(one(consumed, 1)), 1, 0) >= 0, "consumed %r" % consumed)
        schema = [pb_decode(c) for c in reply.get(2, [])]
        names = [(one(c, 1).decode(), one(c, 2)) for c in schema]
        check(names == [("pk", 2), ("n", 1)], "schema %r" % names)
        check(not reply.get(3), "split points of an empty table %r" % reply.get(3))

        def sint64(v):
            return (v >> 1) ^ -(v & 1)

        def repeat_of(reply):
            locations = [pb_decode(l) for l in reply.get(4, [])]
            return sint64(one(locations[0], 2, 0)) if len(locations) == 1 else None

        check(repeat_of(reply) == 1, "locations of one split %r" % reply.get(4))
        for i in range(300):
            expect_ok(send("PutRow", put_row_body(table, pb_row(key_of("k%03d" % i, i % 3), [("v", Val("str", "x" * 500), None, None)]))))
        # split_size 40 units of 1000 bytes
        reply = expect_ok(send("ComputeSplitPointsBySize", f_bytes(1, table) + f_varint(2, 40) + f_varint(3, 1000)))
        points = [pb_decode_rows(p)[0] for p in reply.get(3, [])]
        keys = [row["pk"][0][1][1] for row in points]
        check(all(len(row["pk"]) == 1 and row["pk"][0][0] == "pk" and not row["attrs"] for row in points),
              "split points hold the partition key alone: %r" % points)
        check(len(keys) >= 2 and keys == sorted(set(keys)), "split points %r" % keys)
        check(repeat_of(reply) == len(keys) + 1, "locations %r for %d points" % (reply.get(4), len(keys)))
        bounds = [None] + keys + [None]
        counts = []
        for lo, hi in zip(bounds, bounds[1:]):
            start = pb_row([("pk", Val("str", lo) if lo else Val("inf_min")), ("n", Val("inf_min"))])
            end = pb_row([("pk", Val("str", hi) if hi else Val("inf_max")), ("n", Val("inf_min") if hi else Val("inf_max"))])
            rng = expect_ok(send("GetRange", f_bytes(1, table) + f_varint(2, 0) + f_varint(5, 1) + f_bytes(7, start) + f_bytes(8, end)))
            counts.append(len(pb_decode_rows(one(rng, 2))) if one(rng, 2) else 0)
        check(sum(counts) == 300 and min(counts) > 0, "rows per range %r" % counts)
        limited = expect_ok(send("ComputeSplitPointsBySize", f_bytes(1, table) + f_varint(2, 40) + f_varint(3, 1000)
                                 + f_varint(4, 2)))
        check(len(limited.get(3, [])) == 2 and repeat_of(limited) == 3, "split_point_limit 2: %r" % limited.get(3))
        bad = send("ComputeSplitPointsBySize", f_bytes(1, table) + f_varint(2, 0))
        expect_error(bad, 400, "OTSParameterInvalid")
        missing = send("ComputeSplitPointsBySize", f_bytes(1, table + "_none") + f_varint(2, 1))
        expect_error(missing, 404, "OTSObjectNotExist", "Requested table does not exist.")
    finally:
        send("DeleteTable", f_bytes(1, table))
    return ("schema pk STRING, n INTEGER; one split of an empty table; %d points over 300 rows, rows per "
            "range %s; a limit of 2; size 0 and a missing table refused" % (len(keys), counts))


@test
def defined_columns_added_and_deleted():
    """AddDefinedColumn and DeleteDefinedColumn (the Node SDK has neither; the
    Python and Go SDKs call them): DescribeTable's table_meta shows the change,
    the columns in the order they were defined (the Python SDK's
    test_add_defined_column asserts it)."""
    table = TABLE + "_defined"
    expect_ok(send("CreateTable", create_table_body(table)))
    try:
        def defined():
            meta = pb_decode(one(expect_ok(send("DescribeTable", f_bytes(1, table))), 1))
            return [(one(c, 1).decode(), one(c, 2)) for c in (pb_decode(x) for x in meta.get(3, []))]
        # DCT_INTEGER 1, DCT_STRING 4, DCT_BLOB 7
        column = lambda name, t: f_bytes(2, f_bytes(1, name) + f_varint(2, t))
        expect_ok(send("AddDefinedColumn", f_bytes(1, table) + column("score", 1) + column("tag", 4)
                       + column("raw", 7)))
        added = defined()
        check(added == [("score", 1), ("tag", 4), ("raw", 7)], "after AddDefinedColumn: %r" % added)
        expect_ok(send("AddDefinedColumn", f_bytes(1, table) + column("alpha", 4)))
        appended = defined()
        check(appended == [("score", 1), ("tag", 4), ("raw", 7), ("alpha", 4)],
              "after a second AddDefinedColumn: %r" % appended)
        expect_ok(send("DeleteDefinedColumn", f_bytes(1, table) + f_bytes(2, "score") + f_bytes(2, "raw")))
        left = defined()
        check(left == [("tag", 4), ("alpha", 4)], "after DeleteDefinedColumn: %r" % left)
        expect_error(send("AddDefinedColumn", f_bytes(1, table) + column("tag", 4)), 400, "OTSParameterInvalid")
        expect_error(send("AddDefinedColumn", f_bytes(1, table + "_none") + column("x", 1)),
                     404, "OTSObjectNotExist", "Requested table does not exist.")
        expect_error(send("DeleteDefinedColumn", f_bytes(1, table + "_none") + f_bytes(2, "tag")),
                     404, "OTSObjectNotExist", "Requested table does not exist.")
    finally:
        send("DeleteTable", f_bytes(1, table))
    return "added score, tag, raw, then alpha, in that order; deleted score, raw; a repeated column 400, a missing table 404"


@test
def get_range_simple_row_matrix():
    """GetRange with data_block_type_hint DBT_SIMPLE_ROW_MATRIX (the Go SDK's choice): the
    rows as a SimpleRowMatrix block, read as the Java SDK's parser reads it: the key
    columns, then every attribute column (or those asked for), each row's newest value
    (of the 3 versions read) or none; data_block_type says so; without the hint,
    PlainBuffer as before."""
    table = TABLE + "_matrix"
    expect_ok(send("CreateTable", create_table_body(table, options=f_varint(2, 3))))
    try:
        expect_ok(send("PutRow", put_row_body(table, pb_row(key_of("a", 1), [
            ("s", Val("str", "older"), None, None), ("i", Val("int", -5), None, None),
            ("d", Val("dbl", 2.5), None, None), ("b", Val("bool", True), None, None), ("z", Val("bin", b"\x00\x01"), None, None)]))))
        # a newer version of s: the block holds the newest
        time.sleep(0.01)
        expect_ok(send("UpdateRow", put_row_body(table, pb_row(key_of("a", 1), [("s", Val("str", "newer"), None, None)]))))
        expect_ok(send("PutRow", put_row_body(table, pb_row(key_of("b", 2), [("i", Val("int", 7), None, None)]))))
        start = pb_row([("pk", Val("inf_min")), ("n", Val("inf_min"))])
        end = pb_row([("pk", Val("inf_max")), ("n", Val("inf_max"))])
        base = f_bytes(1, table) + f_varint(2, 0) + f_varint(5, 3) + f_bytes(7, start) + f_bytes(8, end)
        reply = expect_ok(send("GetRange", base + f_varint(15, 1)))
        check(one(reply, 5) == 1, "data_block_type %r" % one(reply, 5))
        names, npk, rows = srm_decode(one(reply, 2))
        check(names == ["pk", "n", "b", "d", "i", "s", "z"] and npk == 2, "columns %r, %d key columns" % (names, npk))
        check(rows == [["a", 1, True, 2.5, -5, "newer", b"\x00\x01"], ["b", 2, None, None, 7, None, None]],
              "rows %r" % rows)
        asked = expect_ok(send("GetRange", base + f_bytes(3, "s") + f_bytes(3, "n") + f_bytes(3, "none") + f_varint(15, 1)))
        names2, _, rows2 = srm_decode(one(asked, 2))
        check(names2 == ["pk", "n", "s", "none"] and rows2 == [["a", 1, "newer", None], ["b", 2, None, None]],
              "with columns_to_get: %r %r" % (names2, rows2))
        empty = expect_ok(send("GetRange", f_bytes(1, table) + f_varint(2, 0) + f_varint(5, 1)
                               + f_bytes(7, pb_row(key_of("c", 0))) + f_bytes(8, pb_row(key_of("d", 0))) + f_varint(15, 1)))
        check(srm_decode(one(empty, 2))[2] == [], "an empty page: %r" % one(empty, 2))
        plain = expect_ok(send("GetRange", base))
        check(not one(plain, 5) and len(pb_decode_rows(one(plain, 2))) == 2, "without the hint: %r" % one(plain, 5))
    finally:
        send("DeleteTable", f_bytes(1, table))
    return "columns %s; rows %r; columns_to_get and an empty page; PlainBuffer without the hint" % (names, rows)


@test
def bulk_import_and_export():
    """BulkImport (Tablestore's bulk row write: PUT, UPDATE, DELETE rows of one table without
    conditions, a result per row) and BulkExport (the range's newest values, forward, as a
    SimpleRowMatrix block unless PlainBuffer is asked for, with next_start_primary_key)."""
    table = TABLE + "_bulk"
    expect_ok(send("CreateTable", create_table_body(table)))
    try:
        def row_in(op, row):
            return f_bytes(2, f_varint(1, op) + f_bytes(2, row))
        body = f_bytes(1, table)
        for i in range(5):
            body += row_in(1, pb_row(key_of("r%d" % i, i), [("v", Val("int", i), None, None), ("s", Val("str", "x%d" % i), None, None)]))
        body += row_in(2, pb_row(key_of("r1", 1), [("v", Val("int", 100), None, None)]))
        body += row_in(3, pb_row(key_of("r2", 2), delete=True))
        # an increment of a String column fails, alone
        body += row_in(2, pb_row(key_of("r3", 3), [("s", Val("int", 1), None, OP_INCREMENT)]))
        reply = expect_ok(send("BulkImport", body))
        check(one(reply, 1).decode() == table, "BulkImport table_name %r" % one(reply, 1))
        results = [pb_decode(r) for r in reply.get(2, [])]
        oks = [one(r, 1) for r in results]
        check(oks == [1, 1, 1, 1, 1, 1, 1, 0], "BulkImport results %r" % oks)
        error = pb_decode(one(results[-1], 2))
        check(one(error, 1).decode() == "OTSParameterInvalid", "the failed row's error %r" % error)
        check(all(one(r, 3) for r in results[:-1]), "consumed of each written row")

        start = pb_row([("pk", Val("inf_min")), ("n", Val("inf_min"))])
        end = pb_row([("pk", Val("inf_max")), ("n", Val("inf_max"))])
        export = expect_ok(send("BulkExport", f_bytes(1, table) + f_bytes(2, "v") + f_bytes(3, start) + f_bytes(4, end)))
        check(one(export, 4) == 1, "BulkExport data_block_type %r (SimpleRowMatrix by default)" % one(export, 4))
        names, npk, rows = srm_decode(one(export, 2))
        check(names == ["pk", "n", "v"] and rows == [["r0", 0, 0], ["r1", 1, 100], ["r3", 3, 3], ["r4", 4, 4]],
              "BulkExport rows %r %r" % (names, rows))
        check(not one(export, 3), "BulkExport next_start_primary_key %r" % one(export, 3))
        plain = expect_ok(send("BulkExport", f_bytes(1, table) + f_bytes(3, start) + f_bytes(4, end) + f_varint(6, 0)))
        check(one(plain, 4) == 0, "BulkExport data_block_type %r with DBT_PLAIN_BUFFER" % one(plain, 4))
        decoded = pb_decode_rows(one(plain, 2))
        check([r["pk"][0][1][1] for r in decoded] == ["r0", "r1", "r3", "r4"] and
              all(len(r["attrs"]) == 2 for r in decoded), "BulkExport PlainBuffer rows %r" % decoded)
        expect_error(send("BulkExport", f_bytes(1, table + "_none") + f_bytes(3, start) + f_bytes(4, end)),
                     404, "OTSObjectNotExist", "Requested table does not exist.")
        # rows of 2.7 MB: a page of 4 MB ends between rows (BulkExport has no next_token),
        # and paging by next_start_primary_key reads each row whole, once
        for pk in ("w1", "w2", "w3"):
            expect_ok(send("PutRow", put_row_body(table, pb_row(key_of(pk, 9), [
                ("c%d" % c, Val("str", pk * 450000), None, None) for c in range(3)]))))
        seen = []
        body = f_bytes(1, table) + f_bytes(3, pb_row([("pk", Val("str", "w")), ("n", Val("inf_min"))])) + f_bytes(4, end)
        for _ in range(10):
            page = expect_ok(send("BulkExport", body))
            names3, _, rows3 = srm_decode(one(page, 2))
            seen += [(r[0], [len(v) for v in r[2:]]) for r in rows3]
            nxt = one(page, 3)
            if not nxt:
                break
            body = f_bytes(1, table) + f_bytes(3, nxt) + f_bytes(4, end)
        check(seen == [(pk, [900000] * 3) for pk in ("w1", "w2", "w3")], "wide rows exported %r" % seen)
    finally:
        send("DeleteTable", f_bytes(1, table))
    return "8 rows imported (1 refused alone), exported as a SimpleRowMatrix %r and as PlainBuffer" % rows


@test
def deflated_bodies_and_sts():
    """The Java SDK's compression options: a request body deflated (zlib) with
    x-ots-request-compress-type/-size, its MD5 of the deflated bytes; a reply deflated when
    x-ots-response-compress-type asks, its MD5 of the inflated bytes and its compress headers
    signed (check_reply_headers inflates and checks both). A bad type or size is 400; an STS
    token is refused 403 with a clear message."""
    table = TABLE + "_deflate"
    expect_ok(send("CreateTable", create_table_body(table)))
    try:
        raw = put_row_body(table, pb_row(key_of("z", 1), [("v", Val("str", "y" * 2000), None, None)]))
        packed = zlib.compress(raw)
        expect_ok(send("PutRow", packed, override={"x-ots-request-compress-type": "deflate",
                                                  "x-ots-request-compress-size": str(len(raw))}))
        got = send("GetRow", get_row_body(table, pb_row(key_of("z", 1))),
                   override={"x-ots-response-compress-type": "deflate"})
        check("x-ots-response-compress-type" in got.headers, "no deflated reply: %r" % got.headers)
        rows = pb_decode_rows(one(expect_ok(got), 2))
        check(rows[0]["attrs"][0][1] == ("str", "y" * 2000), "the row read back %r" % rows[0]["attrs"][:1])
        # both ways at once
        both = send("GetRow", zlib.compress(get_row_body(table, pb_row(key_of("z", 1)))),
                    override={"x-ots-request-compress-type": "deflate",
                              "x-ots-request-compress-size": str(len(get_row_body(table, pb_row(key_of("z", 1))))),
                              "x-ots-response-compress-type": "deflate"})
        check(len(pb_decode_rows(one(expect_ok(both), 2))) == 1, "deflated both ways")
        shown = [expect_error(send("PutRow", packed, override={"x-ots-request-compress-type": "gzip",
                                                               "x-ots-request-compress-size": str(len(raw))}),
                              400, "OTSParameterInvalid", "Unsupported compress type: 'gzip'."),
                 expect_error(send("PutRow", packed, override={"x-ots-request-compress-type": "deflate",
                                                               "x-ots-request-compress-size": str(len(raw) + 1)}),
                              400, "OTSParameterInvalid"),
                 expect_error(send("PutRow", raw, override={"x-ots-request-compress-type": "deflate",
                                                            "x-ots-request-compress-size": str(len(raw))}),
                              400, "OTSParameterInvalid"),
                 expect_error(send("PutRow", packed, override={"x-ots-request-compress-type": "deflate"}),
                              400, "OTSParameterInvalid"),
                 expect_error(send("PutRow", packed, override={"x-ots-request-compress-type": "deflate",
                                                               "x-ots-request-compress-size": str(5 * 1024 * 1024 + 1)}),
                              400, "OTSParameterInvalid")]
    finally:
        send("DeleteTable", f_bytes(1, table))
    return "deflated request, reply and both; refused: " + "; ".join(shown)


@test
def sts_token_as_configured():
    """Temporary (STS) credentials are accepted as otsd's configuration names them: a key
    configured with a token (access_key = <id> <secret> <role> <token>) serves the requests
    that bring it, signed with the token among their x-ots-* headers, and refuses those
    without it or with another; a key without one refuses any token. Each refusal comes
    after the signature, signed (the client holds the secret)."""
    fields = expect_ok(send("ListTable", key_id=STS_ID, secret=STS_SECRET, override={"x-ots-ststoken": STS_TOKEN}))
    check(TABLE in [v.decode() for v in fields.get(1, [])], "the temporary key's role sees %s" % TABLE)
    mismatch = "The STS token is missing or does not match the access key's."
    shown = [expect_error(send("ListTable", key_id=STS_ID, secret=STS_SECRET), 403, "OTSAuthFailed", mismatch),
             expect_error(send("ListTable", key_id=STS_ID, secret=STS_SECRET,
                               override={"x-ots-ststoken": STS_TOKEN[:-1]}), 403, "OTSAuthFailed", mismatch),
             expect_error(send("ListTable", override={"x-ots-ststoken": STS_TOKEN}), 403, "OTSAuthFailed",
                          "STS tokens are not accepted for this access key: sign with a key of otsd's configuration.")]
    # the token is signed: added after signing it is a bad signature, and without the secret
    # the right token gets the answer any bad signature gets (no oracle)
    headers = {"x-ots-date": iso_now(), "x-ots-apiversion": API_VERSION, "x-ots-accesskeyid": STS_ID,
               "x-ots-instancename": INSTANCE, "x-ots-contentmd5": base64.b64encode(hashlib.md5(b"").digest()).decode()}
    headers["x-ots-signature"] = sign_request("/ListTable", "POST", headers, STS_SECRET)
    headers["x-ots-ststoken"] = STS_TOKEN
    shown += [expect_error(send("ListTable", key_id=STS_ID, sign=False, override=headers, authenticated=False),
                           403, "OTSAuthFailed", "Signature mismatch."),
              expect_error(send("ListTable", key_id=STS_ID, secret="not-the-secret",
                                override={"x-ots-ststoken": STS_TOKEN}, authenticated=False),
                           403, "OTSAuthFailed", "Signature mismatch.")]
    return "served with its token; refused: " + "; ".join(shown)


@test
def v4_signatures():
    """The Java SDK's V4 signatures (x-ots-signaturev4, x-ots-signdate, x-ots-signregion):
    accepted, the reply signed with the V4 signing key (check_reply_headers verifies it);
    a wrong secret 403, a signing date two days off 403, a missing region 400."""
    listed = expect_ok(send_v4("ListTable"))
    # a body too: DescribeTable of a table that is not there, V4-signed, answered 404 and signed
    expect_error(send_v4("DescribeTable", f_bytes(1, TABLE + "_v4_none")), 404, "OTSObjectNotExist")
    shown = [expect_error(send_v4("ListTable", secret="not-the-secret"), 403, "OTSAuthFailed", "Signature mismatch."),
             expect_error(send_v4("ListTable", key_id="noSuchKey"), 403, "OTSAuthFailed", "Signature mismatch."),
             expect_error(send_v4("ListTable", sent_region="elsewhere"), 403, "OTSAuthFailed", "Signature mismatch."),
             expect_error(send_v4("ListTable", sign_date=(datetime.datetime.now(datetime.timezone.utc)
                                                          - datetime.timedelta(days=2)).strftime("%Y%m%d")),
                          403, "OTSAuthFailed"),
             expect_error(send_v4("ListTable", drop=("x-ots-signregion",), authenticated=False), 400, "OTSMissingHeader",
                          "Missing header: 'x-ots-signregion'.")]
    return "ListTable V4-signed (%d tables); refused: %s" % (len(listed.get(1, [])), "; ".join(shown))


@test
def regex_and_exist_filters():
    """SingleColumnValueFilter with CT_EXIST / CT_NOT_EXIST (7, 8) and a ValueTransferRule
    (field 6: regex, cast_type), as the Java SDK's SingleColumnValueRegexFilter sends them
    (filter_if_missing true, a value even for EXIST); refused until now as unsupported."""
    table = TABLE + "_regex"
    expect_ok(send("CreateTable", create_table_body(table)))
    try:
        rows = {("a", 1): [("j", Val("str", "{cluster:a,lastupdatetime:12345}"))],
                ("b", 2): [("j", Val("str", "{cluster:b,lastupdatetime:99}"))],
                ("c", 3): [("k", Val("int", 1))]}
        for (pk, n), attrs in rows.items():
            expect_ok(send("PutRow", put_row_body(table, pb_row(key_of(pk, n), [(c, v, None, None) for c, v in attrs]))))

        def single(comparator, column, value, regex=None, cast=None):
            body = f_varint(1, comparator) + f_bytes(2, column) + f_bytes(3, value.encode()[1])
            body += f_varint(4, 1) + f_varint(5, 1)
            if regex is not None:
                body += f_bytes(6, f_bytes(1, regex) + (f_varint(2, cast) if cast is not None else b""))
            return f_varint(1, 1) + f_bytes(2, body)

        def passing(flt):
            got = []
            for pk, n in sorted(rows):
                fields = expect_ok(send("GetRow", get_row_body(table, pb_row(key_of(pk, n))) + f_bytes(7, flt)))
                if one(fields, 2):
                    got.append(pk)
            return ",".join(got) or "-"

        # VT_INTEGER 0, VT_DOUBLE 1, VT_STRING 3; CT_GREATER_THAN 3, CT_EXIST 7, CT_NOT_EXIST 8
        cases = [
            (single(3, "j", Val("int", 100), "lastupdatetime:([0-9]+)", 0), "a"),
            (single(3, "j", Val("dbl", 50.5), "lastupdatetime:([0-9]+)", 1), "a,b"),
            (single(1, "j", Val("str", "cluster:b"), "cluster:[a-z]", 3), "b"),
            (single(1, "j", Val("str", "cluster:b"), "cluster:[a-z]"), "b"),
            (single(7, "j", Val("int", 0), "lastupdatetime"), "a,b"),
            (single(8, "j", Val("int", 0), "lastupdatetime:1"), "b,c"),
            (single(7, "k", Val("int", 0)), "c"),
            (single(8, "k", Val("int", 0)), "a,b"),
        ]
        shown = []
        for flt, want in cases:
            got = passing(flt)
            check(got == want, "filter %r: rows %s, expected %s" % (flt, got, want))
            shown.append(got)
        expect_error(send("GetRow", get_row_body(table, pb_row(key_of("a", 1)))
                          + f_bytes(7, single(7, "j", Val("int", 0), "("))),
                     400, "OTSParameterInvalid", "Invalid regex in filter of column 'j'.")
        expect_error(send("GetRow", get_row_body(table, pb_row(key_of("a", 1)))
                          + f_bytes(7, single(7, "j", Val("int", 0), "x", 7))),
                     400, "OTSParameterInvalid")
    finally:
        send("DeleteTable", f_bytes(1, table))
    return "regex with INTEGER, DOUBLE, STRING and no cast, EXIST and NOT_EXIST with and without a regex: " + " ".join(shown) + "; a bad regex and cast type 400"


@test
def update_full_row_kept_and_fixed():
    """TableOptions.update_full_row (field 7): CreateTable keeps it, DescribeTable
    shows it (false when not given), UpdateTable refuses it with any value, as
    Tablestore does (the Go SDK's TestUpdateAndDescribeTable; its effect on
    updates: sql/update_full_row.sql)."""
    table, plain = TABLE + "_ufr", TABLE + "_ufr_no"
    expect_ok(send("CreateTable", create_table_body(table, options=f_varint(7, 1))))
    expect_ok(send("CreateTable", create_table_body(plain)))
    try:
        def full_row(t):
            options = pb_decode(one(expect_ok(send("DescribeTable", f_bytes(1, t))), 3))
            return options.get(7)
        check(full_row(table) == [1], "DescribeTable of the table made with it: %r" % full_row(table))
        check(full_row(plain) == [0], "DescribeTable of a table made without it: %r" % full_row(plain))
        refused = "An UpdateTable request must not contain updateFullRow."
        expect_error(send("UpdateTable", f_bytes(1, table) + f_bytes(3, f_varint(7, 0))),
                     400, "OTSParameterInvalid", refused)
        expect_error(send("UpdateTable", f_bytes(1, plain) + f_bytes(3, f_varint(2, 2) + f_varint(7, 1))),
                     400, "OTSParameterInvalid", refused)
        expect_error(send("UpdateTable", f_bytes(1, table) + f_bytes(3, f_varint(2, 1) + f_varint(7, 1))),
                     400, "OTSParameterInvalid", refused)
        check(full_row(table) == [1], "after UpdateTable: %r" % full_row(table))
        options = pb_decode(one(expect_ok(send("DescribeTable", f_bytes(1, plain))), 3))
        check(options.get(2) == [1], "max_versions changed by a refused UpdateTable: %r" % options.get(2))
    finally:
        send("DeleteTable", f_bytes(1, table))
        send("DeleteTable", f_bytes(1, plain))
    return "kept, shown, refused 400 by UpdateTable with either value, nothing changed"


@test
def stream_original_columns():
    """StreamSpecification.columns_to_get (OriginColumnsToGet): CreateTable and
    UpdateTable keep them, DescribeTable shows them (StreamDetails field 5), and
    a record of a change of an existing row carries origin_record, a row of the
    columns' values before it (the Go SDK's TestCreateTableWithOriginColumn and
    TestUpdateAndDescribeTable). The table's name has upper-case letters:
    GetStreamRecord read no record of such a table (the Go SDK's TestStream)."""
    table = "Gw_Origin_%d" % os.getpid()
    spec = lambda cols: f_varint(1, 1) + f_varint(2, 24) + b"".join(f_bytes(3, c) for c in cols)
    # (cells at old timestamps: max_version_offset as large as it goes)
    body = create_table_body(table, options=f_varint(5, 9223372036854))
    expect_ok(send("CreateTable", body + f_bytes(5, spec(["c", "a"]))))
    try:
        def original():
            details = pb_decode(one(expect_ok(send("DescribeTable", f_bytes(1, table))), 5))
            return [c.decode() for c in details.get(5, [])]
        check(original() == ["a", "c"], "DescribeTable after CreateTable: %r" % original())
        expect_ok(send("PutRow", put_row_body(table, pb_row(key_of("o", 1), [
            ("a", Val("int", 1), 1000, None), ("b", Val("int", 2), 1000, None), ("c", Val("str", "x"), 1000, None)]))))
        expect_ok(send("UpdateRow", put_row_body(table, pb_row(key_of("o", 1), [
            ("a", Val("int", 4), 2000, None), ("c", None, None, OP_DELETE_ALL)]))))

        stream_id = one(pb_decode(one(expect_ok(send("ListStream", f_bytes(1, table))), 1)), 1).decode()
        desc = expect_ok(send("DescribeStream", f_bytes(1, stream_id)))
        records = []
        for shard in [one(pb_decode(x), 1).decode() for x in desc.get(6, [])]:
            iterator = one(expect_ok(send("GetShardIterator", f_bytes(1, stream_id) + f_bytes(2, shard))), 1).decode()
            recs = expect_ok(send("GetStreamRecord", f_bytes(1, iterator) + f_varint(2, 100)))
            records += [pb_decode(r) for r in recs.get(1, [])]
        check([one(r, 1) for r in records] == [1, 2], "records' actions %r" % [one(r, 1) for r in records])
        check(3 not in records[0], "the PutRow of a new row has an origin_record")
        origin = pb_decode_rows(one(records[1], 3))
        check(len(origin) == 1 and origin[0]["pk"] == [("pk", ("str", "o")), ("n", ("int", 1))],
              "origin_record key %r" % origin)
        check(origin[0]["attrs"] == [("a", ("int", 1), 1000, None), ("c", ("str", "x"), 1000, None)],
              "origin_record cells %r" % origin[0]["attrs"])

        expect_ok(send("UpdateTable", f_bytes(1, table) + f_bytes(4, spec(["b"]))))
        check(original() == ["b"], "DescribeTable after UpdateTable: %r" % original())
        expect_ok(send("UpdateTable", f_bytes(1, table) + f_bytes(4, spec([]))))
        check(original() == ["b"], "an UpdateTable without columns changed them: %r" % original())
        # columns with a disabled stream: refused, nothing changed
        expect_error(send("UpdateTable", f_bytes(1, table) + f_bytes(4, f_varint(1, 0) + f_bytes(3, "a"))),
                     400, "OTSParameterInvalid", "Original columns can only be set on a table with a stream.")
        check(original() == ["b"], "a refused UpdateTable changed them: %r" % original())
    finally:
        send("DeleteTable", f_bytes(1, table))
    return "kept by CreateTable and UpdateTable, shown, origin_record of an UpdateRow checked cell by cell"


@test
def bad_signature():
    # Tablestore: 403 OTSAuthFailed "Signature mismatch." (error list; Python SDK test_signature_mismatch)
    return expect_error(send("ListTable", bad_signature=True), 403, "OTSAuthFailed", "Signature mismatch.")


@test
def signature_with_wrong_secret():
    return expect_error(send("ListTable", secret="not-the-secret"), 403, "OTSAuthFailed", "Signature mismatch.")


@test
def signature_of_another_action():
    # signed as /ListTable, sent to /DescribeTable
    headers = {"x-ots-date": iso_now(), "x-ots-apiversion": API_VERSION, "x-ots-accesskeyid": KEY_ID,
               "x-ots-instancename": INSTANCE, "x-ots-contentmd5": base64.b64encode(hashlib.md5(b"").digest()).decode()}
    headers["x-ots-signature"] = sign_request("/ListTable", "POST", headers, SECRET)
    reply = send("DescribeTable", b"", override=headers, sign=False)
    return expect_error(reply, 403, "OTSAuthFailed", "Signature mismatch.")


@test
def unknown_access_key():
    """An unknown access key id is answered exactly as a known key with a wrong signature
    (status, code, message, no response signature): a client without a secret must not learn
    which key ids exist, which in a shared otsd name its tenants. Tablestore itself answers
    "The AccessKeyID does not exist." (its error list; the Python SDK's test_access_id_not_exist):
    docs/gateway.md says why otsd does not."""
    unknown = send("ListTable", key_id="noSuchKeyId", secret="x")
    wrong = send("ListTable", secret="x")
    shown = expect_error(unknown, 403, "OTSAuthFailed", "Signature mismatch.")
    check((unknown.status, unknown.code, unknown.message) == (wrong.status, wrong.code, wrong.message),
          "unknown key %r, known key with a wrong signature %r" % (unknown, wrong))
    check("authorization" not in unknown.headers and "authorization" not in wrong.headers,
          "a reply signed: %r / %r" % (unknown.headers.get("authorization"), wrong.headers.get("authorization")))
    return "both " + shown


@test
def wrong_instance():
    # 403 OTSAuthFailed "The instance is not found." (error list; Python SDK test_instance_not_found)
    return expect_error(send("ListTable", instance="otherinstance"), 403, "OTSAuthFailed", "The instance is not found.")


@test
def stale_date():
    # 403 OTSAuthFailed "Mismatch between system time and x-ots-date: {date}." (error list; test_date_expired)
    date = iso_now(-20 * 60)
    return expect_error(send("ListTable", date=date), 403, "OTSAuthFailed",
                        "Mismatch between system time and x-ots-date: %s." % date)


@test
def future_date():
    date = rfc822_now(20 * 60)
    return expect_error(send("ListTable", date=date), 403, "OTSAuthFailed",
                        "Mismatch between system time and x-ots-date: %s." % date)


@test
def invalid_date():
    # 400 OTSParameterInvalid "Invalid date format: blahblah." (error list; test_invalid_date_format)
    return expect_error(send("ListTable", date="blahblah", authenticated=False), 400, "OTSParameterInvalid", "Invalid date format: blahblah.")


@test
def missing_headers():
    # 400 "Missing header: ..." — the error list says OTSParameterInvalid, the
    # Python SDK's test_missing_header (older service) OTSMissingHeader with
    # the name in quotes: both accepted
    seen = []
    for name in ("x-ots-date", "x-ots-signature", "x-ots-accesskeyid", "x-ots-instancename"):
        reply = send("ListTable", drop=(name,), authenticated=False)
        expect_error(reply, 400, ["OTSParameterInvalid", "OTSMissingHeader"],
                     ["Missing header: '%s'." % name, "Missing header: %s." % name])
        seen.append(name)
    return "each of %s: 400 %s %r" % (", ".join(seen), reply.code, reply.message)


@test
def missing_content_md5():
    # the Python SDK's test_missing_header has Tablestore refuse a request without
    # x-ots-contentmd5 like the other required headers (all its SDKs send it)
    name = "x-ots-contentmd5"
    reply = send("ListTable", drop=(name,), authenticated=False)
    return expect_error(reply, 400, ["OTSParameterInvalid", "OTSMissingHeader"],
                        ["Missing header: '%s'." % name, "Missing header: %s." % name])


@test
def missing_api_version():
    # no exact text known (the Python SDK's test only asserts a 403); a 4xx Error of Tablestore's
    reply = send("ListTable", drop=("x-ots-apiversion",), authenticated=False)
    check(400 <= reply.status < 500 and reply.code and reply.code.startswith("OTS"), "%r" % reply)
    return "%d %s %r" % (reply.status, reply.code, reply.message)


@test
def bad_content_md5():
    # 403 OTSAuthFailed "Mismatch between MD5 value of request body and x-ots-contentmd5 in header."
    body = f_bytes(1, TABLE)
    reply = send("DescribeTable", body, override={"x-ots-contentmd5": base64.b64encode(hashlib.md5(b"other").digest()).decode()})
    return expect_error(reply, 403, "OTSAuthFailed",
                        "Mismatch between MD5 value of request body and x-ots-contentmd5 in header.")


@test
def unknown_action():
    # 400 "Unsupported operation: ..." — error list: OTSParameterInvalid; Python SDK's
    # test_operation_not_supported: OTSUnsupportOperation "Unsupported operation: 'HelloWorld'."
    reply = send("HelloWorld", authenticated=False)
    return expect_error(reply, 400, ["OTSParameterInvalid", "OTSUnsupportOperation"],
                        ["Unsupported operation: 'HelloWorld'.", "Unsupported operation: HelloWorld."])


@test
def get_instead_of_post():
    # 405 OTSMethodNotAllowed "Only POST method for requests is supported." (test_invalid_http_method)
    reply = send("ListTable", method="GET", authenticated=False)
    out = expect_error(reply, 405, "OTSMethodNotAllowed", "Only POST method for requests is supported.")
    put = send("ListTable", method="PUT", authenticated=False)
    expect_error(put, 405, "OTSMethodNotAllowed", "Only POST method for requests is supported.")
    head = send("ListTable", method="HEAD", authenticated=False)
    check(head.status == 405, "HEAD: %d" % head.status)
    return out + "; PUT the same; HEAD 405"


def send_large(action, body, expect_continue):
    """A request too large to be read whole: the reply may come before the body is
    sent, so write it in pieces and stop at the first byte of a reply."""
    path = "/" + action
    headers = {
        "x-ots-date": iso_now(), "x-ots-apiversion": API_VERSION, "x-ots-accesskeyid": KEY_ID,
        "x-ots-instancename": INSTANCE, "x-ots-contentmd5": base64.b64encode(hashlib.md5(body).digest()).decode(),
    }
    headers["x-ots-signature"] = sign_request(path, "POST", headers, SECRET)
    head = "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Length: %d\r\n" % (path, HOST, PORT, len(body))
    if expect_continue:
        head += "Expect: 100-continue\r\n"
    head += "".join("%s: %s\r\n" % kv for kv in headers.items()) + "Connection: close\r\n\r\n"
    sock = socket.create_connection((HOST, PORT), timeout=60)
    try:
        sock.sendall(head.encode())
        if expect_continue:
            readable, _, _ = select.select([sock], [], [], 5)
            check(readable, "no reply to Expect: 100-continue within 5 s")
            first = sock.recv(65536, socket.MSG_PEEK)
            if first.startswith(b"HTTP/1.1 100"):
                sock.recv(len(first.split(b"\r\n\r\n")[0]) + 4)
            else:
                body = b""
        sent = 0
        while sent < len(body):
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sent += sock.send(body[sent:sent + 65536])
            except (BrokenPipeError, ConnectionResetError):
                break
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        sock.close()
    check(data.startswith(b"HTTP/1."), "no HTTP reply (%d of %d body bytes sent): the client sees a broken connection"
          % (sent, len(body)))
    head_part, _, rest = data.partition(b"\r\n\r\n")
    lines = head_part.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    reply_headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        reply_headers[name.strip().lower()] = value.strip()
    if "content-length" in reply_headers:
        rest = rest[:int(reply_headers["content-length"])]
    reply = Reply(action, status, reply_headers, rest, KEY_ID, authenticated=False)
    check_reply_headers(reply)
    return reply


@test
def oversized_body():
    # 413 OTSRequestBodyTooLarge "The size of POST data is too large." (error list); 8 MiB is
    # past Tablestore's request limit (5 MB). Sent as the SDKs send it (no Expect header),
    # and with Expect: 100-continue (the reply must come before the body)
    body = f_bytes(1, TABLE) + f_bytes(2, b"x" * (8 << 20))
    out = expect_error(send_large("PutRow", body, False), 413, "OTSRequestBodyTooLarge", "The size of POST data is too large.")
    expect_error(send_large("PutRow", body, True), 413, "OTSRequestBodyTooLarge", "The size of POST data is too large.")
    return out + "; also with Expect: 100-continue"


PB_PARSE_MESSAGES = ["Failed to parse the ProtoBuf message.", "Parse PBMessage from RawString failed.",
                     "Cannot deserialize the request data."]


@test
def malformed_protobuf():
    # 400 OTSParameterInvalid "Failed to parse the ProtoBuf message." (Python SDK test_failed_parse_pb);
    # the error list also has "Parse PBMessage from RawString failed." and "Cannot deserialize the request data."
    shown = None
    for name, body in (("garbage", b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"),
                       ("truncated", f_bytes(1, TABLE)[:-3]),
                       ("wrong wire type", f_varint(1, 5)),
                       ("required field missing", b"")):
        reply = send("DescribeTable", body)
        try:
            shown = expect_error(reply, 400, "OTSParameterInvalid", PB_PARSE_MESSAGES)
        except Failure as e:
            raise Failure("%s: %s" % (name, e))
    return "garbage, truncated, wrong wire type, missing table_name: " + shown


def put_broken(row):
    return send("PutRow", put_row_body(TABLE, row))


@test
def plainbuffer_bad_row_checksum():
    reply = put_broken(pb_row(key_of("bad", 1), [("c", Val("str", "x"), None, None)], corrupt_row=True))
    return expect_error(reply, 400, "OTSParameterInvalid")


@test
def plainbuffer_bad_cell_checksum():
    out = expect_error(put_broken(pb_row(key_of("bad", 1), [("c", Val("str", "x"), None, None)], corrupt_cell=2)),
                       400, "OTSParameterInvalid")
    expect_error(send("GetRow", get_row_body(TABLE, pb_row(key_of("bad", 1), corrupt_cell=0))), 400, "OTSParameterInvalid")
    return out + " (and a key cell's in GetRow)"


@test
def plainbuffer_truncated():
    row = pb_row(key_of("bad", 1), [("c", Val("str", "xyz"), None, None)])
    shown = None
    for cut in (1, 3, 8, len(row) // 2, len(row) - 6):
        try:
            shown = expect_error(put_broken(row[:-cut]), 400, "OTSParameterInvalid")
        except Failure as e:
            raise Failure("cut %d bytes: %s" % (cut, e))
    # a length running past the end
    long_name = bytearray(row)
    long_name[4 + 1 + 1 + 1:4 + 1 + 1 + 1 + 4] = struct.pack("<I", 0x7FFFFFF0)
    expect_error(put_broken(bytes(long_name)), 400, "OTSParameterInvalid")
    return shown


@test
def plainbuffer_wrong_header():
    # "Cell data broken, mismatch header, actual: ..., expect: ..." in the error list
    return expect_error(put_broken(pb_row(key_of("bad", 1), [("c", Val("str", "x"), None, None)], header=0x76)),
                        400, "OTSParameterInvalid")


@test
def plainbuffer_wrong_tag():
    row = bytearray(pb_row(key_of("bad", 1), [("c", Val("str", "x"), None, None)]))
    row[4] = 0x0D  # a sequence-info tag where TAG_ROW_PK belongs
    return expect_error(put_broken(bytes(row)), 400, "OTSParameterInvalid")


@test
def nothing_written_by_broken_requests():
    got = expect_ok(send("GetRow", get_row_body(TABLE, pb_row(key_of("bad", 1)))))
    check(one(got, 2) == b"", "a broken PutRow wrote a row")
    return "no row 'bad'"


@test
def other_key_reply_signed_with_its_secret():
    reply = send("GetRow", get_row_body(TABLE, pb_row(key_of("a", 1))), key_id=OTHER_ID, secret=OTHER_SECRET)
    # gw_other has no privilege on gw_app's table: "You have no permission to access the requested resource..."
    out = expect_error(reply, 403, "OTSNoPermissionAccess")
    check(reply.headers.get("authorization", "").startswith("OTS %s:" % OTHER_ID), "signed for the other key")
    return out


@test
def stream_actions():
    """ListStream, DescribeStream, GetShardIterator, GetStreamRecord (the Node SDK has none of them)."""
    expect_ok(send("CreateTable", create_table_body(STREAM_TABLE, stream=True)))
    try:
        for i in range(3):
            expect_ok(send("PutRow", put_row_body(STREAM_TABLE, pb_row(key_of("s%d" % i, i), [("v", Val("int", i), None, None)]))))
        upd = pb_row(key_of("s0", 0), [("v", Val("int", 5), None, OP_INCREMENT), ("w", None, None, OP_DELETE_ALL)])
        expect_ok(send("UpdateRow", put_row_body(STREAM_TABLE, upd)))
        dele = pb_row(key_of("s1", 1), delete=True)
        expect_ok(send("DeleteRow", f_bytes(1, STREAM_TABLE) + f_bytes(2, dele) + f_bytes(3, f_varint(1, 0))))

        listed = expect_ok(send("ListStream", f_bytes(1, STREAM_TABLE)))
        streams = [pb_decode(s) for s in listed.get(1, [])]
        check(len(streams) == 1, "ListStream: %d streams" % len(streams))
        stream_id = one(streams[0], 1).decode()
        check(one(streams[0], 2).decode() == STREAM_TABLE, "ListStream table_name %r" % one(streams[0], 2))
        check(one(streams[0], 3, 0) > 0, "ListStream creation_time")

        desc = expect_ok(send("DescribeStream", f_bytes(1, stream_id)))
        check(one(desc, 1).decode() == stream_id, "DescribeStream stream_id")
        check(one(desc, 2) == 24, "expiration_time %r" % one(desc, 2))
        check(one(desc, 3).decode() == STREAM_TABLE, "DescribeStream table_name")
        check(one(desc, 5) in (1, 2), "stream_status %r" % one(desc, 5))
        shards = [one(pb_decode(s), 1).decode() for s in desc.get(6, [])]
        check(shards, "no shards")

        actions = []
        per_shard = []
        for shard in shards:
            per_shard.append([])
            it = expect_ok(send("GetShardIterator", f_bytes(1, stream_id) + f_bytes(2, shard)))
            iterator = one(it, 1).decode()
            for _ in range(100):
                recs = expect_ok(send("GetStreamRecord", f_bytes(1, iterator) + f_varint(2, 100)))
                for rec in recs.get(1, []):
                    r = pb_decode(rec)
                    rows = pb_decode_rows(one(r, 2))
                    check(len(rows) == 1, "a record of %d rows" % len(rows))
                    actions.append((one(r, 1), rows[0]["pk"][0][1][1], rows[0]))
                    per_shard[-1].append(rows[0].get("seq"))
                nxt = one(recs, 2)
                if not recs.get(1) or not nxt:
                    break
                iterator = nxt.decode()
        kinds = sorted((a, k) for a, k, _ in actions)
        check(kinds == [(1, "s0"), (1, "s1"), (1, "s2"), (2, "s0"), (3, "s1")],
              "records (action, key): %r" % kinds)
        update = [row for a, k, row in actions if a == 2][0]
        ops = sorted((name, op) for name, _, _, op in update["attrs"])
        check(ops == [("v", OP_INCREMENT), ("w", OP_DELETE_ALL)] or ops == [("v", None), ("w", OP_DELETE_ALL)],
              "UPDATE_ROW record cells %r" % ops)
        delete = [row for a, k, row in actions if a == 3][0]
        check(delete["deleted"], "DELETE_ROW record without its delete marker")
        # every record has its sequence info (the Go SDK: "extension in a stream record is
        # required."); within a shard, records come in the order of their sequence info
        seqs = [row.get("seq") for _, _, row in actions]
        check(all(s is not None for s in seqs), "records without sequence info: %r" % seqs)
        for shard_seqs in per_shard:
            check(shard_seqs == sorted(shard_seqs) and len(set(shard_seqs)) == len(shard_seqs),
                  "sequence info out of order in a shard: %r" % shard_seqs)
        return ("1 stream, %d shard(s), records PUT x3, UPDATE, DELETE with checksums and sequence "
                "info verified" % len(shards))
    finally:
        send("DeleteTable", f_bytes(1, STREAM_TABLE))


@test
def batch_get_row_refused_before_sql():
    """BatchGetRow refused while its tables are read (a broken key, no version condition, a bad
    name): each a 400. Under ASan (OTSD=<asan build>) LeakSanitizer reported the request's key
    list leaked on each of these paths."""
    key = pb_row(key_of("a", 1))
    shown = []
    for what, table, expected in (
            ("a broken key", f_bytes(1, TABLE) + f_bytes(2, key) + f_bytes(2, pb_row(key_of("a", 2), corrupt_row=True))
             + f_varint(6, 1), "Cell data broken, row checksum mismatch."),
            ("no version condition", f_bytes(1, TABLE) + f_bytes(2, key),
             "No version condition is specified while querying row."),
            ("a bad table name", f_bytes(1, "bad-name") + f_bytes(2, key) + f_varint(6, 1),
             "Invalid table name: 'bad-name'.")):
        try:
            shown.append(expect_error(send("BatchGetRow", f_bytes(1, table)), 400, "OTSParameterInvalid", expected))
        except Failure as e:
            raise Failure("%s: %s" % (what, e))
    return "; ".join(shown)


@test
def string_fields_not_utf8():
    """A protobuf string that is not UTF-8 (protobuf-c does not check) is the client's error:
    400 OTSParameterInvalid, not PostgreSQL's 'invalid byte sequence' as a 500."""
    shown = None
    for what, body in (("DescribeStream", f_bytes(1, b"\x99")),
                       ("GetShardIterator", f_bytes(1, b"\x8a") + f_bytes(2, "y")),
                       ("GetStreamRecord", f_bytes(1, b"x\xba:y")),
                       ("GetRow", get_row_body(TABLE, pb_row(key_of("a", 1))) + f_bytes(3, b"c\xff")),
                       # in a batch, such a name was left out of the request ots saw: all columns read
                       ("BatchGetRow", f_bytes(1, f_bytes(1, TABLE) + f_bytes(2, pb_row(key_of("a", 1)))
                                               + f_bytes(4, b"c\xff") + f_varint(6, 1))),
                       ("BatchGetRow start_column", f_bytes(1, f_bytes(1, TABLE) + f_bytes(2, pb_row(key_of("a", 1)))
                                                             + f_varint(6, 1) + f_bytes(9, b"c\xff"))),
                       ("BatchWriteRow return_column_names", f_bytes(1, f_bytes(1, TABLE) + f_bytes(2, f_varint(1, 2) + f_bytes(
                           2, pb_row(key_of("a", 1), [("v", Val("int", 1), None, None)])) + f_bytes(3, f_varint(1, 0))
                           + f_bytes(4, f_varint(1, 2) + f_bytes(2, b"c\xff")))))):
        try:
            shown = expect_error(send(what.split()[0], body), 400, "OTSParameterInvalid")
        except Failure as e:
            raise Failure("%s: %s" % (what, e))
    return "DescribeStream, GetShardIterator, GetStreamRecord, GetRow and BatchGetRow columns: " + shown


@test
def error_message_is_utf8():
    """Error.message is a protobuf string, so UTF-8: a message that quotes the client's bytes
    (a table name, the path) must not copy invalid UTF-8 into it (the Python SDK fails to
    decode such an Error)."""
    shown = []
    for what, send_it in (("table name", lambda: send("DescribeTable", f_bytes(1, b"gw_f\xf5zz"))),
                          ("path", lambda: send("Li\xffst", path="/Li%FFst", authenticated=False))):
        try:
            reply = send_it()
        except UnicodeDecodeError as e:
            raise Failure("%s: Error.message is not UTF-8 (%s)" % (what, e))
        shown.append("%d %s %r" % (reply.status, reply.code, reply.message))
        check(reply.status == 400, "%s: %r" % (what, reply))
    return "; ".join(shown)


@test
def transaction_range_in_its_partition():
    """GetRange in a local transaction reads its partition only (Tablestore: the bounds'
    partition keys are the transaction's): an end bound in another partition is refused,
    instead of reading rows the transaction does not lock."""
    expect_ok(send("PutRow", put_row_body(TABLE, pb_row(key_of("txr_q", 1), [("v", Val("int", 1), None, None)]))))
    started = expect_ok(send("StartLocalTransaction", f_bytes(1, TABLE) + f_bytes(2, pb_row([("pk", Val("str", "txr_p"))]))))
    tx = one(started, 1).decode()
    try:
        start = pb_row([("pk", Val("str", "txr_p")), ("n", Val("inf_min"))])
        end = pb_row([("pk", Val("str", "txr_z")), ("n", Val("inf_max"))])
        reply = send("GetRange", f_bytes(1, TABLE) + f_varint(2, 0) + f_varint(5, 1) + f_bytes(7, start)
                     + f_bytes(8, end) + f_bytes(14, tx))
        if reply.status == 200:
            keys = [row["pk"][0][1][1] for row in pb_decode_rows(one(pb_decode(reply.body), 2))]
            raise Failure("served, rows of partitions %r" % keys)
        out = expect_error(reply, 400, "OTSParameterInvalid")
        # within its partition it still reads
        end = pb_row([("pk", Val("str", "txr_p")), ("n", Val("inf_max"))])
        expect_ok(send("GetRange", f_bytes(1, TABLE) + f_varint(2, 0) + f_varint(5, 1) + f_bytes(7, start)
                       + f_bytes(8, end) + f_bytes(14, tx)))
        return out
    finally:
        send("AbortTransaction", f_bytes(1, tx))


def superuser_sql(sql):
    """One statement as the temporary server's superuser (run.sh's psql and environment)."""
    import subprocess
    psql = os.environ.get("OTSGW_PSQL")
    check(psql, "OTSGW_PSQL is not set (run test/gateway/run.sh)")
    done = subprocess.run([psql, "-X", "-At", "-d", "otsgw", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          capture_output=True, text=True, timeout=30)
    check(done.returncode == 0, "psql: %s" % done.stderr.strip())
    return done.stdout.strip()


@test
def transaction_needs_write_privilege():
    """A local transaction locks its partition against every other writer, so a key whose role
    may only read the table must not start one: with SELECT alone it could hold any partition
    of the table against its writers for as long as it likes (each read in the transaction
    renews its 60 s). 403 OTSNoPermissionAccess, and the owner's writes go on."""
    superuser_sql('GRANT SELECT ON "%s$data" TO gw_other' % TABLE)
    try:
        reply = send("StartLocalTransaction", f_bytes(1, TABLE) + f_bytes(2, pb_row([("pk", Val("str", "txw_p"))])),
                     key_id=OTHER_ID, secret=OTHER_SECRET)
        if reply.status == 200:
            tx = one(pb_decode(reply.body), 1).decode()
            blocked = send("PutRow", put_row_body(TABLE, pb_row(key_of("txw_p", 1), [("v", Val("int", 1), None, None)])))
            send("AbortTransaction", f_bytes(1, tx), key_id=OTHER_ID, secret=OTHER_SECRET)
            raise Failure("a read-only key started a transaction; the owner's PutRow in its partition: %r" % blocked)
        out = expect_error(reply, 403, "OTSNoPermissionAccess")
        expect_ok(send("PutRow", put_row_body(TABLE, pb_row(key_of("txw_p", 1), [("v", Val("int", 1), None, None)]))))
        return out
    finally:
        superuser_sql('REVOKE SELECT ON "%s$data" FROM gw_other' % TABLE)


@test
def refused_before_the_body():
    """A request whose headers fail (here its signature) is answered when its headers arrive,
    not after otsd has read and held a body of up to max_body (5 MB) for a client that has
    proved nothing: else every connection slot can be made to hold 5 MB, or to wait for a body
    that never comes, by anyone who can reach the port."""
    headers = {
        "x-ots-date": iso_now(), "x-ots-apiversion": API_VERSION, "x-ots-accesskeyid": KEY_ID,
        "x-ots-instancename": INSTANCE, "x-ots-contentmd5": base64.b64encode(hashlib.md5(b"").digest()).decode(),
        "x-ots-signature": base64.b64encode(b"0" * 20).decode(),
    }
    head = "POST /PutRow HTTP/1.1\r\nHost: %s:%d\r\nContent-Length: %d\r\n" % (HOST, PORT, 4 << 20)
    head += "".join("%s: %s\r\n" % kv for kv in headers.items()) + "Connection: close\r\n\r\n"
    sock = socket.create_connection((HOST, PORT), timeout=60)
    try:
        sock.sendall(head.encode())
        readable, _, _ = select.select([sock], [], [], 5)
        check(readable, "no reply within 5 s of the headers: otsd waits for the 4 MB body of an unauthenticated request")
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        sock.close()
    check(data.startswith(b"HTTP/1.1 403"), "reply %r" % data[:60])
    return "403 before the body, on the headers alone"


@test
def other_role_learns_nothing_of_transactions():
    """A key whose role has no privilege on a table must get its refusal (403
    OTSNoPermissionAccess) for every partition alike: a 409 where another key holds a local
    transaction tells it which partition key values that key is working on (otsd's partition
    check runs before PostgreSQL's privilege check)."""
    started = expect_ok(send("StartLocalTransaction", f_bytes(1, TABLE) + f_bytes(2, pb_row([("pk", Val("str", "secret_user"))]))))
    tx = one(started, 1).decode()
    try:
        replies = {}
        for pk in ("secret_user", "nobody"):
            replies[pk] = send("PutRow", put_row_body(TABLE, pb_row(key_of(pk, 1), [("v", Val("int", 1), None, None)])),
                               key_id=OTHER_ID, secret=OTHER_SECRET)
        check(replies["secret_user"].code == replies["nobody"].code,
              "the held partition answers %r, another %r" % (replies["secret_user"], replies["nobody"]))
        return expect_error(replies["secret_user"], 403, "OTSNoPermissionAccess")
    finally:
        send("AbortTransaction", f_bytes(1, tx))


@test
def write_to_a_row_locked_elsewhere():
    """A write to a row that an SQL session holds locked is answered, as Tablestore answers
    concurrent writers, with a retryable 409 OTSRowOperationConflict within seconds, instead of
    waiting as long as the session likes while holding a connection of the key's pool (four
    such waits and every other call of the key gets 503 OTSServerBusy)."""
    import subprocess
    expect_ok(send("PutRow", put_row_body(TABLE, pb_row(key_of("lk", 1), [("v", Val("int", 1), None, None)]))))
    holder = subprocess.Popen([os.environ["OTSGW_PSQL"], "-X", "-q", "-d", "otsgw"], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    try:
        holder.stdin.write("BEGIN; SELECT ots.put_row('%s', '{\"pk\": \"lk\", \"n\": 1}', '{\"v\": 2}');\n" % TABLE)
        holder.stdin.flush()
        time.sleep(2)
        started = time.time()
        try:
            reply = send("PutRow", put_row_body(TABLE, pb_row(key_of("lk", 1), [("v", Val("int", 3), None, None)])))
        except socket.timeout:
            raise Failure("no answer in 60 s: the write waits for the session's lock")
        took = time.time() - started
        out = expect_error(reply, 409, "OTSRowOperationConflict")
        check(took < 30, "answered after %.0f s" % took)
        return "%s after %.1f s" % (out, took)
    finally:
        holder.stdin.write("ROLLBACK;\n")
        holder.stdin.close()
        holder.wait(30)


@test
def unknown_enum_values_refused():
    """An enum value the protocol does not define is a malformed request (Tablestore's proto2
    parser leaves it unknown, so the required field is missing): 400 OTSParameterInvalid. otsd
    read an unknown BatchWriteRow operation as a PUT without attributes, which empties the
    row, and an unknown row existence expectation as IGNORE, which drops the condition."""
    row = pb_row(key_of("enum", 1), [("v", Val("int", 1), None, None)])
    expect_ok(send("PutRow", put_row_body(TABLE, row)))
    shown = None
    for what, action, body in (
            ("operation type 99", "BatchWriteRow",
             f_bytes(1, f_bytes(1, TABLE) + f_bytes(2, f_varint(1, 99) + f_bytes(2, row) + f_bytes(3, f_varint(1, 0))))),
            ("row existence 7", "PutRow", put_row_body(TABLE, row, expectation=7))):
        try:
            shown = expect_error(send(action, body), 400, "OTSParameterInvalid", PB_PARSE_MESSAGES)
        except Failure as e:
            raise Failure("%s: %s" % (what, e))
    got = pb_decode_rows(one(expect_ok(send("GetRow", get_row_body(TABLE, pb_row(key_of("enum", 1))))), 2))
    check(got and got[0]["attrs"], "the row lost its attributes: %r" % got)
    return shown


def start_txn_of(table, column, partition, key_id=None, secret=None):
    """StartLocalTransaction on partition (a String) of table's partition-key column: (reply, id)"""
    reply = send("StartLocalTransaction", f_bytes(1, table) + f_bytes(2, pb_row([(column, Val("str", partition))])),
                 key_id=key_id, secret=secret)
    return reply, (one(pb_decode(reply.body), 1).decode() if reply.status == 200 else None)


def start_txn(table, partition, key_id=None, secret=None):
    return start_txn_of(table, "pk", partition, key_id, secret)


def put_body(table, pk, tx=None, value=1):
    """PutRow of pk ([(name, Val)], in the order given), with transaction id tx."""
    body = put_row_body(table, pb_row(pk, [("v", Val("int", value), None, None)]))
    return body + (f_bytes(5, tx) if tx else b"")


@test
def transactions_held_per_resolved_table():
    """otsd keeps an open local transaction's partition per table as the key's role resolves
    the name, not per name as spelled: gw_third (search_path its own schema) has a table of the
    same name as gw_app's, and gw_app's transaction on its own table must not hold gw_third's
    partition (otsd answered 409 to gw_third's write and start there)."""
    table = TABLE + "_shadow"
    expect_ok(send("CreateTable", create_table_body(table)))
    expect_ok(send("CreateTable", create_table_body(table), key_id=THIRD_ID, secret=THIRD_SECRET))
    reply, tx = start_txn(table, "shared")
    expect_ok(reply)
    try:
        write = send("PutRow", put_body(table, key_of("shared", 1)), key_id=THIRD_ID, secret=THIRD_SECRET)
        check(write.status == 200, "gw_third's write to its own table: %r" % write)
        other_reply, other_tx = start_txn(table, "shared", THIRD_ID, THIRD_SECRET)
        check(other_reply.status == 200, "gw_third's transaction on its own table: %r" % other_reply)
        send("AbortTransaction", f_bytes(1, other_tx), key_id=THIRD_ID, secret=THIRD_SECRET)
        # gw_app's own table stays held against gw_app's writes without the transaction
        held = expect_error(send("PutRow", put_body(table, key_of("shared", 1))), 409, "OTSRowOperationConflict")
        return "another role's table of the same name served; the holder's own: " + held
    finally:
        send("AbortTransaction", f_bytes(1, tx))
        send("DeleteTable", f_bytes(1, table), key_id=THIRD_ID, secret=THIRD_SECRET)
        send("DeleteTable", f_bytes(1, table))


@test
def transactions_unseen_by_a_key_without_the_table():
    """A key for which a name resolves to no table (gw_third, whose search_path does not hold
    gw_app's table) gets the same answer, 404 OTSObjectNotExist, for a partition that another
    key's transaction holds as for any other: a 409 there told it which partition keys the
    other key was working on."""
    reply, tx = start_txn(TABLE, "held_secret")
    expect_ok(reply)
    try:
        replies = {}
        for pk in ("held_secret", "nobody"):
            replies[pk] = send("PutRow", put_body(TABLE, key_of(pk, 1)), key_id=THIRD_ID, secret=THIRD_SECRET)
        check((replies["held_secret"].status, replies["held_secret"].code, replies["held_secret"].message) ==
              (replies["nobody"].status, replies["nobody"].code, replies["nobody"].message),
              "the held partition answers %r, another %r" % (replies["held_secret"], replies["nobody"]))
        return expect_error(replies["held_secret"], 404, "OTSObjectNotExist")
    finally:
        send("AbortTransaction", f_bytes(1, tx))


@test
def transactions_unseen_under_row_security():
    """A key whose role may write the table but has row-level security applying to it there
    (which ots's row functions refuse: it can write only with plain SQL) gets its own refusal
    for a partition another key's transaction holds as for any other; a 409 there told it
    which partitions the other key was working on."""
    storage = '"%s$data"' % TABLE
    superuser_sql("GRANT SELECT, INSERT, UPDATE, DELETE ON %s TO gw_other; "
                  "ALTER TABLE %s ENABLE ROW LEVEL SECURITY; "
                  "CREATE POLICY gw_other_rows ON %s TO gw_other USING (true)" % (storage, storage, storage))
    reply, tx = start_txn(TABLE, "rls_held")
    try:
        expect_ok(reply)
        replies = {}
        for pk in ("rls_held", "rls_other"):
            replies[pk] = send("PutRow", put_body(TABLE, key_of(pk, 1)), key_id=OTHER_ID, secret=OTHER_SECRET)
        check((replies["rls_held"].status, replies["rls_held"].code, replies["rls_held"].message) ==
              (replies["rls_other"].status, replies["rls_other"].code, replies["rls_other"].message),
              "the held partition answers %r, another %r" % (replies["rls_held"], replies["rls_other"]))
        return expect_error(replies["rls_held"], 403, "OTSNoPermissionAccess")
    finally:
        if tx:
            send("AbortTransaction", f_bytes(1, tx))
        superuser_sql("DROP POLICY gw_other_rows ON %s; ALTER TABLE %s DISABLE ROW LEVEL SECURITY; "
                      "REVOKE ALL ON %s FROM gw_other" % (storage, storage, storage))


@test
def transaction_partition_key_by_schema():
    """A transaction's partition key is the value of the table's first primary-key column,
    whatever order the request's key cells come in. otsd took the first cell in request order:
    in a table keyed (tenant, id), a write in tenant X's transaction with the cells reversed,
    id = X and tenant = Y, passed the check and wrote tenant Y; and a write without the
    transaction to X, its cells reversed, passed the check against X being held."""
    table = TABLE + "_tenants"
    expect_ok(send("CreateTable", create_table_body(table, keys=(("tenant", 2), ("id", 2)))))
    reply, tx = start_txn_of(table, "tenant", "tenant_x")
    expect_ok(reply)
    shown = []
    try:
        into_y = [("id", Val("str", "tenant_x")), ("tenant", Val("str", "tenant_y"))]
        shown.append("another tenant in the transaction: " + expect_error(
            send("PutRow", put_body(table, into_y, tx)), 400, "OTSParameterInvalid"))
        batch = f_bytes(1, f_bytes(1, table) + f_bytes(2, f_varint(1, 1) + f_bytes(
            2, pb_row(into_y, [("v", Val("int", 1), None, None)])) + f_bytes(3, f_varint(1, 0)))) + f_bytes(2, tx)
        expect_error(send("BatchWriteRow", batch), 400, "OTSParameterInvalid")
        into_x = [("id", Val("str", "a")), ("tenant", Val("str", "tenant_x"))]
        shown.append("the held tenant without it: " + expect_error(
            send("PutRow", put_body(table, into_x)), 409, "OTSRowOperationConflict"))
        # in its own partition, cells in either order, the transaction writes
        expect_ok(send("PutRow", put_body(table, into_x, tx)))
        send("CommitTransaction", f_bytes(1, tx))
        tx = None
        got = one(expect_ok(send("GetRow", get_row_body(table, pb_row([("tenant", Val("str", "tenant_y")),
                                                                         ("id", Val("str", "tenant_x"))])))), 2)
        check(got == b"", "tenant_y was written through tenant_x's transaction: %r" % (got and pb_decode_rows(got)))
        return "; ".join(shown)
    finally:
        if tx:
            send("AbortTransaction", f_bytes(1, tx))
        send("DeleteTable", f_bytes(1, table))


def signed_head(action, body, extra):
    """The head of a signed request as raw bytes: extra holds its framing headers."""
    headers = {"x-ots-date": iso_now(), "x-ots-apiversion": API_VERSION, "x-ots-accesskeyid": KEY_ID,
               "x-ots-instancename": INSTANCE, "x-ots-contentmd5": base64.b64encode(hashlib.md5(body).digest()).decode()}
    headers["x-ots-signature"] = sign_request("/" + action, "POST", headers, SECRET)
    head = "POST /%s HTTP/1.1\r\nHost: %s:%d\r\n" % (action, HOST, PORT)
    return (head + "".join("%s: %s\r\n" % kv for kv in headers.items()) + extra + "\r\n").encode()


def raw_exchange(data, seconds=5):
    """Sends data on a new connection; what came back until otsd closed it (True) or seconds passed."""
    sock = socket.create_connection((HOST, PORT), timeout=seconds)
    received, closed = b"", False
    deadline = time.time() + seconds
    try:
        sock.sendall(data)
        while time.time() < deadline:
            readable, _, _ = select.select([sock], [], [], max(0, deadline - time.time()))
            if not readable:
                break
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            received += chunk
    finally:
        sock.close()
    return received, closed


@test
def request_smuggling_refused():
    """A request whose length could be read two ways (Content-Length twice, "Content-Length :"
    with a blank before the colon, Transfer-Encoding beside Content-Length) is refused with 400
    and its connection closed: libmicrohttpd framed it by the first Content-Length (or none) and
    ran the bytes a proxy in front would send as its body as a second request. Here that second
    request is a signed PutRow, which must not have run."""
    shown = []
    for i, (what, framing) in enumerate((
            ("Content-Length twice", "Content-Length: 0\r\nContent-Length: %d\r\n"),
            ("a blank before the colon", "Content-Length : %d\r\n"),
            ("Transfer-Encoding and Content-Length", "Content-Length: %d\r\nTransfer-Encoding: chunked\r\n"))):
        marker = key_of("smuggled", i)
        body = put_row_body(TABLE, pb_row(marker, [("v", Val("int", 1), None, None)]))
        smuggled = signed_head("PutRow", body, "Content-Length: %d\r\n" % len(body)) + body
        first = signed_head("ListTable", b"", framing % len(smuggled))
        received, closed = raw_exchange(first + smuggled)
        statuses = re.findall(rb"HTTP/1\.[01] (\d{3})", received)
        got = expect_ok(send("GetRow", get_row_body(TABLE, pb_row(marker))))
        check(one(got, 2) == b"", "%s: the smuggled PutRow ran (answers %r)" % (what, statuses))
        check(statuses == [b"400"], "%s: answers %r, expected one 400" % (what, statuses))
        check(closed, "%s: the connection stayed open after the 400" % what)
        shown.append(what)
    return "400 and closed, nothing smuggled: " + ", ".join(shown)


def otsd_memory(field):
    """otsd's VmRSS or VmHWM in bytes."""
    pid = env("OTSGW_OTSD_PID")
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise Failure("no %s in /proc/%s/status" % (field, pid))


@test
def decode_memory_bounded():
    """Requests decode within otsd's bound on the memory all of them decode in at once
    (decode_memory, 256 MB, run.sh's and the default), however their bodies expand: 4
    concurrent GetRow requests of 5 MB, each 2.6 million empty names in columns_to_get, sent by
    a key with no privilege, took about 300 MB each before PostgreSQL refused them (1.2 GB for
    the four). Each may decode in 48 times its body, so each is refused with 413 before any SQL
    runs (or 503 after waiting 10 s for room), otsd's peak stays under decode_memory plus the
    bodies, and a large request of a form Tablestore's limits allow still decodes."""
    import threading
    decode_memory = int(env("OTSGW_DECODE_MEMORY"))
    body = f_bytes(1, TABLE) + f_bytes(2, pb_row(key_of("a", 1))) + f_varint(5, 1)
    body += f_bytes(3, "") * ((5 * 1024 * 1024 - 1024 - len(body)) // 2)
    with open("/proc/%s/clear_refs" % env("OTSGW_OTSD_PID"), "w") as f:
        f.write("5")  # VmHWM starts again from the current RSS
    before = otsd_memory("VmRSS")
    replies = []

    def one_request():
        try:
            replies.append(send("GetRow", body, key_id=OTHER_ID, secret=OTHER_SECRET))
        except Exception as e:  # a refused or reset connection is a failure too
            replies.append(e)

    threads = [threading.Thread(target=one_request) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    peak = otsd_memory("VmHWM") - before
    bound = decode_memory + 4 * 2 * len(body) + 96 * 1024 * 1024
    check(peak < bound, "otsd's peak grew by %d MB under 4 requests of %d MB (bound %d MB); answers %r"
          % (peak >> 20, len(body) >> 20, bound >> 20, replies))
    for reply in replies:
        check(isinstance(reply, Reply) and (reply.status, reply.code) in ((413, "OTSRequestBodyTooLarge"), (503, "OTSServerBusy")),
              "answer %r" % (reply,))
    # Tablestore's largest write of small cells: 200 rows of 900 booleans (3.8 MB, about 30 times
    # its size to decode), and the rows are there
    rows = b"".join(f_bytes(2, f_varint(1, 1) + f_bytes(2, pb_row(key_of("mem%d" % r, 1), [
        ("c%d" % c, Val("bool", True), None, None) for c in range(900)])) + f_bytes(3, f_varint(1, 0)))
        for r in range(200))
    expect_ok(send("BatchWriteRow", f_bytes(1, f_bytes(1, TABLE) + rows)))
    got = pb_decode_rows(one(expect_ok(send("GetRow", get_row_body(TABLE, pb_row(key_of("mem199", 1))))), 2))
    check(got and len(got[0]["attrs"]) == 900, "the batch's last row: %r" % (got and len(got[0]["attrs"])))
    return "peak +%d MB (bound %d MB); %s; a batch of 200 rows x 900 cells (%d MB) served" % (
        peak >> 20, bound >> 20, ", ".join(sorted(set("%d %s" % (r.status, r.code) for r in replies))),
        len(rows) >> 20)


# ------------------------------------------- the wire path against the jsonb path

# column names: "b" < "aa" by length first (jsonb's key order), "aa" < "b" bytewise
# (Tablestore's), capitals before small letters, "_" between them
WD_NAMES = ["b", "aa", "B", "a_1", "zz", "A", "ab", "a"]
WD_CLIENT_TS = 10 ** 6          # client timestamps are 1..WD_CLIENT_TS, server stamps far above
WD_INT64_MAX = (1 << 63) - 1
WD_TS_LIMIT = WD_INT64_MAX // 1000
WD_DOUBLES = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -2.25, 0.1, 1 / 3, 4.35, 0.30000000000000004, 123456789.125,
              1e15 + 0.5, 1e16, 9007199254740993.0, 1e21, 1e22, -1e-7, 1e300, -1e300, 1e-300,
              1.7976931348623157e308, -1.7976931348623157e308, 2.2250738585072014e-308,
              2.225073858507201e-308, 5e-324, -5e-324, 1.23e-310]
WD_STRINGS = ["", "x", "héllo", "日本語", "😀", "tab\there\nnewline", "quote\" back\\slash", "\u2028\u00ff",
              "<&>", "a" * 300]
WD_OPS = {OP_DELETE_ALL: "DELETE_ALL", OP_DELETE_ONE: "DELETE_ONE", OP_INCREMENT: "INCREMENT"}


def wd_double(rnd):
    pick = rnd.randrange(4)
    if pick == 0:
        return rnd.choice(WD_DOUBLES)
    if pick == 1:
        while True:  # any finite bits but -0.0 (jsonb has no negative zero: the one intended difference)
            d = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0]
            if math.isfinite(d):
                return d
    if pick == 2:
        return rnd.uniform(-1e6, 1e6)
    return float(rnd.randrange(-10 ** 6, 10 ** 6)) or 1.0


def wd_value(rnd, kinds=("int", "dbl", "bool", "str", "bin")):
    kind = rnd.choice(kinds)
    if kind == "int":
        return Val("int", rnd.choice([0, 1, -1, 7, 42, -1000, WD_INT64_MAX, -WD_INT64_MAX - 1, WD_INT64_MAX - 1,
                                      rnd.randrange(-(1 << 63), 1 << 63), rnd.randrange(-100, 100)]))
    if kind == "dbl":
        return Val("dbl", wd_double(rnd))
    if kind == "bool":
        return Val("bool", rnd.random() < 0.5)
    if kind == "str":
        return Val("str", rnd.choice(WD_STRINGS))
    return Val("bin", bytes(rnd.getrandbits(8) for _ in range(rnd.choice([0, 1, 2, 5, 17]))))


def wd_ts(rnd):
    return rnd.choice([1, 2, 3, 1000, 5000, WD_CLIENT_TS, rnd.randrange(1, WD_CLIENT_TS + 1)])


def wd_show(v):
    if v is None:
        return "-"
    if v.kind in ("str", "bin", "raw") and len(v.value) > 24:
        return "%s:%r...(%d)" % (v.kind, v.value[:16], len(v.value))
    return "%s:%r" % (v.kind, v.value) if v.value is not None else v.kind


def wd_cell_text(cell):
    name, value, ts, op = cell
    name = name if isinstance(name, str) else repr(name)
    if len(name) > 24:
        name = "%s...(%d)" % (name[:8], len(name))
    return "%s%s=%s%s" % ("" if op is None else WD_OPS.get(op, "OP%d" % op) + " ", name, wd_show(value),
                          "" if ts is None else "@%d" % ts)


def wd_row(spec):
    """The spec's row as PlainBuffer: key and attribute cells as (name, Val|None, ts, op)"""
    out = bytearray(struct.pack("<I", spec["header"] & 0xFFFFFFFF))
    out.append(TAG_ROW_PK)
    row_crc = 0
    for i, (name, value, ts, op) in enumerate(spec["pk"] + spec["attrs"]):
        if i == len(spec["pk"]):
            out.append(TAG_ROW_DATA)
        cell, crc = pb_cell(name, value, ts, op, corrupt_crc=(spec["corrupt_cell"] == i))
        out += cell
        row_crc = crc8(row_crc, bytes([crc]))
    if spec["delete"]:
        out.append(TAG_DELETE_ROW_MARKER)
    row_crc = crc8(row_crc, bytes([1 if spec["delete"] else 0]))
    if spec["corrupt_row"]:
        row_crc ^= 0x33
    out += bytes([TAG_ROW_CHECKSUM, row_crc])
    return spec["post"](bytes(out)) if spec["post"] else bytes(out)


def wd_attr(spec, rnd, cell):
    """cell in place of one of the row's attribute cells, or added"""
    if spec["attrs"] and rnd.random() < 0.5:
        spec["attrs"][rnd.randrange(len(spec["attrs"]))] = cell
    else:
        spec["attrs"].insert(rnd.randrange(len(spec["attrs"]) + 1), cell)


def wd_some_cell(spec, rnd, cell_of):
    """a key or attribute cell made again by cell_of(cell)"""
    cells = spec["pk"] + spec["attrs"]
    i = rnd.randrange(len(cells))
    where = spec["pk"] if i < len(spec["pk"]) else spec["attrs"]
    j = i if i < len(spec["pk"]) else i - len(spec["pk"])
    where[j] = cell_of(where[j])


def wd_raw_string(data):
    return Val("raw", bytes([VT_STRING]) + struct.pack("<I", len(data)) + data)


# names PlainBuffer takes and ots does not; "é" and "z-" come first by length, "1xx" and
# "A-B-C" bytewise
WD_BAD_NAMES = ["1x", "", "a-b", "a b", "é", "1xx", "A-B-C", "z-", "a" * 256, "a" * 300]
WD_BAD_UTF8 = [b"\xff", b"a\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xe2\x82", b"ok\x80"]


def wd_four_mb(spec, rnd):
    """two cells whose key, names and values are exactly the 4 MB a write may carry, so that
    their timestamps (8 bytes each, as a write's size counts them) take it over"""
    def size(v):
        return 8 if v.kind in ("int", "dbl") else 1 if v.kind == "bool" else len(
            v.value.encode() if v.kind == "str" else v.value) if v.kind in ("str", "bin") else 0
    pk_size = sum(len(c[0].encode() if isinstance(c[0], str) else c[0]) + size(c[1]) for c in spec["pk"] if c[1])
    first = 2 << 20
    spec["attrs"] = [("c1", Val("str", "x" * first), wd_ts(rnd), None),
                     ("c2", Val("str", "y" * ((4 << 20) - first - 4 - pk_size)), wd_ts(rnd), None)]


def wd_defects():
    """(name, fn(spec, rnd)): one defect each, made in the spec"""
    def name_as(spec, rnd, name):
        wd_some_cell(spec, rnd, lambda c: (name,) + tuple(c[1:]))

    def key_value(spec, rnd, value):
        i = rnd.randrange(len(spec["pk"]))
        spec["pk"][i] = (spec["pk"][i][0], value, None, None)

    def cut(spec, rnd):
        frac = rnd.random()
        spec["post"] = lambda b: b[:int(len(b) * frac)]

    def zeros(spec, rnd):
        n = rnd.randrange(1, 9)
        spec["post"] = lambda b: b + b"\0" * n

    def two_rows(spec, rnd):
        other = dict(spec, pk=[(c[0], Val("int", 2) if c[1].kind == "int" else c[1], None, None) for c in spec["pk"]],
                     post=None)
        second = wd_row(other)[4:]
        spec["post"] = lambda b: b + second

    def pk_twice(spec, rnd):
        c = rnd.choice(spec["pk"])
        twin = c if rnd.random() < 0.5 else (c[0], Val("int", 3), None, None)
        spec["pk"].insert(rnd.randrange(len(spec["pk"]) + 1), twin)

    def pk_missing(spec, rnd):
        del spec["pk"][rnd.randrange(len(spec["pk"]))]

    def pk_extra(spec, rnd):
        spec["pk"].insert(rnd.randrange(len(spec["pk"]) + 1), (rnd.choice(["x", "pk2", "a"]), Val("int", 1), None, None))

    def pk_swapped(spec, rnd):
        spec["pk"].reverse()

    def pk_op_or_ts(spec, rnd):
        i = rnd.randrange(len(spec["pk"]))
        c = spec["pk"][i]
        spec["pk"][i] = (c[0], c[1], wd_ts(rnd), None) if rnd.random() < 0.5 else (c[0], c[1], None, OP_DELETE_ALL)

    def pk_wrong_type(spec, rnd):
        i = rnd.randrange(len(spec["pk"]))
        c = spec["pk"][i]
        spec["pk"][i] = (c[0], Val("bin", b"k") if c[1].kind == "str" else Val("str", "1"), None, None)

    def pk_no_value(spec, rnd):
        i = rnd.randrange(len(spec["pk"]))
        spec["pk"][i] = (spec["pk"][i][0], None, None, None)

    n = lambda rnd: rnd.choice(WD_NAMES)
    return [
        ("cell checksum", lambda s, r: s.update(corrupt_cell=r.randrange(len(s["pk"]) + len(s["attrs"])))),
        ("row checksum", lambda s, r: s.update(corrupt_row=True)),
        ("truncated", cut),
        ("bad header", lambda s, r: s.update(header=r.choice([0x76, 0x74, 0, 0x7500, 0xFFFFFFFF]))),
        ("trailing zeros", zeros),
        ("two rows", two_rows),
        ("no rows", lambda s, r: s.update(post=lambda b: b[:4] + b"\0" * r.randrange(0, 3))),
        ("string not UTF-8", lambda s, r: wd_attr(s, r, (n(r), wd_raw_string(r.choice(WD_BAD_UTF8)), None, None))),
        ("key string not UTF-8", lambda s, r: key_value(s, r, wd_raw_string(r.choice(WD_BAD_UTF8)))),
        ("string with NUL", lambda s, r: wd_attr(s, r, (n(r), Val("str", r.choice(["\0", "a\0b", "x\0"])), None,
                                                       r.choice([None, OP_INCREMENT])))),
        ("name not UTF-8", lambda s, r: name_as(s, r, r.choice(WD_BAD_UTF8))),
        ("name with NUL", lambda s, r: name_as(s, r, r.choice([b"a\0", b"\0", b"a\0b"]))),
        ("name over 1024 bytes", lambda s, r: name_as(s, r, "a" * r.choice([1025, 1100, 4000]))),
        ("name invalid for ots", lambda s, r: name_as(s, r, r.choice(WD_BAD_NAMES))),
        # a defect in several columns: the one the message names is the first in jsonb's order
        ("names invalid for ots in several columns",
         lambda s, r: [s["attrs"].insert(r.randrange(len(s["attrs"]) + 1), (c, wd_value(r), None, None))
                       for c in r.sample(WD_BAD_NAMES, r.choice([2, 3]))]),
        ("key DOUBLE or BOOLEAN", lambda s, r: key_value(s, r, r.choice([Val("dbl", 1.5), Val("bool", True)]))),
        ("key twice", pk_twice),
        ("key column missing", pk_missing),
        ("key column extra", pk_extra),
        ("key columns swapped", pk_swapped),
        ("key with ts or op", pk_op_or_ts),
        ("key of another type", pk_wrong_type),
        ("key without value", pk_no_value),
        ("no key", lambda s, r: s.update(pk=[])),
        ("attribute INF_MIN/INF_MAX/AUTO_INCREMENT",
         lambda s, r: wd_attr(s, r, (n(r), Val(r.choice(["inf_min", "inf_max", "auto"])), None,
                                    r.choice([None, None, OP_INCREMENT])))),
        ("put without value", lambda s, r: wd_attr(s, r, (n(r), None, r.choice([None, wd_ts(r)]), None))),
        ("DELETE_ONE without ts", lambda s, r: wd_attr(s, r, (n(r), None, None, OP_DELETE_ONE))),
        ("DELETE_ONE with value", lambda s, r: wd_attr(s, r, (n(r), wd_value(r), wd_ts(r), OP_DELETE_ONE))),
        ("DELETE_ALL with ts", lambda s, r: wd_attr(s, r, (n(r), None, wd_ts(r), OP_DELETE_ALL))),
        ("DELETE_ALL with value", lambda s, r: wd_attr(s, r, (n(r), wd_value(r), None, OP_DELETE_ALL))),
        ("INCREMENT without value", lambda s, r: wd_attr(s, r, (n(r), None, None, OP_INCREMENT))),
        ("INCREMENT with ts", lambda s, r: wd_attr(s, r, (n(r), Val("int", 1), wd_ts(r), OP_INCREMENT))),
        ("INCREMENT twice",
         lambda s, r: [s["attrs"].insert(r.randrange(len(s["attrs"]) + 1), (c, Val("int", i), None, OP_INCREMENT))
                       for c in [n(r)] for i in (1, 2)]),
        ("INCREMENT of another type",
         lambda s, r: wd_attr(s, r, (n(r), wd_value(r, ("str", "dbl", "bool", "bin")), None, OP_INCREMENT))),
        ("4 MB only with its timestamps", wd_four_mb),
        ("Double not finite", lambda s, r: wd_attr(s, r, (n(r), Val("dbl", r.choice([math.nan, math.inf, -math.inf])),
                                                         r.choice([None, wd_ts(r)]), r.choice([None, None, OP_INCREMENT])))),
        ("negative timestamp", lambda s, r: wd_attr(s, r, (n(r), r.choice([wd_value(r), None]),
                                                          r.choice([-1, -1000, -WD_INT64_MAX - 1]), None))),
        ("negative DELETE_ONE timestamp", lambda s, r: wd_attr(s, r, (n(r), None, r.choice([-1, -5000]), OP_DELETE_ONE))),
        ("timestamp from INT64_MAX/1000",
         lambda s, r: wd_attr(s, r, (n(r), wd_value(r), r.choice([WD_TS_LIMIT, WD_TS_LIMIT + 1, WD_INT64_MAX, 1 << 62]),
                                    None))),
        ("DELETE_ONE timestamp from INT64_MAX/1000",
         lambda s, r: wd_attr(s, r, (n(r), None, r.choice([WD_TS_LIMIT, WD_INT64_MAX]), OP_DELETE_ONE))),
        ("timestamp past the version offset", lambda s, r: wd_attr(s, r, (n(r), wd_value(r), 5 * 10 ** 15, None))),
        ("timestamps past the version offset in several columns",
         lambda s, r: [s["attrs"].insert(r.randrange(len(s["attrs"]) + 1), (c, wd_value(r), 5 * 10 ** 15 + i, None))
                       for i, c in enumerate(r.sample(WD_NAMES, r.choice([2, 3])))]),
        ("unknown op", lambda s, r: wd_attr(s, r, (n(r), r.choice([None, wd_value(r)]), r.choice([None, wd_ts(r)]),
                                                  r.choice([0, 2, 5, 6, 0xFF])))),
        ("boolean byte 2",
         lambda s, r: wd_attr(s, r, (n(r), Val("raw", bytes([VT_BOOLEAN, r.choice([2, 0xFF])])), None, None))),
        ("value length off", lambda s, r: wd_attr(s, r, (n(r), Val("raw", bytes([VT_INTEGER]) + b"\1" * r.choice([7, 9])),
                                                        None, None))),
        ("unknown value type", lambda s, r: wd_attr(s, r, (n(r), Val("raw", bytes([r.choice([4, 5, 6, 8, 12, 0xFF])])),
                                                          None, None))),
    ]


WD_DEFECTS = wd_defects()


def wd_request(rnd, auto, defect_chance=1 / 3, filter_chance=0.25, undecodable_chance=0.08, plain=False,
               actions=None, key=None):
    """A random write: (action, spec, defect, condition, return content, text), spec as wd_row
    takes it. For a batch's rows: the chances of a row defect, a column condition and an
    undecodable one; plain: no condition nor return content; actions: those to choose from;
    key: fn(key cells) -> the key cells (before a defect is made)"""
    action = rnd.choice(actions or ["PutRow", "PutRow", "UpdateRow", "UpdateRow", "UpdateRow", "DeleteRow"])
    if auto:
        generated = rnd.random() < (0.5 if action == "PutRow" else 0.15)
        pk = [("pk", Val("str", rnd.choice(["p", "q"])), None, None),
              ("id", Val("auto") if generated else Val("int", rnd.choice([1, 2, 3, 4])), None, None)]
    else:
        pk = [("pk", Val("str", rnd.choice(["k1", "k2", "ß"])), None, None),
              ("n", Val("int", rnd.choice([1, 2])), None, None)]
    if key is not None:
        pk = key(pk)
    attrs = []

    def put():
        return (rnd.choice(WD_NAMES), wd_value(rnd), wd_ts(rnd) if rnd.random() < 0.5 else None, None)

    def other():
        op = rnd.choice([OP_DELETE_ONE, OP_DELETE_ALL, OP_INCREMENT, OP_INCREMENT])
        if op == OP_DELETE_ONE:
            return (rnd.choice(WD_NAMES), None, wd_ts(rnd), op)
        if op == OP_DELETE_ALL:
            return (rnd.choice(WD_NAMES), None, None, op)
        # each column incremented once (twice is a defect)
        free = [c for c in WD_NAMES if (c, OP_INCREMENT) not in {(a[0], a[3]) for a in attrs}]
        return (rnd.choice(free), Val("int", rnd.choice([1, -1, 5, 1000, WD_INT64_MAX, -WD_INT64_MAX - 1])), None, op)

    if action == "PutRow":
        for _ in range(rnd.choice([0, 1, 2, 3, 4, 6])):
            attrs.append(put())
        if rnd.random() < 0.2:
            attrs.insert(rnd.randrange(len(attrs) + 1), other())
    elif action == "UpdateRow":
        for _ in range(rnd.choice([0, 1, 1, 2, 2, 3, 3, 4, 6, 8])):
            attrs.append(put() if rnd.random() < 0.45 else other())
    elif rnd.random() < 0.05:
        attrs.append(put())
    again = [a for a in attrs if a[3] != OP_INCREMENT]
    if again and rnd.random() < 0.15:
        attrs.insert(rnd.randrange(len(attrs) + 1), rnd.choice(again))  # a column twice
    spec = {"pk": pk, "attrs": attrs, "delete": action == "DeleteRow" or rnd.random() < 0.02,
            "corrupt_cell": None, "corrupt_row": False, "header": HEADER, "post": None}
    defect = None
    if rnd.random() < defect_chance:
        defect, make = rnd.choice(WD_DEFECTS)
        make(spec, rnd)

    existence = 0 if plain else rnd.choice([0, 0, 0, 1, 1, 2] if action != "DeleteRow" else [0, 0, 0, 1, 1, 1, 2])
    condition = f_varint(1, existence)
    filter_text = ""
    if not plain and rnd.random() < filter_chance:
        comparator, column, value = rnd.randrange(1, 9), rnd.choice(WD_NAMES), wd_value(rnd)
        if value.kind == "dbl" and rnd.random() < 0.5:
            value = Val("dbl", float(rnd.randrange(-3, 1000)))
        missing, latest = rnd.randrange(2), rnd.randrange(2)
        flt = (f_varint(1, comparator) + f_bytes(2, column) + f_bytes(3, value.encode()[1])
               + f_varint(4, missing) + f_varint(5, latest))
        condition += f_bytes(2, f_varint(1, 1) + f_bytes(2, flt))
        filter_text = " filter(CT%d %s %s missing=%d latest=%d)" % (comparator, column, wd_show(value), missing, latest)
    elif not plain and rnd.random() < undecodable_chance:
        # a filter that does not parse: with a bad row (a third of them), the row's error comes
        # first on both paths, though the wire path's otsd does not read the row
        condition += f_bytes(2, f_varint(1, 1) + f_bytes(2, b"\x0a\xff\xff"))
        filter_text = " filter(undecodable)"
    # RT_AFTER_MODIFY is UpdateRow's, its columns the incremented ones (mostly)
    return_type = None if plain else rnd.choice(
        [None, 0, 1, 2, 2] if action == "UpdateRow" else [None, 0, 1, 1] + [2] * (rnd.random() < 0.1))
    columns = []
    if not plain and (return_type == 2 and action == "UpdateRow" or rnd.random() < 0.05):
        incremented = sorted({c[0] for c in spec["attrs"] if c[3] == OP_INCREMENT and isinstance(c[0], str)})
        others = WD_NAMES + ["pk", "id" if auto else "n"]
        columns = rnd.sample(incremented, rnd.randrange(len(incremented) + 1))
        if rnd.random() < (0.3 if not columns else 0.1):
            columns.insert(rnd.randrange(len(columns) + 1), rnd.choice(others))
        if columns and rnd.random() < 0.1:
            columns.append(rnd.choice(columns))
    content = None
    if return_type is not None or columns:
        content = (f_varint(1, return_type) if return_type is not None else b"") + b"".join(f_bytes(2, c) for c in columns)
    text = "%s key(%s) [%s]%s %s%s%s%s" % (
        action, ", ".join(wd_cell_text(c) for c in spec["pk"]), ", ".join(wd_cell_text(c) for c in spec["attrs"]),
        " +delete marker" if spec["delete"] and action != "DeleteRow" else "",
        ["IGNORE", "EXPECT_EXIST", "EXPECT_NOT_EXIST"][existence], filter_text,
        "" if return_type is None else " " + ["RT_NONE", "RT_PK", "RT_AFTER_MODIFY"][return_type],
        " columns %s" % columns if columns else "")
    if defect:
        text += "; defect: " + defect
    return action, spec, defect, condition, content, text


def wd_body(action, table, row, condition, content):
    body = f_bytes(1, table) + f_bytes(2, row) + f_bytes(3, condition)
    return body + (f_bytes(4, content) if content is not None else b"")


def wd_masked(buf):
    """A PlainBuffer's bytes with each row's server timestamps (above WD_CLIENT_TS) as their
    rank among the row's (b"S" and 7 digits, the newest 0) and the checksums over them as
    "?": what two tables written alike return, whenever each write ran (a row's server
    stamps only increase, one per write)"""
    pb_decode_rows(buf)  # its structure and checksums first
    out = bytearray(buf)
    pos, stamps, cell_stamped = 4, [], False
    while pos < len(buf):
        tag = buf[pos]
        if tag in (TAG_CELL_NAME, TAG_CELL_VALUE):
            pos += 5 + struct.unpack_from("<I", buf, pos + 1)[0]
        elif tag == TAG_CELL_TIMESTAMP:
            ts = struct.unpack_from("<q", buf, pos + 1)[0]
            if ts > WD_CLIENT_TS:
                stamps.append((pos + 1, ts))
                cell_stamped = True
            pos += 9
        elif tag in (TAG_CELL_TYPE, TAG_CELL_CHECKSUM, TAG_ROW_CHECKSUM):
            if tag == TAG_CELL_CHECKSUM and cell_stamped:
                out[pos + 1], cell_stamped = ord("?"), False
            if tag == TAG_ROW_CHECKSUM:
                ranks = {ts: i for i, ts in enumerate(sorted({ts for _, ts in stamps}, reverse=True))}
                for at, ts in stamps:
                    out[at:at + 8] = b"S%07d" % ranks[ts]
                if stamps:
                    out[pos + 1] = ord("?")
                stamps = []
            pos += 2
        else:
            pos += 1
    return bytes(out)


def wd_hex(data):
    return data.hex() if len(data) <= 400 else "%s...(%d bytes)" % (data[:400].hex(), len(data))


def wd_rows_text(buf):
    if not buf:
        return "no row"
    try:
        rows = pb_decode_rows(buf)
    except Failure as e:
        return "undecodable (%s): %s" % (e, wd_hex(buf))
    return "; ".join("key %s attrs %s%s" % (r["pk"], r["attrs"], " deleted" if r["deleted"] else "") for r in rows)


def wd_outcome(reply, tables):
    """What must be alike: the status, code and message (the table named <table>), or the
    row (server timestamps as wd_masked gives them) and the ConsumedCapacity's bytes"""
    if reply.status != 200:
        message = reply.message
        for t in sorted(tables, key=len, reverse=True):
            message = message.replace(t, "<table>") if message is not None else None
        return (reply.status, reply.code, message)
    fields = pb_decode(reply.body)
    row = one(fields, 2)
    return (200, one(fields, 1), 2 in fields, wd_masked(row) if row else row)


def wd_reply_text(reply):
    if reply.status != 200:
        return "%d %s %r" % (reply.status, reply.code, reply.message)
    fields = pb_decode(reply.body)
    consumed = pb_decode(one(fields, 1, b""))
    cu = pb_decode(one(consumed, 1, b""))
    return "200 consumed read %s write %s (%s), row field %s: %s" % (
        one(cu, 1), one(cu, 2), one(fields, 1, b"").hex(), "present" if 2 in fields else "absent",
        wd_rows_text(one(fields, 2)) + (" bytes %s" % wd_hex(one(fields, 2)) if one(fields, 2) else ""))


def wd_read_table(table, keys):
    """Every row of the table, every version, as ([(key, [(name, value, ts or server rank)])], cells)"""
    inf = pb_row([(k, Val("inf_min")) for k in keys])
    sup = pb_row([(k, Val("inf_max")) for k in keys])
    start, rows, cells = inf, [], 0
    while True:
        rng = expect_ok(send("GetRange", f_bytes(1, table) + f_varint(2, 0) + f_varint(5, 1000) + f_bytes(7, start)
                             + f_bytes(8, sup)))
        for row in pb_decode_rows(one(rng, 2)) if one(rng, 2) else []:
            stamps = sorted({ts for _, _, ts, _ in row["attrs"] if ts > WD_CLIENT_TS}, reverse=True)
            attrs = []
            for name, value, ts, op in row["attrs"]:
                if value[0] == "dbl":  # bit for bit
                    value = ("dbl", struct.pack("<d", value[1]).hex(), value[1])
                attrs.append((name, value, ts if ts <= WD_CLIENT_TS else "server stamp #%d" % stamps.index(ts)))
            rows.append((row["pk"], attrs))
            cells += len(attrs)
        start = one(rng, 3)
        if not start:
            return rows, cells
        check(not one(rng, 4), "GetRange of %s: a next_token" % table)


# each path's functions: the wire path's (otsd's default), the jsonb path's (wire = off)
WD_ROW_FUNCTIONS = (("wire_put_row", "wire_update_row", "wire_delete_row"), ("put_row", "update_row", "delete_row"))
WD_BATCH_FUNCTIONS = (("wire_batch_write_row",), ("batch_write_row",))


def wd_calls(functions=WD_ROW_FUNCTIONS):
    """How often each path's functions returned: (ots.wire_put_row and its kin, ots.put_row and
    its kin), or of other functions, (wire path's, jsonb path's)"""
    def names(fns):
        return ", ".join("'%s'" % f for f in fns)
    got = superuser_sql("SELECT coalesce(sum(calls) FILTER (WHERE funcname IN (%s)), 0) || ' ' || "
                        "coalesce(sum(calls) FILTER (WHERE funcname IN (%s)), 0) "
                        "FROM pg_stat_user_functions WHERE schemaname = 'ots'"
                        % (names(functions[0]), names(functions[1])))
    return tuple(int(n) for n in got.split())


def wd_paths_taken(before, writes, functions=WD_ROW_FUNCTIONS):
    """Each otsd took its path for every write that succeeded: the counts of both paths'
    functions (track_functions, run.sh) grew by that many, once the backends reported them
    (a backend reports within 10 s of going idle)"""
    deadline = time.time() + 15
    while True:
        now = wd_calls(functions)
        grown = (now[0] - before[0], now[1] - before[1])
        if (grown[0] >= writes and grown[1] >= writes) or time.time() > deadline:
            break
        time.sleep(0.5)
    check(grown[0] >= writes and grown[1] >= writes,
          "%d writes succeeded, but the wire functions (%s) returned %d times and the jsonb functions (%s) %d: "
          "not the paths the test compares (a local transaction left open?)"
          % (writes, ", ".join(functions[0]), grown[0], ", ".join(functions[1]), grown[1]))


def wd_setup(tag, count_variable, count):
    """What a differential run starts from: the jsonb otsd's endpoint, the seed (WIRE_DIFF_SEED
    replays one), the count (count_variable sets it), the random generator, the tables'
    options (max_versions 4; a version offset taking in timestamps from 1 ms on, 10^12 s)
    and two pairs of tables to make, plain and AUTO_INCREMENT"""
    json_url = os.environ.get("OTSGW_JSON_ENDPOINT")
    check(json_url, "OTSGW_JSON_ENDPOINT is not set (run.sh starts the otsd with wire = off there)")
    seed = int(os.environ.get("WIRE_DIFF_SEED") or random.SystemRandom().randrange(1 << 31))
    pairs = [(TABLE + "_%s_wire" % tag, TABLE + "_%s_json" % tag, (("pk", 2), ("n", 1))),
             (TABLE + "_%s_wire_auto" % tag, TABLE + "_%s_json_auto" % tag, (("pk", 2), ("id", 1, 1)))]
    return (urllib.parse.urlparse(json_url), seed, int(os.environ.get(count_variable) or count),
            random.Random(seed), f_varint(2, 4) + f_varint(5, 10 ** 12), pairs)


def wd_failure(e, seed, where):
    """The failure to report for e: with the seed, and where it happened (None: after the run)"""
    if isinstance(e, Failure) and "WIRE_DIFF_SEED" in str(e):
        return e
    return Failure("seed %d (WIRE_DIFF_SEED=%d replays it)%s: %s%s" % (
        seed, seed, "" if where is None else ", at " + where,
        "" if isinstance(e, Failure) else type(e).__name__ + ": ", e))


def wd_drop(made):
    """The tables a run made, (name, endpoint), dropped"""
    for table, endpoint in made:
        try:
            send("DeleteTable", f_bytes(1, table), endpoint=endpoint)
        except Exception:  # a failure of the run is the one to report
            pass


def wd_make(pairs, options, json_endpoint, made):
    """Each pair's tables made, the wire one through this otsd, the jsonb one through the other;
    each added to made as (name, endpoint)"""
    for wire_table, json_table, keys in pairs:
        expect_ok(send("CreateTable", create_table_body(wire_table, keys=keys, options=options)))
        made.append((wire_table, None))
        expect_ok(send("CreateTable", create_table_body(json_table, keys=keys, options=options), endpoint=json_endpoint))
        made.append((json_table, json_endpoint))


def wd_tables_alike(pairs, seed, after):
    """Each pair's tables read back whole alike; (rows, cells) compared"""
    compared = cells = 0
    for wire_table, json_table, keys in pairs:
        keys = [k[0] for k in keys]
        got_wire, got_json = wd_read_table(wire_table, keys), wd_read_table(json_table, keys)
        if got_wire != got_json:
            for a, b in zip(got_wire[0] + [None] * len(got_json[0]), got_json[0] + [None] * len(got_wire[0])):
                if a != b:
                    break
            raise Failure("seed %d (WIRE_DIFF_SEED=%d replays it): after %s the tables differ: "
                          "%s has %d rows, %s %d; first difference:\n  %s: %r\n  %s: %r" % (
                              seed, seed, after, wire_table, len(got_wire[0]), json_table, len(got_json[0]),
                              wire_table, a, json_table, b))
        compared += len(got_wire[0])
        cells += got_wire[1]
    return compared, cells


@test
def wire_writes_match_jsonb():
    """PutRow, UpdateRow and DeleteRow through the wire path (ots.wire_put_row and so on,
    otsd's default) and the jsonb path (ots.put_row and so on, the otsd run.sh starts with
    wire = off, at OTSGW_JSON_ENDPOINT) answer alike: seeded random requests, each sent to
    a table through each otsd, the same bytes but the table's name (a third with one defect
    of the row), must get the same status, code and message, the same row bytes (server
    timestamps by rank) and capacity units; and the tables end alike, every version.
    WIRE_DIFF_SEED=n replays a run, WIRE_DIFF_REQUESTS=n sets its length (800)."""
    json_endpoint, seed, count, rnd, options, pairs = wd_setup("wd", "WIRE_DIFF_REQUESTS", 800)
    made, index, text = [], None, None
    try:
        wd_make(pairs, options, json_endpoint, made)
        calls_before = wd_calls()
        tables = [t for p in pairs for t in p[:2]]
        failed, rows_returned, defects, codes = 0, 0, 0, set()
        for index in range(count):
            auto, text = rnd.random() < 1 / 3, "(not made)"
            wire_table, json_table, _ = pairs[1 if auto else 0]
            action, spec, defect, condition, content, text = wd_request(rnd, auto)
            row = wd_row(spec)
            wire = send(action, wd_body(action, wire_table, row, condition, content))
            jsonb = send(action, wd_body(action, json_table, row, condition, content), endpoint=json_endpoint)
            alike = wd_outcome(wire, tables) == wd_outcome(jsonb, tables)
            if not alike or wire.status >= 500:
                raise Failure("seed %d (WIRE_DIFF_SEED=%d replays it), %s at request %d of %s: %s; row %s;\n"
                              "  wire (%s): %s\n  jsonb (%s): %s" % (
                                  seed, seed, "a server error" if alike else "replies differ", index,
                                  wire_table if not auto else "the AUTO_INCREMENT pair", text,
                                  wd_hex(row), wire_table, wd_reply_text(wire), json_table, wd_reply_text(jsonb)))
            defects += defect is not None
            if wire.status != 200:
                failed += 1
                codes.add(wire.message)
            elif one(pb_decode(wire.body), 2):
                rows_returned += 1
        index = None
        wd_paths_taken(calls_before, count - failed)
        compared, cells = wd_tables_alike(pairs, seed, "%d requests" % count)
        check(compared > 0 and rows_returned > 0 and failed < count, "a run that compared little: %d rows, %d returned, "
              "%d of %d failed" % (compared, rows_returned, failed, count))
    except Exception as e:  # the seed, and the request, on every failure
        raise wd_failure(e, seed, None if index is None else "request %d (%s)" % (index, text))
    finally:
        wd_drop(made)
    return ("seed %d: %d requests alike through both paths (%d with a defect), %d refused alike (%d messages), "
            "%d returned a row; the tables alike: %d rows, %d cells with every version" % (
                seed, count, defects, failed, len(codes), rows_returned, compared, cells))


# BatchWriteRow and BulkImport: the same rows through both paths (ots.wire_batch_write_row, and
# ots.batch_write_row at the otsd with wire = off)

WB_TYPES = {"PutRow": 1, "UpdateRow": 2, "DeleteRow": 3}
WB_TYPE_NAMES = {1: "PUT", 2: "UPDATE", 3: "DELETE"}
# keys of few values (a batch repeats them) and of more (a plain batch's distinct keys, for its bulk way)
WB_PLAIN_KEYS = {False: [(p, n) for p in ("k1", "k2", "ß", "k3", "k4") for n in (1, 2, 3, 4)],
                 True: [(p, n) for p in ("p", "q", "r", "s") for n in (1, 2, 3, 4, 5)]}
WB_BAD_TABLE_NAMES = ["bad-name", "1table", "a b", "é", "a" * 256]


def wb_batch(rnd, bulk):
    """A random BatchWriteRow (bulk: BulkImport, its one table's rows without conditions):
    {"entries": [(pair index or a table name, [(type, spec, condition, content, text)])],
    "atomic": None|bool, "text": ...}. A third carry a row defect in one row; some an
    undecodable column condition in one row, some with a defect in that row or another; some
    an entry without rows, an invalid table name in the second entry, a table that does not
    exist, or more than 200 rows in all."""
    odd = rnd.random()
    odd = ("no rows" if odd < 0.04 else "bad name" if odd < 0.08 else "over 200 rows" if odd < 0.11
           else "no such table" if odd < 0.13 and not bulk else None)
    nentries = 1 if bulk else rnd.choice([1, 1, 2, 2, 3])
    atomic = None if bulk or rnd.random() < 0.5 else rnd.random() < 0.4
    if odd == "bad name" and not bulk:
        nentries = max(nentries, 2)
    if odd == "over 200 rows":
        total = rnd.randint(201, 215)
        cuts = sorted(rnd.sample(range(1, total), nentries - 1))
        counts = [b - a for a, b in zip([0] + cuts, cuts + [total])]
    else:
        counts = [rnd.randint(1, rnd.choice([3, 5] if atomic else [3, 8, 20])) for _ in range(nentries)]
    names = [rnd.randrange(2) for _ in range(nentries)]
    if odd == "no rows":
        counts[rnd.randrange(nentries)] = 0
    elif odd == "bad name":
        names[0 if bulk else 1] = rnd.choice(WB_BAD_TABLE_NAMES)
    elif odd == "no such table":
        names[rnd.randrange(nentries)] = TABLE + "_wb_none"
    plain = bulk or rnd.random() < 0.25
    total = sum(counts)
    defect_at = rnd.randrange(total) if total and rnd.random() < 1 / 3 else None
    undecodable_at = rnd.randrange(total) if total and not bulk and rnd.random() < 0.15 else None
    if undecodable_at is not None and defect_at is None and rnd.random() < 0.6:
        # a row defect before it, after it, or in its row: the first in request order is the reply
        defect_at = rnd.choice([rnd.randrange(undecodable_at + 1), rnd.randrange(undecodable_at, total)])
    entries, at, texts = [], 0, []
    # each table's keys, distinct across its entries while they last
    unused = {auto: rnd.sample(WB_PLAIN_KEYS[auto], len(WB_PLAIN_KEYS[auto])) for auto in (False, True)}
    for e, (name, n) in enumerate(zip(names, counts)):
        auto = name == 1
        key_fn = None
        pool = unused[auto]
        if atomic and rnd.random() < 0.75:   # one partition: the rows may succeed
            partition = rnd.choice(["p", "q"] if auto else ["k1", "k2", "ß"])
            pool = [k for k in WB_PLAIN_KEYS[auto] if k[0] == partition]
            rnd.shuffle(pool)
        if rnd.random() < 0.7 or pool is not unused[auto]:
            # keys distinct while they last (a plain entry's bulk way), repeated past them;
            # else wd_request's keys, of few values
            keys = iter(pool[:n] + [rnd.choice(WB_PLAIN_KEYS[auto]) for _ in range(n - len(pool))])
            del pool[:n]

            def key_fn(pk, keys=keys):
                k = next(keys)
                return [(pk[0][0], Val("str", k[0]), None, None),
                        pk[1] if pk[1][1].kind == "auto" else (pk[1][0], Val("int", k[1]), None, None)]
        rows = []
        for _ in range(n):
            odd_row = at == undecodable_at
            action, spec, defect, condition, content, text = wd_request(
                rnd, auto, defect_chance=1 if at == defect_at else 0, filter_chance=0 if odd_row else 0.25,
                undecodable_chance=1 if odd_row else 0, plain=plain and not odd_row,
                actions=["PutRow", "PutRow", "DeleteRow"] if plain and not bulk else None, key=key_fn)
            rows.append((WB_TYPES[action], spec, condition, content, "#%d %s" % (at, text)))
            at += 1
        entries.append((name, rows))
        texts.append("entry %d, %s: %d rows%s" % (
            e, name if isinstance(name, str) else ["the pair", "the AUTO_INCREMENT pair"][name], n,
            "".join("\n      " + r[4] for r in rows)))
    text = "%s%s%s%s:\n    %s" % (
        "BulkImport" if bulk else "BatchWriteRow", "" if atomic is None else " is_atomic=%s" % atomic,
        " plain" if plain and not bulk else "", "; " + odd if odd else "", "\n    ".join(texts))
    return {"entries": entries, "atomic": atomic, "text": text, "defect": defect_at is not None,
            "undecodable": undecodable_at is not None, "odd": odd}


def wb_body(batch, bulk, names):
    """The request's body, names[i] the table of pair i"""
    def table_of(name):
        return names[name] if isinstance(name, int) else name
    if bulk:
        (name, rows), = batch["entries"]
        return f_bytes(1, table_of(name)) + b"".join(
            f_bytes(2, f_varint(1, kind) + f_bytes(2, wd_row(spec))) for kind, spec, _, _, _ in rows)
    body = b""
    for name, rows in batch["entries"]:
        body += f_bytes(1, f_bytes(1, table_of(name)) + b"".join(
            f_bytes(2, f_varint(1, kind) + f_bytes(2, wd_row(spec)) + f_bytes(3, condition)
                    + (f_bytes(4, content) if content is not None else b""))
            for kind, spec, condition, content, _ in rows))
    if batch["atomic"] is not None:
        body += f_varint(3, batch["atomic"])
    return body


def wb_outcome(reply, bulk, labels):
    """What must be alike: the status, code and message, or each table's name and each row's
    fields, is_ok, error, consumed and returned row (wd_masked); table names as labels name them"""
    def named(text):
        for name in sorted(labels, key=len, reverse=True):
            text = text.replace(name, labels[name]) if text is not None else None
        return text
    if reply.status != 200:
        return (reply.status, reply.code, named(reply.message))
    fields = pb_decode(reply.body)
    tables = [reply.body] if bulk else fields.get(1, [])
    out = []
    for raw in tables:
        table = pb_decode(raw)
        rows = []
        for row in table.get(2, []):
            f = pb_decode(row)
            error = decode_error(one(f, 2)) if 2 in f else None
            rows.append((sorted(f), one(f, 1), error and (error[0], named(error[1])), one(f, 3),
                         wd_masked(one(f, 4)) if one(f, 4) else one(f, 4)))
        out.append((sorted(table), named(one(table, 1, b"").decode("utf-8")), rows))
    return (200, sorted(fields), out)


def wb_difference(a, b):
    """Where two outcomes first differ, as text"""
    def summary(o):
        if o[0] != 200:
            return repr(o)
        return "200 %s" % "; ".join("%s: %s" % (t[1], ", ".join(
            "ok" if r[1] else "%s %r" % r[2] if r[2] else "failed" for r in t[2])) for t in o[2])
    if a[0] != 200 or b[0] != 200 or a[1] != b[1] or len(a[2]) != len(b[2]):
        return "wire %s\n  jsonb %s" % (summary(a), summary(b))
    for t, (ta, tb) in enumerate(zip(a[2], b[2])):
        if ta[:2] != tb[:2] or len(ta[2]) != len(tb[2]):
            return "table %d: wire %r, %d rows\n  jsonb %r, %d rows" % (t, ta[:2], len(ta[2]), tb[:2], len(tb[2]))
        for r, (ra, rb) in enumerate(zip(ta[2], tb[2])):
            if ra != rb:
                return "table %d (%s), row %d:\n  wire %r\n  jsonb %r" % (t, ta[1], r, ra, rb)
    return "?"


@test
def wire_batches_match_jsonb():
    """BatchWriteRow and BulkImport through the wire path (ots.wire_batch_write_row, otsd's
    default) and the jsonb path (ots.batch_write_row, the otsd with wire = off at
    OTSGW_JSON_ENDPOINT) answer alike: seeded random batches of 1 to 3 table entries (a table
    may come twice) of 1 to 20 PUT, UPDATE and DELETE rows (wire_writes_match_jsonb's rows,
    their keys distinct, for the bulk way, or of few values, so repeated; conditions, return
    content, is_atomic; a third with a row defect, some with an undecodable column condition
    before, after or in a bad row's, an entry without rows, a bad table name second, a table
    that does not exist, more than 200 rows), a tenth BulkImport,
    each sent to both otsds (each its own tables), must get the same status, code and message,
    or the same results row for row (is_ok, error, consumed, the row's bytes, server timestamps
    by rank); and the tables end alike, every version. WIRE_DIFF_SEED=n replays a run,
    WIRE_BATCH_REQUESTS=n sets its length (200)."""
    json_endpoint, seed, count, rnd, options, pairs = wd_setup("wb", "WIRE_BATCH_REQUESTS", 200)
    labels = {}
    for i, (wire_table, json_table, _) in enumerate(pairs):
        labels[wire_table] = labels[json_table] = "<table %d>" % i
    made, index, batch = [], None, None
    try:
        wd_make(pairs, options, json_endpoint, made)
        calls_before = wd_calls(WD_BATCH_FUNCTIONS)
        served = refused = rows_ok = rows_failed = rows_returned = bulks = 0
        defects = undecodable = 0
        messages, row_messages = set(), set()
        for index in range(count):
            bulk = rnd.random() < 0.1
            batch = wb_batch(rnd, bulk)
            action = "BulkImport" if bulk else "BatchWriteRow"
            wire = send(action, wb_body(batch, bulk, [p[0] for p in pairs]))
            jsonb = send(action, wb_body(batch, bulk, [p[1] for p in pairs]), endpoint=json_endpoint)
            got_wire, got_json = wb_outcome(wire, bulk, labels), wb_outcome(jsonb, bulk, labels)
            if got_wire != got_json or wire.status >= 500:
                raise Failure("seed %d (WIRE_DIFF_SEED=%d replays it), %s at batch %d: %s\n  %s" % (
                    seed, seed, "replies differ" if got_wire != got_json else "a server error", index,
                    batch["text"], wb_difference(got_wire, got_json)))
            bulks += bulk
            defects += batch["defect"]
            undecodable += batch["undecodable"]
            if wire.status != 200:
                refused += 1
                messages.add(got_wire[2])
                continue
            served += 1
            for _, _, rows in got_wire[2]:
                for _, is_ok, error, _, row in rows:
                    rows_ok += bool(is_ok)
                    rows_failed += not is_ok
                    rows_returned += bool(row)
                    if error:
                        row_messages.add(error[1])
        index = batch = None
        wd_paths_taken(calls_before, served, WD_BATCH_FUNCTIONS)
        compared, cells = wd_tables_alike(pairs, seed, "%d batches" % count)
        check(compared > 0 and rows_ok > 0 and rows_failed > 0 and refused > 0 and served > 0,
              "a run that compared little: %d rows in the tables, %d batches served (%d rows written, %d failed), "
              "%d refused" % (compared, served, rows_ok, rows_failed, refused))
    except Exception as e:  # the seed, and the batch, on every failure
        raise wd_failure(e, seed, None if index is None else "batch %d (%s)" % (index, batch and batch["text"]))
    finally:
        wd_drop(made)
    return ("seed %d: %d batches alike through both paths (%d BulkImport; %d with a row defect, %d with an "
            "undecodable column condition): %d refused alike (%d messages), %d served: %d rows written, %d failed "
            "alike (%d messages), %d returned a row; the tables alike: %d rows, %d cells with every version" % (
                seed, count, bulks, defects, undecodable, refused, len(messages), served, rows_ok, rows_failed,
                len(row_messages), rows_returned, compared, cells))


@test
def request_ids_unique():
    return "%d responses, each with its own x-ots-requestid" % len(REQUEST_IDS)


def main():
    failed = 0
    for fn in TESTS:
        name = "protocol_" + fn.__name__
        try:
            detail = fn()
            print("test %s ... ok%s" % (name, " (%s)" % detail if detail else ""), flush=True)
        except Failure as e:
            failed += 1
            print("test %s ... FAILED (%s)" % (name, e), flush=True)
        except Exception as e:  # a crash of the test itself, or otsd gone
            failed += 1
            print("test %s ... FAILED (%s: %s)" % (name, type(e).__name__, e), flush=True)
    try:
        send("DeleteTable", f_bytes(1, TABLE))
    except Exception:
        pass
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
