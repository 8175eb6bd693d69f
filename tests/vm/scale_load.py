#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Many TCP connections from one process, for tests/vm/scale.sh.

  scale_load.py server ADDR PORT [CCA]
      accept any number of connections (which inherit the listener's CCA,
      default the namespace's), read until EOF, close

  scale_load.py client ADDR PORT CCA LONG SHORT_PAR SECS
      open LONG connections set to CCA (setsockopt TCP_CONGESTION) and
      keep their send buffers full for SECS seconds, while SHORT_PAR
      short connections at a time each send 32 KiB and close; print one
      JSON object with what happened (below).

Both sides are single-threaded and non-blocking (epoll), so a thousand
connections cost a thousand sockets, not a thousand threads.  The slab
memory the kernel holds per connection is taken once every long
connection is up and before any data is sent (client and server ends,
file and epoll entries included).  A long connection is *stalled* when
what was written to it is not all acked within DRAIN_S seconds after the
writes stop; a short one open then is *unfinished* if it cannot write
the rest of its 32 KiB in that time.  Rates over the second half of the
run are reported.
"""
import errno
import fcntl
import json
import os
import select
import socket
import struct
import sys
import termios
import time

TCP_CONGESTION = 13
TCP_INFO = 11
BYTES_ACKED_OFF = 120		# struct tcp_info.tcpi_bytes_acked (u64)
SHORT_BYTES = 32 * 1024
DRAIN_S = 20
CHUNK = b"x" * 16384
LONG_BATCH = 64


def slab_kib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Slab:"):
                return int(line.split()[1])
    return 0


def bytes_acked(s):
    try:
        info = s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 256)
    except OSError:
        return -1
    if len(info) < BYTES_ACKED_OFF + 8:
        return -1
    return struct.unpack_from("Q", info, BYTES_ACKED_OFF)[0]


def outq(s):
    """Bytes in the send queue, sent or not, not yet acked."""
    try:
        buf = fcntl.ioctl(s.fileno(), termios.TIOCOUTQ, b"\0" * 4)
    except OSError:
        return 0
    return struct.unpack("i", buf)[0]


def cca_name(s):
    n = s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16)
    return n.rstrip(b"\0").decode()


def server(addr, port, cca):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if cca:
        srv.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cca.encode())
    srv.bind((addr, port))
    srv.listen(4096)
    srv.setblocking(False)
    ep = select.epoll()
    ep.register(srv.fileno(), select.EPOLLIN)
    conns = {}
    while True:
        for fd, _ in ep.poll():
            if fd == srv.fileno():
                while True:
                    try:
                        c, _ = srv.accept()
                    except BlockingIOError:
                        break
                    c.setblocking(False)
                    conns[c.fileno()] = c
                    ep.register(c.fileno(), select.EPOLLIN)
                continue
            c = conns.get(fd)
            if c is None:
                continue
            try:
                while c.recv(1 << 18):
                    pass
                eof = True
            except BlockingIOError:
                eof = False
            except OSError:
                eof = True
            if eof:
                ep.unregister(fd)
                del conns[fd]
                c.close()


def connect(addr, port, cca):
    s = socket.socket()
    s.setblocking(False)
    s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cca.encode())
    rc = s.connect_ex((addr, port))
    if rc not in (0, errno.EINPROGRESS):
        s.close()
        raise OSError(rc, os.strerror(rc))
    return s


def serve_shorts(sep, shorts, res, timeout):
    """One round of writes to the short connections; close the done."""
    for fd, ev in sep.poll(timeout):
        sh = shorts.get(fd)
        if sh is None:
            continue
        s = sh[0]
        try:
            if ev & (select.EPOLLERR | select.EPOLLHUP):
                raise OSError("connection failed")
            sh[1] -= s.send(CHUNK[:sh[1]])
        except (BlockingIOError, InterruptedError):
            continue
        except OSError:
            res["short_errors"] += 1
            sh[1] = -1
        if sh[1] <= 0:
            if sh[1] == 0:
                res["short_done"] += 1
            sep.unregister(fd)
            del shorts[fd]
            s.close()


def client(addr, port, cca, n_long, short_par, secs):
    res = {"cca": cca, "long": n_long, "connect_errors": 0,
           "wrong_cca": 0, "short_done": 0, "short_errors": 0}
    ep = select.epoll()
    slab0 = slab_kib()

    # every long connection up before any data moves
    pending = {}
    for _ in range(n_long):
        try:
            s = connect(addr, port, cca)
        except OSError:
            res["connect_errors"] += 1
            continue
        pending[s.fileno()] = s
        ep.register(s.fileno(), select.EPOLLOUT)
    longs = {}
    t0 = time.time()
    deadline = t0 + 120
    while pending and time.time() < deadline:
        for fd, _ in ep.poll(1.0):
            s = pending.pop(fd, None)
            if s is None:
                continue
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                res["connect_errors"] += 1
                ep.unregister(fd)
                s.close()
                continue
            ep.modify(fd, 0)
            longs[fd] = s
    res["connect_errors"] += len(pending)
    res["connect_s"] = round(time.time() - t0, 2)
    time.sleep(0.5)		# the server's accepts settle
    if longs:
        res["slab_bytes_per_conn"] = round(
            (slab_kib() - slab0) * 1024 / len(longs))
    # abc towards a receiver without ECN runs its own fallback ops
    # (Documentation/tcp_abc.rst)
    names = (cca, "abc-noecn") if cca == "abc" else (cca,)
    for s in longs.values():
        if cca_name(s) not in names:
            res["wrong_cca"] += 1

    # send: the long ones keep their buffers full, the short ones churn.
    # The short ones have their own epoll, served before every batch of
    # at most LONG_BATCH long ones: a thousand sends can take seconds in
    # a loaded guest, and a short connection must not wait behind them.
    for fd in longs:
        ep.modify(fd, select.EPOLLOUT)
    sep = select.epoll()
    shorts = {}			# fd -> [socket, bytes left]
    start = time.time()
    mid = start + secs / 2
    end = start + secs
    acked_mid = None
    while True:
        now = time.time()
        if acked_mid is None and now >= mid:
            acked_mid = {fd: bytes_acked(s) for fd, s in longs.items()}
        if now >= end:
            break
        next_stop = end if acked_mid is not None else mid
        while len(shorts) < short_par:
            try:
                s = connect(addr, port, cca)
            except OSError:
                res["short_errors"] += 1
                break
            shorts[s.fileno()] = [s, SHORT_BYTES]
            sep.register(s.fileno(), select.EPOLLOUT)
        serve_shorts(sep, shorts, res, 0)
        for fd, _ in ep.poll(0.01, LONG_BATCH):
            # a thousand sends take a while in a guest: stop on time
            if time.time() >= next_stop:
                break
            try:
                longs[fd].send(CHUNK)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                ep.modify(fd, 0)
    acked_end = {fd: bytes_acked(s) for fd, s in longs.items()}
    acked_mid = acked_mid or {}
    deltas = sorted(acked_end[fd] - acked_mid.get(fd, 0) for fd in longs)
    # Writes stop; every byte written must be acked within DRAIN_S.  A
    # sender process that cannot feed a thousand sockets (a TCG guest's
    # CPU carries both ends) leaves most send queues empty while it
    # writes, so a stall shows here, not in the rates above.
    # The short ones open at the end finish their 32 KiB meanwhile.
    t0 = time.time()
    left = list(longs.values())
    while (left or shorts) and time.time() - t0 < DRAIN_S:
        left = [s for s in left if outq(s) > 0]
        if shorts:
            serve_shorts(sep, shorts, res, 0.1)
        elif left:
            time.sleep(0.1)
    res["drain_s"] = round(time.time() - t0, 2)
    res["stalled"] = len(left)
    res["short_unfinished"] = len(shorts)
    if deltas:
        half = secs / 2
        mbit = [d * 8 / half / 1e6 for d in deltas]
        total = sum(mbit)
        sq = sum(x * x for x in mbit)
        res["second_half_mbit"] = round(total, 2)
        res["min_mbit"] = round(mbit[0], 4)
        res["median_mbit"] = round(mbit[len(mbit) // 2], 4)
        res["jain"] = round(total * total / (len(mbit) * sq), 3) if sq else 0
    # reset, not FIN: an orphan would go on sending its full send buffer
    # into the next run
    linger = struct.pack("ii", 1, 0)
    for s in list(longs.values()) + [sh[0] for sh in shorts.values()]:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        s.close()
    print(json.dumps(res))


def main(argv):
    if len(argv) in (4, 5) and argv[1] == "server":
        server(argv[2], int(argv[3]), argv[4] if len(argv) == 5 else "")
    elif len(argv) == 8 and argv[1] == "client":
        client(argv[2], int(argv[3]), argv[4], int(argv[5]), int(argv[6]),
               float(argv[7]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
