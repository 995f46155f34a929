#!/usr/bin/env python3
"""A WebRTC peer on aiortc for interop tests: one audio transceiver, SDP through files.

As offerer it writes its offer to --local and waits for the answer at --remote; as answerer it
waits for the offer at --remote and writes its answer to --local (files appear whole: written
aside, then renamed). It plays --play (a WAV) and records what it receives to --record, for
--seconds after the connection is up, then writes its view of the connection to --stats (JSON)
and exits 0 (1 when the connection failed).
"""
import argparse
import asyncio
import json
import os
import sys
import time

from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.contrib.media import MediaPlayer, MediaRecorder


def write_whole(path, text):
    aside = path + ".part"
    with open(aside, "w") as f:
        f.write(text)
    os.replace(aside, path)


async def wait_for_file(path, timeout):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {path} within {timeout} s")
        await asyncio.sleep(0.02)
    with open(path) as f:
        return f.read()


async def run(args):
    pc = RTCPeerConnection()
    player = MediaPlayer(args.play, loop=True)
    recorder = MediaRecorder(args.record)
    connected = asyncio.Event()
    failed = asyncio.Event()
    started = time.monotonic()
    timings = {}

    @pc.on("track")
    def on_track(track):
        recorder.addTrack(track)

    @pc.on("connectionstatechange")
    async def on_state():
        if pc.connectionState == "connected":
            timings["connected_ms"] = (time.monotonic() - started) * 1000
            connected.set()
        elif pc.connectionState == "failed":
            failed.set()

    pc.addTrack(player.audio)
    if args.role == "offer":
        await pc.setLocalDescription(await pc.createOffer())
        write_whole(args.local, pc.localDescription.sdp)
        answer = await wait_for_file(args.remote, 30)
        started = time.monotonic()
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    else:
        offer = await wait_for_file(args.remote, 30)
        started = time.monotonic()
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        write_whole(args.local, pc.localDescription.sdp)

    done = asyncio.ensure_future(connected.wait())
    gave_up = asyncio.ensure_future(failed.wait())
    await asyncio.wait([done, gave_up], timeout=20, return_when=asyncio.FIRST_COMPLETED)
    ok = connected.is_set()
    if ok:
        await recorder.start()
        await asyncio.sleep(args.seconds)
        await recorder.stop()
    stats = {"connectionState": pc.connectionState, "iceConnectionState": pc.iceConnectionState}
    stats.update(timings)
    for transceiver in pc.getTransceivers():
        transport = transceiver.sender.transport
        if transport is not None:
            stats["dtlsState"] = transport.state
            stats["iceRole"] = transport.transport.role
    write_whole(args.stats, json.dumps(stats))
    player.audio.stop()
    await pc.close()
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--role", choices=["offer", "answer"], required=True)
    parser.add_argument("--local", required=True)
    parser.add_argument("--remote", required=True)
    parser.add_argument("--play", required=True)
    parser.add_argument("--record", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--seconds", type=float, default=4)
    args = parser.parse_args()
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
