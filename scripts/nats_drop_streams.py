#!/usr/bin/env python3
"""Removes the streams and object store of a Pitboss stream prefix from NATS (benchmarks clean up
after themselves): nats_drop_streams.py nats://HOST:PORT PREFIX. Speaks the NATS protocol over a
socket (no client library needed) to the JetStream API."""
import socket
import sys

url, prefix = sys.argv[1], sys.argv[2]
host, port = url.removeprefix("nats://").split(":")
s = socket.create_connection((host, int(port)), timeout=5)
f = s.makefile("rb")
f.readline()  # INFO
s.sendall(b'CONNECT {"verbose":false}\r\n')
names = [f"{prefix}_JOBS", f"{prefix}_RESULTS", f"{prefix}_PARKED", f"OBJ_{prefix}_BLOBS"]
for i, name in enumerate(names):
    s.sendall(f"SUB _bench.reply.{i} {i}\r\nPUB $JS.API.STREAM.DELETE.{name} _bench.reply.{i} 0\r\n\r\n".encode())
s.sendall(b"PING\r\n")
replies = 0
while replies < len(names):
    line = f.readline()
    if not line:
        break
    if line.startswith(b"MSG"):
        f.readline()
        replies += 1
s.close()
