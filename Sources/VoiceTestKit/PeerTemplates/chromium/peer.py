#!/usr/bin/env python3
"""Headless Chromium as a WebRTC peer for interop tests, with the aiortc peer's interface.

Serves page.html on http://127.0.0.1 (a secure context) and carries its SDP through files: as
offerer the page's offer goes to --local and the answer is read from --remote; as answerer the
other way round. With --page sipphone.html the page is a SIP-over-WebSocket phone instead,
which signals by itself; --query passes it its settings. Chromium's fake microphone plays --play (a WAV); the page records what it
receives (48 kHz mono) into --record (WAV) for --seconds once connected, and its view of the
connection (getStats: DTLS state, SRTP cipher, selected pair) goes to --stats (JSON).
"""
import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import wave

HERE = os.path.dirname(os.path.abspath(__file__))


def write_whole(path, data, mode="w"):
    aside = path + ".part"
    with open(aside, mode) as f:
        f.write(data)
    os.replace(aside, path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--role", choices=["offer", "answer"], default="offer")
    parser.add_argument("--local")
    parser.add_argument("--remote")
    parser.add_argument("--page", default="page.html", choices=["page.html", "sipphone.html"])
    parser.add_argument("--query", default="")
    parser.add_argument("--ready", help="a file written when the page says it is ready (the phone: registered)")
    parser.add_argument("--receive-only", action="store_true",
                        help="no microphone (and so no capture permission): the browser hides its addresses behind mDNS names")
    parser.add_argument("--play")
    parser.add_argument("--record", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--browser", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()
    done = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def reply(self, code, body=b"", kind="text/plain"):
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path.startswith("/page"):
                with open(os.path.join(HERE, args.page), "rb") as f:
                    return self.reply(200, f.read(), "text/html")
            if self.path == "/media.js":
                with open(os.path.join(HERE, "media.js"), "rb") as f:
                    return self.reply(200, f.read(), "text/javascript")
            if self.path in ("/remote", "/remote2"):
                path = args.remote + (".2" if self.path == "/remote2" else "") if args.remote else None
                if path and os.path.exists(path):
                    with open(path, "rb") as f:
                        return self.reply(200, f.read())
                return self.reply(404)
            self.reply(404)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path == "/local" and args.local:
                write_whole(args.local, body.decode())
            elif self.path == "/local2" and args.local:
                write_whole(args.local + ".2", body.decode())
            elif self.path == "/recording":
                aside = args.record + ".part"
                with wave.open(aside, "wb") as w:
                    w.setnchannels(1)
                    w.setsampwidth(2)
                    w.setframerate(48000)
                    w.writeframes(body)
                os.replace(aside, args.record)
            elif self.path == "/stats":
                write_whole(args.stats, body.decode())
                done.set()
            elif self.path == "/ready" and args.ready:
                write_whole(args.ready, body.decode())
            elif self.path == "/log":
                print("page:", body.decode(), flush=True)
            self.reply(200)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix="chromium-profile")
    url = f"http://127.0.0.1:{server.server_address[1]}/page?role={args.role}&seconds={args.seconds}"
    if args.query:
        url += "&" + args.query
    if args.receive_only:
        url += "&recvonly=1"
        media = ["--enable-features=WebRtcHideLocalIpsWithMdns"]
    else:
        media = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                 f"--use-file-for-fake-audio-capture={args.play}"]
    browser = subprocess.Popen([
        args.browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
        f"--user-data-dir={profile}", *media, "--autoplay-policy=no-user-gesture-required",
        "--remote-debugging-port=0", url,
    ], stdout=sys.stdout, stderr=subprocess.STDOUT)
    finished = done.wait(timeout=args.seconds + 60)
    browser.terminate()
    try:
        browser.wait(timeout=5)
    except subprocess.TimeoutExpired:
        browser.kill()
    server.shutdown()
    shutil.rmtree(profile, ignore_errors=True)
    if not finished:
        write_whole(args.stats, json.dumps({"error": "the page reported nothing"}))
        sys.exit(1)
    with open(args.stats) as f:
        sys.exit(0 if "error" not in json.load(f) else 1)


if __name__ == "__main__":
    main()
