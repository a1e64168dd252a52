#!/usr/bin/env bash
# test/gateway/server_smoke.sh: the protocol checks of a running otsd, over
# raw HTTP (no SDK): signatures accepted and refused, dates, unknown actions,
# oversized bodies, missing headers, instance and key, Content-MD5, the API
# version, and the response headers and response signature the Java and
# Python SDKs verify.
#
#   test/gateway/server_smoke.sh [CONFIG]
#
# CONFIG is otsd's config file (default .otsd/otsd.conf, as tools/otsd
# writes it); its listen address, instance and first access key are used.
# Needs python3 (standard library only) and the ListTable action. Prints
# "test NAME ... ok|FAILED" lines; the exit status is non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
config="${1:-$root/.otsd/otsd.conf}"
[ -r "$config" ] || { echo "error: cannot read $config (run tools/otsd first)" >&2; exit 2; }

exec python3 - "$config" <<'EOF'
import base64, datetime, hashlib, hmac, http.client, re, sys, time

config = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line and not line.startswith('#') and '=' in line:
        name, value = (part.strip() for part in line.split('=', 1))
        config.setdefault(name, value)
host, port = config['listen'].rsplit(':', 1)
host = host.strip('[]')
instance = config['instance']
key_id, secret = config['access_key'].split()[:2]
failures = 0

def b64(data):
    return base64.b64encode(data).decode()

def iso_now(delta=0):
    now = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta)
    return now.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (now.microsecond // 1000)

def request_headers(action, body, **changes):
    """The headers an SDK sends, signed as lib/signer.js signs them; changes
    replace (value) or drop (None) headers before signing."""
    headers = {
        'x-ots-date': iso_now(),
        'x-ots-apiversion': '2015-12-31',
        'x-ots-accesskeyid': key_id,
        'x-ots-instancename': instance,
        'x-ots-contentmd5': b64(hashlib.md5(body).digest()),
    }
    for name, value in changes.items():
        name = name.replace('_', '-')
        if value is None:
            headers.pop(name, None)
        else:
            headers[name] = value
    text = '/' + action + '\nPOST\n\n' + ''.join(
        '%s:%s\n' % (n, headers[n]) for n in sorted(headers) if n.startswith('x-ots-'))
    headers['x-ots-signature'] = b64(hmac.new(secret.encode(), text.encode(), hashlib.sha1).digest())
    return headers

def send(action, body=b'', method='POST', headers=None, signature=None, **changes):
    if headers is None:
        headers = request_headers(action, body, **changes)
    if signature is not None:
        headers['x-ots-signature'] = signature
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request(method, '/' + action, body=body if method == 'POST' else None, headers=headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data

def error_of(body):
    """(code, message) of a protobuf Error{1: code, 2: message}"""
    fields, i = {}, 0
    while i < len(body):
        tag = body[i]; i += 1
        length, shift = 0, 0
        while True:
            b = body[i]; i += 1
            length |= (b & 0x7f) << shift; shift += 7
            if b < 0x80:
                break
        fields[tag >> 3] = body[i:i + length].decode(); i += length
    return fields.get(1), fields.get(2)

def check(name, condition, detail=''):
    global failures
    print('test %s ... %s' % (name, 'ok' if condition else 'FAILED'))
    if not condition:
        failures += 1
        if detail:
            print('    ' + str(detail))

def response_headers_ok(headers, body, action, signed):
    """What Python's _check_headers and _check_authorization and Java's
    ContentMD5ResponseHandler and OTSValidationResponseHandler require."""
    for name in ('x-ots-contentmd5', 'x-ots-requestid', 'x-ots-date', 'x-ots-contenttype'):
        if name not in headers:
            return 'missing ' + name
    if headers['x-ots-contentmd5'] != b64(hashlib.md5(body).digest()):
        return 'x-ots-contentmd5 is not the body\'s'
    server = datetime.datetime.strptime(headers['x-ots-date'], '%Y-%m-%dT%H:%M:%S.%fZ')
    if abs((server - datetime.datetime.utcnow()).total_seconds()) > 15 * 60:
        return 'x-ots-date too far from now'
    auth = headers.get('authorization')
    if not signed:
        return 'unexpected Authorization' if auth is not None else None
    if auth is None or not auth.startswith('OTS '):
        return 'no Authorization: OTS ...'
    auth_id, signature = auth[4:].split(':')
    text = ''.join('%s:%s\n' % (n, headers[n]) for n in sorted(headers) if n.startswith('x-ots-'))
    text += '/' + action
    expected = b64(hmac.new(secret.encode(), text.encode(), hashlib.sha1).digest())
    if auth_id != key_id or signature != expected:
        return 'response signature %s, expected %s:%s' % (auth, key_id, expected)
    return None

def expect_error(name, result, status, code, message, signed=False, action='ListTable'):
    got_status, headers, body = result
    got = error_of(body) if body else (None, None)
    ok = got_status == status and got == (code, message)
    check(name, ok, 'got %s %s, expected %s %s' % (got_status, got, status, (code, message)))
    problem = response_headers_ok(headers, body, action, signed)
    check(name + '_headers', problem is None, problem)

# a correctly signed request: accepted, answered with signed headers
status, headers, body = send('ListTable')
check('signature_accepted', status == 200, 'status %s body %r' % (status, body[:200]))
problem = response_headers_ok(headers, body, 'ListTable', True)
check('response_headers_and_signature', problem is None, problem)
first_id = headers.get('x-ots-requestid')
status, headers, body = send('ListTable')
check('request_id_per_request', headers.get('x-ots-requestid') not in (None, first_id))

# the date formats SDKs send: ISO 8601 with or without milliseconds, RFC 822
for name, date in (('iso_seconds', time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())),
                   ('rfc822', time.strftime('%a, %d %b %Y %H:%M:%S GMT', time.gmtime()))):
    status, headers, body = send('ListTable', x_ots_date=date)
    check('date_' + name, status == 200, 'status %s body %r' % (status, body[:200]))

expect_error('bad_signature', send('ListTable', signature='blahblah'),
             403, 'OTSAuthFailed', 'Signature mismatch.')
expect_error('wrong_secret', send('ListTable', signature=b64(b'\0' * 20)),
             403, 'OTSAuthFailed', 'Signature mismatch.')
stale = iso_now(-16 * 60)
expect_error('stale_date', send('ListTable', x_ots_date=stale),
             403, 'OTSAuthFailed', 'Mismatch between system time and x-ots-date: %s.' % stale, signed=True)
future = iso_now(16 * 60)
expect_error('future_date', send('ListTable', x_ots_date=future),
             403, 'OTSAuthFailed', 'Mismatch between system time and x-ots-date: %s.' % future, signed=True)
expect_error('date_format', send('ListTable', x_ots_date='blahblah'),
             400, 'OTSParameterInvalid', 'Invalid date format: blahblah.', signed=True)
expect_error('unknown_action', send('HelloWorld'),
             400, 'OTSUnsupportOperation', "Unsupported operation: 'HelloWorld'.")
expect_error('method_not_allowed', send('ListTable', method='GET'),
             405, 'OTSMethodNotAllowed', 'Only POST method for requests is supported.')
for header in ('x-ots-date', 'x-ots-signature', 'x-ots-accesskeyid', 'x-ots-instancename',
               'x-ots-apiversion', 'x-ots-contentmd5'):
    headers = request_headers('ListTable', b'', **{header: None})
    if header == 'x-ots-signature':
        del headers['x-ots-signature']
    expect_error('missing_' + header[6:], send('ListTable', headers=headers),
                 400, 'OTSMissingHeader', "Missing header: '%s'." % header)
expect_error('wrong_instance', send('ListTable', x_ots_instancename='nosuch'),
             403, 'OTSAuthFailed', 'The instance is not found.')
expect_error('unknown_key', send('ListTable', x_ots_accesskeyid='nosuchkey'),
             403, 'OTSAuthFailed', 'Signature mismatch.')  # as a wrong signature: docs/gateway.md
expect_error('md5_mismatch', send('ListTable', x_ots_contentmd5='blahblah'),
             403, 'OTSAuthFailed',
             'Mismatch between MD5 value of request body and x-ots-contentmd5 in header.', signed=True)
expect_error('api_version', send('ListTable', x_ots_apiversion='2014-08-08'),
             400, 'OTSParameterInvalid', "Unsupported API version: '2014-08-08'.", signed=True)

# oversized bodies: refused from Content-Length before the body is read,
# and when sent chunked (no length) once it grows past the limit
max_body = int(config.get('max_body', 5 * 1024 * 1024))
conn = http.client.HTTPConnection(host, int(port), timeout=30)
conn.putrequest('POST', '/ListTable')
for name, value in request_headers('ListTable', b'').items():
    conn.putheader(name, value)
conn.putheader('Content-Length', str(max_body + 1))
conn.endheaders()
response = conn.getresponse()
data = response.read()
conn.close()
expect_error('body_too_large', (response.status, {k.lower(): v for k, v in response.getheaders()}, data),
             413, 'OTSRequestBodyTooLarge', 'The size of POST data is too large.')

def chunks():
    for _ in range(max_body // 65536 + 2):
        yield b'\0' * 65536
conn = http.client.HTTPConnection(host, int(port), timeout=60)
conn.request('POST', '/ListTable', body=chunks(), headers=request_headers('ListTable', b''),
             encode_chunked=True)
response = conn.getresponse()
data = response.read()
conn.close()
expect_error('body_too_large_chunked', (response.status, {k.lower(): v for k, v in response.getheaders()}, data),
             413, 'OTSRequestBodyTooLarge', 'The size of POST data is too large.')

print('%d failed' % failures)
sys.exit(1 if failures else 0)
EOF
