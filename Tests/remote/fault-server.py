#!/usr/bin/env python3
"""The tests' own fault-injecting HTTP server (issue 57): files from a root, broken on purpose.

    fault-server.py ROOT PORT

Serves the files under ROOT on 127.0.0.1:PORT, one thread per connection, with what a client
resumes and revalidates by: Content-Length, ETag (strong), Last-Modified, Range (one range),
If-Match, If-None-Match and HEAD. The request path chooses the faults:

    /<id>/<faults>/<path under ROOT>

<id> is a name the test chooses (letters, digits, '.', '_', '-'): every fault counts the requests
of its own id, so tests running at once do not disturb each other. <faults> is '-' (none) or a
comma-separated list of

    truncate:N[:K]       close the connection after N bytes of the body, on the first K GETs
    reset:N[:K]          reset it (TCP RST) after N bytes of the body, on the first K GETs
    stall:N:S[:K]        stop for S seconds after N bytes of the body, then go on, first K GETs
    status:CODE[:S[:K]]  answer CODE (e.g. 503, 429, 500) with 'Retry-After: S' ('-': none)
                         to the first K requests, whatever their method
    change               after the first GET's response, the object changes: other bytes
                         (ROOT/<path>.v2 if it exists, else the bytes reversed) and another ETag

K defaults to 1. `GET /_stats/<id>` answers JSON: {"counts": {"GET": n, "HEAD": n},
"requests": [{"method", "path", "range", "ifMatch", "status", "bytesSent"}, ...]}, in the order
they arrived (a request appears once its response is over). Tests/remote/README.md says the same.
"""

import email.utils
import http.server
import json
import os
import re
import socket
import struct
import sys
import threading
import time
import urllib.parse

ID = re.compile(r"^[A-Za-z0-9._-]+$")
CHUNK = 64 * 1024


class Fault:
    def __init__(self, text):
        parts = text.split(":")
        self.name = parts[0]
        self.limit = 1
        self.after = None
        self.seconds = None
        self.code = None
        self.retry_after = None
        numbers = parts[1:]
        if self.name in ("truncate", "reset") and len(numbers) in (1, 2):
            self.after = int(numbers[0])
            if len(numbers) == 2:
                self.limit = int(numbers[1])
        elif self.name == "stall" and len(numbers) in (2, 3):
            self.after = int(numbers[0])
            self.seconds = float(numbers[1])
            if len(numbers) == 3:
                self.limit = int(numbers[2])
        elif self.name == "status" and len(numbers) in (1, 2, 3):
            self.code = int(numbers[0])
            if len(numbers) >= 2 and numbers[1] != "-":
                self.retry_after = numbers[1]
            if len(numbers) == 3:
                self.limit = int(numbers[2])
        elif self.name == "change" and not numbers:
            pass
        else:
            raise ValueError("unknown fault %r" % text)


class State:
    """What each id has seen: request counts per fault, whether its object changed, its log."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ids = {}

    def entry(self, key):
        with self.lock:
            return self.ids.setdefault(key, {"gets": 0, "requests": 0, "changed": False, "log": []})


STATE = State()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "SluiceFaultServer/1"

    def log_message(self, format, *args):
        if os.environ.get("SLUICE_FAULT_SERVER_VERBOSE"):
            sys.stderr.write("fault-server: " + (format % args) + "\n")

    def do_HEAD(self):
        self.serve(body=False)

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass

    def do_GET(self):
        if self.path.startswith("/_stats/"):
            return self.stats(self.path[len("/_stats/"):])
        self.serve(body=True)

    def stats(self, key):
        if not ID.match(key):
            return self.plain(400, "bad id\n")
        entry = STATE.entry(key)
        with STATE.lock:
            log = list(entry["log"])
        counts = {}
        for request in log:
            counts[request["method"]] = counts.get(request["method"], 0) + 1
        self.plain(200, json.dumps({"counts": counts, "requests": log}), "application/json")

    def plain(self, status, text, content_type="text/plain"):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def serve(self, body):
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        parts = path.lstrip("/").split("/", 2)
        if len(parts) != 3 or not ID.match(parts[0]):
            return self.plain(400, "expected /<id>/<faults>/<path>\n")
        key, fault_text, relative = parts
        try:
            faults = [] if fault_text == "-" else [Fault(item) for item in fault_text.split(",")]
        except ValueError as error:
            return self.plain(400, "%s\n" % error)
        root = self.server.root
        file_path = os.path.realpath(os.path.join(root, relative))
        if not file_path.startswith(root + os.sep):
            return self.plain(400, "outside the root\n")

        entry = STATE.entry(key)
        with STATE.lock:
            entry["requests"] += 1
            request_number = entry["requests"]
            if body:
                entry["gets"] += 1
            get_number = entry["gets"]
            changed = entry["changed"]
        record = {
            "method": self.command,
            "path": relative,
            "range": self.headers.get("Range"),
            "ifMatch": self.headers.get("If-Match"),
            "status": None,
            "bytesSent": 0,
        }
        try:
            self.respond(faults, file_path, changed, body, request_number, get_number, record)
        finally:
            with STATE.lock:
                entry["log"].append(record)
                if body and any(fault.name == "change" for fault in faults):
                    entry["changed"] = True

    def respond(self, faults, file_path, changed, body, request_number, get_number, record):
        for fault in faults:
            if fault.name == "status" and request_number <= fault.limit:
                record["status"] = fault.code
                self.send_response(fault.code)
                if fault.retry_after is not None:
                    self.send_header("Retry-After", fault.retry_after)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return

        content, mtime, version = self.load(file_path, changed)
        if content is None:
            record["status"] = 404
            return self.plain(404, "not found\n")
        size = len(content)
        etag = '"%x-%x-v%d"' % (size, int(mtime * 1000), version)
        last_modified = email.utils.formatdate(mtime, usegmt=True)

        if_match = self.headers.get("If-Match")
        if if_match is not None and if_match.strip() != "*" and etag not in [t.strip() for t in if_match.split(",")]:
            record["status"] = 412
            return self.plain(412, "precondition failed\n")
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None and etag in [t.strip() for t in if_none_match.split(",")]:
            record["status"] = 304
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return

        start, end, status = 0, size - 1, 200
        range_header = self.headers.get("Range")
        if range_header is not None:
            match = re.fullmatch(r"bytes=(\d*)-(\d*)", range_header.strip())
            if match is None or (match.group(1) == "" and match.group(2) == ""):
                record["status"] = 416
                return self.unsatisfiable(size)
            if match.group(1) == "":
                start, end = max(0, size - int(match.group(2))), size - 1
            else:
                start = int(match.group(1))
                end = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
            if start >= size or start > end:
                record["status"] = 416
                return self.unsatisfiable(size)
            status = 206

        record["status"] = status
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", last_modified)
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        if not body:
            return
        self.send_body(content[start : end + 1], faults, get_number, record)

    def load(self, file_path, changed):
        """The object's bytes, modification time and version (2 once it has changed)."""
        try:
            if changed:
                if os.path.isfile(file_path + ".v2"):
                    with open(file_path + ".v2", "rb") as handle:
                        return handle.read(), os.stat(file_path + ".v2").st_mtime, 2
                with open(file_path, "rb") as handle:
                    return handle.read()[::-1], os.stat(file_path).st_mtime, 2
            with open(file_path, "rb") as handle:
                return handle.read(), os.stat(file_path).st_mtime, 1
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None, 0, 0

    def unsatisfiable(self, size):
        self.send_response(416)
        self.send_header("Content-Range", "bytes */%d" % size)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def send_body(self, data, faults, get_number, record):
        active = [f for f in faults if f.name in ("truncate", "reset", "stall") and get_number <= f.limit]
        # The first fault whose byte comes first acts; a stall then lets the rest go on.
        stops = sorted(active, key=lambda f: f.after)
        offset = 0
        try:
            for fault in stops:
                point = min(fault.after, len(data))
                if point > offset:
                    self.wfile.write(data[offset:point])
                    record["bytesSent"] = point
                    offset = point
                self.wfile.flush()
                if fault.name == "stall":
                    time.sleep(fault.seconds)
                    continue
                self.close_connection = True
                if fault.name == "reset":
                    # SO_LINGER on with a zero timeout: close() sends a RST, not a FIN.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                else:
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            while offset < len(data):
                self.wfile.write(data[offset : offset + CHUNK])
                offset = min(offset + CHUNK, len(data))
                record["bytesSent"] = offset
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fault-server.py ROOT PORT")
    server = Server(("127.0.0.1", int(sys.argv[2])), Handler)
    server.root = os.path.realpath(sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
