#!/usr/bin/env python3
"""pjsip as a SIP peer for interop tests (PyPI pjsua2-python).

One account on 127.0.0.1 with a UDP transport, no registration, a null sound device. It answers
every call (or places one with --call) and, once the call is confirmed, runs --script: comma-
separated steps, each one of
    rtp=DIGITS     send DIGITS as RFC 4733 telephone-events
    info=DIGITS    send DIGITS as SIP INFO application/dtmf-relay, one request each
    sleep=SECONDS  wait
    hangup         end the call
    xfer=URI       transfer the call to URI (REFER; pjsua's Call.xfer)
    consult=URI    place a second call to URI and wait until it is confirmed
    xferreplaces   transfer the first call to the second one's peer (attended: Call.xferReplaces)
It prints one line per event, flushed, for the test to read:
    READY <port>, INCOMING, CONFIRMED, SENT <step>, DIGIT <digit> <rfc2833|info> <ms>,
    TSX <UPDATE|INVITE> <sent|received> <status> (each completed one, a session refresh among
    them), DISCONNECTED <status>, and EXIT when it is done (--exit-after seconds, or after hangup).
--timer sets pjsua's RFC 4028 session-timer mode, with --session-expires seconds; --prack its
RFC 3262 100rel mode (PRACK transactions are printed as TSX lines too). --ring SECONDS answers
a call with 180 (or --ring-status, 183 with SDP: early media) first and 200 that much later.
--tone HZ plays a steady tone into every call once its media is up. Transfers print
XFER REQUEST <uri> (a REFER it accepts, calling URI), XFER STATUS <code> <final 0|1> (the
NOTIFYs of its own transfer) and REPLACED (an INVITE with Replaces took over its call).
"""
import argparse
import os
import sys
import time

import pjsua2 as pj


def say(line):
    print(line, flush=True)


class Call(pj.Call):
    def __init__(self, peer, account, call_id=pj.PJSUA_INVALID_ID):
        super().__init__(account, call_id)
        self.peer = peer

    def onCallState(self, prm):
        info = self.getInfo()
        if info.state == pj.PJSIP_INV_STATE_CONFIRMED:
            say("CONFIRMED")
            self.peer.confirmed_at = time.monotonic()
        elif info.state == pj.PJSIP_INV_STATE_DISCONNECTED:
            say(f"DISCONNECTED {info.lastStatusCode}")
            self.peer.ended = True

    def onCallTsxState(self, prm):
        # Each completed UPDATE or INVITE in the dialog (a session refresh among them), either way.
        tsx = prm.e.body.tsxState.tsx
        if tsx.state == pj.PJSIP_TSX_STATE_COMPLETED or tsx.state == pj.PJSIP_TSX_STATE_TERMINATED:
            if tsx.method in ("UPDATE", "INVITE", "PRACK") and tsx.statusCode >= 200:
                key = (tsx.method, tsx.role, tsx.statusCode, id(tsx.pjTransaction))
                if key not in self.peer.seen:
                    self.peer.seen.add(key)
                    side = "sent" if tsx.role == pj.PJSIP_ROLE_UAC else "received"
                    say(f"TSX {tsx.method} {side} {tsx.statusCode}")

    def onCallMediaState(self, prm):
        if self.peer.tone_hz <= 0:
            return
        info = self.getInfo()
        for index, media in enumerate(info.media):
            if media.type == pj.PJMEDIA_TYPE_AUDIO and media.status == pj.PJSUA_CALL_MEDIA_ACTIVE:
                audio = self.getAudioMedia(index)
                tone = pj.ToneGenerator()
                tone.createToneGenerator()
                desc = pj.ToneDesc()
                desc.freq1 = self.peer.tone_hz
                desc.freq2 = self.peer.tone_hz
                desc.on_msec = 10000
                desc.off_msec = 0
                tones = pj.ToneDescVector()
                tones.append(desc)
                tone.play(tones, True)
                tone.startTransmit(audio)
                self.peer.keep.append(tone)

    def onCallTransferRequest(self, prm):
        say(f"XFER REQUEST {prm.dstUri}")
        prm.statusCode = 202
        new_call = Call(self.peer, self.peer.account)
        self.peer.keep.append(new_call)
        prm.newCall = new_call

    def onCallTransferStatus(self, prm):
        say(f"XFER STATUS {prm.statusCode} {1 if prm.finalNotify else 0}")

    def onCallReplaced(self, prm):
        say("REPLACED")
        if getattr(prm, "newCall", None) is not None:
            self.peer.keep.append(prm.newCall)

    def onDtmfDigit(self, prm):
        method = "info" if prm.method == pj.PJSUA_DTMF_METHOD_SIP_INFO else "rfc2833"
        say(f"DIGIT {prm.digit} {method} {prm.duration}")


class Account(pj.Account):
    def __init__(self, peer):
        super().__init__()
        self.peer = peer

    def onIncomingCall(self, prm):
        call = Call(self.peer, self, prm.callId)
        self.peer.call = call
        say("INCOMING")
        if self.peer.ring > 0:
            ringing = pj.CallOpParam()
            ringing.statusCode = self.peer.ring_status
            call.answer(ringing)
            self.peer.answer_at = time.monotonic() + self.peer.ring
            return
        answer = pj.CallOpParam()
        answer.statusCode = 200
        call.answer(answer)


class Peer:
    def __init__(self):
        self.seen = set()
        self.call = None
        self.confirmed_at = None
        self.ended = False
        self.ring = 0
        self.ring_status = 180
        self.tone_hz = 0
        self.consult = None
        self.account = None
        self.keep = []
        self.answer_at = None


def run_step(peer, step):
    name, _, value = step.partition("=")
    if name == "rtp":
        peer.call.dialDtmf(value)
    elif name == "info":
        for digit in value:
            prm = pj.CallSendDtmfParam()
            prm.method = pj.PJSUA_DTMF_METHOD_SIP_INFO
            prm.digits = digit
            prm.duration = 160
            peer.call.sendDtmf(prm)
            pump(peer, 0.3)
    elif name == "sleep":
        pump(peer, float(value))
    elif name == "hangup":
        peer.call.hangup(pj.CallOpParam())
    elif name == "xfer":
        peer.call.xfer(value, pj.CallOpParam(True))
    elif name == "consult":
        consult = Call(peer, peer.account)
        peer.keep.append(consult)
        peer.consult = consult
        consult.makeCall(value, pj.CallOpParam(True))
        end = time.monotonic() + 10
        while time.monotonic() < end and consult.getInfo().state != pj.PJSIP_INV_STATE_CONFIRMED:
            ENDPOINT.libHandleEvents(10)
        pump(peer, 0.5)
    elif name == "xferreplaces":
        peer.call.xferReplaces(peer.consult, pj.CallOpParam(True))
    else:
        raise SystemExit(f"unknown step {step}")
    say(f"SENT {step}")


ENDPOINT = None


def pump(peer, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ENDPOINT.libHandleEvents(10)


def main():
    global ENDPOINT
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--call")
    parser.add_argument("--script", default="")
    parser.add_argument("--exit-after", type=float, default=30)
    parser.add_argument("--timer", choices=["inactive", "optional", "required", "always"])
    parser.add_argument("--session-expires", type=int, default=1800)
    parser.add_argument("--prack", choices=["optional", "required"])
    parser.add_argument("--ring", type=float, default=0)
    parser.add_argument("--ring-status", type=int, choices=[180, 183], default=180)
    parser.add_argument("--tone", type=int, default=0)
    args = parser.parse_args()

    ep = pj.Endpoint()
    ENDPOINT = ep
    ep.libCreate()
    config = pj.EpConfig()
    config.uaConfig.threadCnt = 0
    config.uaConfig.mainThreadOnly = True
    config.logConfig.level = 3
    config.logConfig.consoleLevel = 3
    # Silence is sent as audio, not suppressed: the far end sees a live stream from the null device.
    config.medConfig.noVad = True
    ep.libInit(config)
    transport = pj.TransportConfig()
    transport.port = args.port
    transport.boundAddress = "127.0.0.1"
    ep.transportCreate(pj.PJSIP_TRANSPORT_UDP, transport)
    ep.libStart()
    ep.audDevManager().setNullDev()

    account_config = pj.AccountConfig()
    account_config.idUri = f"sip:pj@127.0.0.1:{args.port}"
    # SDES-SRTP as the SDK offers it (RTP/SAVP): optional SRTP in pjsua means RTP/AVP with crypto.
    account_config.mediaConfig.srtpUse = pj.PJMEDIA_SRTP_MANDATORY
    account_config.mediaConfig.srtpSecureSignaling = 0
    # RTP on a port of its own beside the SIP one (pjsua's 4000 would clash between peers).
    account_config.mediaConfig.transportConfig.port = args.port + 2
    account_config.mediaConfig.transportConfig.portRange = 20
    if args.timer:
        # RFC 4028 session timers: pjsua's own modes, its interval and a Min-SE of 90.
        modes = {"inactive": pj.PJSUA_SIP_TIMER_INACTIVE, "optional": pj.PJSUA_SIP_TIMER_OPTIONAL,
                 "required": pj.PJSUA_SIP_TIMER_REQUIRED, "always": pj.PJSUA_SIP_TIMER_ALWAYS}
        account_config.callConfig.timerUse = modes[args.timer]
        account_config.callConfig.timerSessExpiresSec = args.session_expires
        account_config.callConfig.timerMinSESec = 90
    if args.prack:
        # RFC 3262: pjsua's 100rel modes (optional: Supported: 100rel; required: Require: 100rel).
        modes = {"optional": pj.PJSUA_100REL_OPTIONAL, "required": pj.PJSUA_100REL_MANDATORY}
        account_config.callConfig.prackUse = modes[args.prack]
    peer = Peer()
    peer.ring = args.ring
    peer.ring_status = args.ring_status
    peer.tone_hz = args.tone
    account = Account(peer)
    peer.account = account
    account.create(account_config)
    say(f"READY {args.port}")

    if args.call:
        call = Call(peer, account)
        peer.call = call
        call.makeCall(args.call, pj.CallOpParam(True))

    started = time.monotonic()
    steps = [s for s in args.script.split(",") if s]
    while time.monotonic() - started < args.exit_after and not (peer.ended and not steps):
        ep.libHandleEvents(10)
        if peer.answer_at is not None and time.monotonic() >= peer.answer_at and not peer.ended:
            peer.answer_at = None
            answer = pj.CallOpParam()
            answer.statusCode = 200
            peer.call.answer(answer)
            say("ANSWERED")
        if steps and peer.confirmed_at is not None and not peer.ended:
            pump(peer, 0.5)  # the media settles before the first key
            while steps and not peer.ended:
                run_step(peer, steps.pop(0))
    pump(peer, 0.5)
    say("EXIT")
    # Not libDestroy(): the Python wrappers of the calls outlive it and abort on their way out.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except pj.Error as error:
        print(f"pjsua2 error: {error.info()}", file=sys.stderr, flush=True)
        sys.exit(1)
