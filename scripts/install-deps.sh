#!/usr/bin/env bash
# Installs the system libraries and tools the package and its tests need (Debian), including the
# SIP peers the interop tests run against: baresip (baresip-core) and kamailio (with its TLS and
# WebSocket modules), the WebRTC-to-SIP media gateway rtpengine (rtpengine-daemon), what the
# network tests build their networks with: iproute2, nftables (a NAT router or firewall) and coturn (STUN and TURN),
# and the sound server the audio-interruption tests kill and restart: pulseaudio (with its
# tools) behind ALSA's pulse PCM (libasound2-plugins), and libpulse (libpulse-dev), which lists the
# desktop's devices and opens them directly. OpenSSL 3 (libssl-dev) for DTLS-SRTP, and
# G.722 from spandsp (libspandsp-dev); c-ares (libc-ares-dev), the asynchronous DNS client servers
# are located with (RFC 3263), and dnsmasq, the DNS server the failover tests publish records on;
# aiortc (PyPI), the second WebRTC stack the DTLS-SRTP interop tests run against; espeak-ng and
# pesq (PyPI) to score speech carried between the SDK and a browser; pjsua2-python (PyPI), pjsip
# as a SIP peer.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
need=""
for pkg in python3-pip chromium libopus-dev libopusenc-dev libsrtp2-dev libssl-dev libasound2-dev libspeexdsp-dev libspandsp-dev libc-ares-dev dnsmasq-base linphone-cli libwebrtc-audio-processing-dev pkg-config alsa-utils baresip-core kamailio kamailio-tls-modules kamailio-websocket-modules rtpengine-daemon iproute2 nftables coturn pulseaudio pulseaudio-utils libpulse-dev libasound2-plugins espeak-ng; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
done
if [ -n "$need" ]; then
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq $need
fi
if ! python3 -c "import aiortc" >/dev/null 2>&1; then
    # Debian marks its Python as externally managed; aiortc is not packaged there.
    $SUDO python3 -m pip install --quiet --break-system-packages aiortc
fi
# pjsip as a SIP peer (digits, and the call control it is compared with): its Python binding.
if ! python3 -c "import pjsua2" >/dev/null 2>&1; then
    $SUDO python3 -m pip install --quiet --break-system-packages pjsua2-python
fi
# PESQ-WB (ITU-T P.862.2) for the browser-softphone tests, which score speech spoken by espeak-ng.
if ! python3 -c "import pesq, numpy, scipy" >/dev/null 2>&1; then
    $SUDO python3 -m pip install --quiet --break-system-packages pesq numpy scipy
fi
