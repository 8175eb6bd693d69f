#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate the fixed ACK and packet sequences of tests/cost.

Run once; its output, acks.txt and pkts.txt, is committed beside it so
that every machine replays the same sequence (make cost; see
Documentation/testing.rst).  Deterministic: a fixed seed, random() only
(the same stream on every Python 3).

One TCP Reno-like flow in TSO skbs of up to 8 packets, delayed ACKs
(one per two packets), over a 20 Mbit/s bottleneck with a 40 ms base
RTT and a 100-packet FIFO: slow start, 0.3 % random loss after the
first second, fast recovery, CE marks growing with the sojourn time
(echoed per packet, as tcp_abc's receiver does; ECE halves cwnd only
above 120 packets, so marks stay frequent).  From 2.5 s the
application writes 45 packets each 100 ms (app-limited, a TX_START
each time), from 3.2 s nothing (idle), and from 3.8 s it is bulk
again until 8 s.  A 1 Mbit/s Not-ECT cross flow shares the FIFO.

acks.txt, what the sender's stack reports on each ACK (tcp_rate.c's
rate sample and the socket fields the glue reads), one record a line:
  a now_us delivered prior_delivered acked_sacked losses rtt_us
    interval_us snd_interval_us prior_in_flight in_flight srtt_us
    first_tx_us last_end_seq app_limited is_retrans ece ca_state
  t now_us      first send with nothing in flight after idle (TX_START)
  r now_us      retransmission timeout (CA_Loss)
rtt_us, interval_us and prior_delivered are -1 when tcp_rate.c gives
no sample; ca_state is TCP_CA_* (0 Open, 2 CWR, 3 Recovery, 4 Loss).

pkts.txt, every packet leaving the bottleneck (sch_abc's dequeue):
  p dequeue_ns enqueue_ns len ecn hash backlogged
ecn is the codepoint at enqueue (0 Not-ECT, 2 ECT(0), 3 CE); backlogged
is 1 if packets are left queued behind it.
"""
import heapq
import os
import random
import sys

SEED = 32
RATE_BPS = 20_000_000
ONE_WAY_NS = 20_000_000
QUEUE_PKTS = 100
PKT = 1500          # wire bytes of a full-sized packet
MSS = 1448
TSO = 8
LOSS = 0.003
LOSS_FROM = 1e9
LOSSLESS = (3.0e9, 3.8e9)   # no tail loss before idle: a clean restart
ECE_CUT_PKTS = 120  # ECE halves cwnd only above this (CWR), so marks stay frequent
AI = 2              # packets per RTT in congestion avoidance
CE_LO_NS, CE_HI_NS = 2_000_000, 30_000_000
CROSS_BPS, CROSS_PKT = 1_000_000, 1000
NIC_NS = 12_000     # sender's line rate between the packets of a burst
DELACK_NS = 10_000_000
APP_START, IDLE_START, BULK_AGAIN, END = 2.5e9, 3.2e9, 3.8e9, 8e9
APP_CHUNK_PKTS, APP_PERIOD_NS = 45, 100_000_000


class Sim:
    def __init__(self, out_acks, out_pkts):
        self.rng = random.Random(SEED)
        self.ev = []
        self.evn = 0
        self.acks, self.pkts = out_acks, out_pkts
        # bottleneck
        self.q = []
        self.link_busy = False
        # sender
        self.cwnd, self.ssthresh = 10.0, 1e9
        self.next_seq = 0
        self.skb_end = 0
        self.app_avail = 10**9      # packets the application has written
        self.pkt = {}               # seq -> per-packet state
        self.delivered = 0
        self.delivered_ns = 0
        self.first_tx_ns = 0
        self.lost_q = []            # seqs marked lost, to retransmit
        self.high_dlv = -1          # newest transmission delivered
        self.state = 0
        self.recover = 0
        self.srtt = 0
        self.last_progress = 0
        self.idle = False
        self.nic_ns = 0
        self.txi = 0                # transmissions so far
        # receiver
        self.rcv_pending = []
        self.rcv_ce = 0
        self.delack_armed = False

    def at(self, t, kind, *data):
        self.evn += 1
        heapq.heappush(self.ev, (int(t), self.evn, kind, data))

    def in_flight(self):
        return sum(1 for p in self.pkt.values() if p['out'])

    # ---- sender ----
    def phase_app_limited(self, t):
        return APP_START <= t < BULK_AGAIN

    def try_send(self, now):
        if now >= END:
            return
        inflight = self.in_flight()
        while inflight < int(self.cwnd):
            n = min(TSO, int(self.cwnd) - inflight)
            seqs = []
            while self.lost_q and len(seqs) < n:
                seqs.append(self.lost_q.pop(0))
            while len(seqs) < n and self.app_avail > 0:
                seqs.append(self.next_seq)
                self.next_seq += 1
                self.app_avail -= 1
            if not seqs:
                self.idle = inflight == 0
                return
            if inflight == 0:
                self.first_tx_ns = self.delivered_ns = now
                self.last_progress = now
                if self.idle:
                    self.acks.append('t %d' % (now // 1000))
                    self.idle = False
            self.skb_end += len(seqs)
            for s in seqs:
                retrans = s in self.pkt
                self.pkt[s] = dict(
                    tx=now, dlv=self.delivered, dlv_ns=self.delivered_ns,
                    first_tx=self.first_tx_ns, end=self.skb_end & 0xffffffff,
                    app=self.phase_app_limited(now), retrans=retrans,
                    out=True, done=False, txi=self.txi)
                self.txi += 1
                self.nic_ns = max(self.nic_ns, now) + NIC_NS
                self.at(self.nic_ns, 'enq', ('tcp', s, PKT))
            inflight += len(seqs)

    def on_ack(self, now, seqs, ece):
        prior_in_flight = self.in_flight()
        newest = None
        acked = 0
        for s in seqs:
            p = self.pkt.get(s)
            if p is None or p['done']:
                continue
            if not p['out']:            # marked lost, then arrived
                if s in self.lost_q:
                    self.lost_q.remove(s)
            p['done'], p['out'] = True, False
            acked += 1
            self.high_dlv = max(self.high_dlv, p['txi'])
            if newest is None or p['tx'] > newest['tx']:
                newest = p
        # losses: three packets sent later were delivered (dupthresh)
        losses = 0
        for s, p in self.pkt.items():
            if p['out'] and p['txi'] < self.high_dlv - 3:
                p['out'] = False
                self.lost_q.append(s)
                losses += 1
        self.lost_q.sort()
        self.delivered += acked
        if acked:
            self.delivered_ns = now
            self.last_progress = now
        if newest:
            prior_dlv = newest['dlv']
            snd_us = (newest['tx'] - newest['first_tx']) // 1000
            ack_us = (now - newest['dlv_ns']) // 1000
            interval = max(snd_us, ack_us)
            rtt = -1 if newest['retrans'] else (now - newest['tx']) // 1000
            self.first_tx_ns = newest['tx']
            if rtt > 0:
                self.srtt = rtt if not self.srtt else (7 * self.srtt + rtt) // 8
            app, retr, end = newest['app'], newest['retrans'], newest['end']
            first_tx = newest['tx'] // 1000
        else:
            prior_dlv, interval, snd_us, rtt = -1, -1, 0, -1
            app, retr, end, first_tx = False, False, self.skb_end, 0
        # congestion response
        if losses and self.state in (0, 2):
            self.state, self.recover = 3, self.next_seq
            self.ssthresh = self.cwnd = max(self.cwnd / 2, 2)
        elif ece and self.state == 0 and self.cwnd > ECE_CUT_PKTS:
            self.state, self.recover = 2, self.next_seq
            self.ssthresh = self.cwnd = max(self.cwnd / 2, 2)
        elif self.state in (2, 3, 4) and all(
                p['done'] for s, p in self.pkt.items() if s < self.recover):
            self.state = 0
        if self.state == 0 and acked:
            if self.cwnd < self.ssthresh:
                self.cwnd += acked
            else:
                self.cwnd += AI * acked / self.cwnd
        self.acks.append('a %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d' % (
            now // 1000, self.delivered & 0xffffffff, prior_dlv, acked,
            losses, rtt, interval, snd_us, prior_in_flight,
            self.in_flight(), self.srtt, first_tx & 0xffffffff, end,
            int(app), int(retr), int(ece), self.state))
        # forget what no ACK can refer to any more
        for s in [s for s, p in self.pkt.items() if p['done'] and p['txi'] < self.high_dlv - 200]:
            del self.pkt[s]
        self.try_send(now)

    def rto_check(self, now):
        rto = max(200_000_000, 4 * self.srtt * 1000)
        if self.in_flight() and now - self.last_progress > rto:
            self.acks.append('r %d' % (now // 1000))
            for s, p in self.pkt.items():
                if p['out']:
                    p['out'] = False
                    self.lost_q.append(s)
            self.lost_q.sort()
            self.state, self.recover = 4, self.next_seq
            self.ssthresh, self.cwnd = max(self.cwnd / 2, 2), 1
            self.last_progress = now
            self.try_send(now)
        if now < END:
            self.at(now + 50_000_000, 'rto')

    # ---- bottleneck ----
    def enqueue(self, now, item):
        kind, key, size = item
        if len(self.q) >= QUEUE_PKTS:
            return                      # tail drop
        self.q.append((now, item))
        if not self.link_busy:
            self.link_busy = True
            self.at(now + size * 8 * 10**9 // RATE_BPS, 'deq')

    def dequeue(self, now):
        enq, (kind, key, size) = self.q.pop(0)
        if kind == 'tcp':
            ecn = 3 if self.rng.random() < 0.02 else 2
            h = 0x9e3779b1 + (key // 16) % 3
        else:
            ecn, h = 0, 0x7f4a7c15 + key % 2
        self.pkts.append('p %d %d %d %d %d %d' % (
            now, enq, size, ecn, h, int(bool(self.q))))
        if self.q:
            self.at(now + self.q[0][1][2] * 8 * 10**9 // RATE_BPS, 'deq')
        else:
            self.link_busy = False
        if kind != 'tcp' or (now > LOSS_FROM and not LOSSLESS[0] <= now < LOSSLESS[1]
                                 and self.rng.random() < LOSS):
            return
        soj = now - enq
        ce = soj > CE_LO_NS and self.rng.random() < (soj - CE_LO_NS) / (CE_HI_NS - CE_LO_NS)
        self.at(now + ONE_WAY_NS, 'rcv', key, ce)

    # ---- receiver: an ACK per two packets, at once on a CE change ----
    def receive(self, now, seq, ce):
        changed = ce != self.rcv_ce
        if changed:
            self.send_ack(now)
        self.rcv_ce = ce
        self.rcv_pending.append(seq)
        if len(self.rcv_pending) >= 2 or changed:
            self.send_ack(now)
        elif not self.delack_armed:
            self.delack_armed = True
            self.at(now + DELACK_NS, 'delack')

    def send_ack(self, now):
        if self.rcv_pending:
            self.at(now + ONE_WAY_NS, 'ack', tuple(self.rcv_pending), self.rcv_ce)
            self.rcv_pending = []

    def run(self):
        self.try_send(0)
        self.at(APP_START, 'app_phase')
        self.at(IDLE_START, 'idle_phase')
        self.at(BULK_AGAIN, 'bulk_phase')
        self.at(50_000_000, 'rto')
        gap = CROSS_PKT * 8 * 10**9 // CROSS_BPS
        for i in range(int(END // gap)):
            self.at(i * gap + 137_000, 'enq', ('cross', i, CROSS_PKT))
        while self.ev:
            now, _, kind, data = heapq.heappop(self.ev)
            if kind == 'enq':
                self.enqueue(now, data[0])
            elif kind == 'deq':
                self.dequeue(now)
            elif kind == 'rcv':
                self.receive(now, *data)
            elif kind == 'delack':
                self.delack_armed = False
                self.send_ack(now)
            elif kind == 'ack':
                self.on_ack(now, *data)
            elif kind == 'rto':
                self.rto_check(now)
            elif kind == 'app_phase':
                self.app_avail = 0
                self.at(now, 'app_write')
            elif kind == 'app_write':
                if now < IDLE_START:
                    self.app_avail += APP_CHUNK_PKTS
                    self.try_send(now)
                    self.at(now + APP_PERIOD_NS, 'app_write')
            elif kind == 'bulk_phase':
                self.app_avail = 10**9
                self.try_send(now)


def main():
    acks, pkts = [], []
    Sim(acks, pkts).run()
    hdr = '# generated by tests/cost/gen-acks.py (seed %d); do not edit\n' % SEED
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'acks.txt'), 'w') as f:
        f.write(hdr + '\n'.join(acks) + '\n')
    with open(os.path.join(here, 'pkts.txt'), 'w') as f:
        f.write(hdr + '\n'.join(pkts) + '\n')
    print('gen-acks: %d ACK records, %d packets' % (
        sum(1 for a in acks if a[0] == 'a'), len(pkts)), file=sys.stderr)


if __name__ == '__main__':
    main()
