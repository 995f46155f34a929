// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "VoiceSDK",
    platforms: [.macOS(.v14)],
    products: [
        // What an app imports: the call API, its configuration, errors, stats and audio devices.
        .library(name: "VoiceCore", targets: ["VoiceCore"]),
        // For Linux services: VoiceCore's client as a swift-service-lifecycle Service, and the
        // access-token issuer a server hands tokens out with.
        .library(name: "VoiceService", targets: ["VoiceService"]),
        // For services that host conference rooms: incoming calls join rooms and hear each other.
        .library(name: "VoiceConference", targets: ["VoiceConference"]),
        // For apps that test their own code against the SDK: test signals, audio comparison,
        // user-space network impairment, and real peers (baresip, Kamailio) run on loopback.
        .library(name: "VoiceTestKit", targets: ["VoiceTestKit", "VoiceTestAudio"]),
        // Test doubles for virtual-time tests, as swift-nio's NIOEmbedded: the embedded media
        // engine (no threads, virtual time) and its in-memory network, waits that advance virtual
        // time, ALSA fault injection, and replaying bytes through a listening WebSocket.
        .library(name: "VoiceEmbedded", targets: ["VoiceEmbedded"]),
        .executable(name: "voicecall", targets: ["VoiceCall"]),
        .executable(name: "voice-bench", targets: ["VoiceBench"]),
        .executable(name: "voice-fuzz", targets: ["VoiceFuzzTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        // Metrics for services (any backend), Prometheus for `voicecall listen --metrics-port`,
        // graceful shutdown in a service, and latency percentiles in the benchmark.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.1.0"),
        // `swift package generate-documentation --target VoiceCore` (scripts/docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // System libraries, found through pkg-config; apt names the Debian packages that provide them.
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        // Ogg Opus files for recordings (libopusenc, Xiph's encoder library).
        .systemLibrary(name: "COpusEnc", pkgConfig: "libopusenc", providers: [.apt(["libopusenc-dev"])]),
        .systemLibrary(name: "CLibSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // PulseAudio's client library (PipeWire's pipewire-pulse serves it too): the desktop's
        // devices, listed and watched, and opened directly.
        // Its headers are in the default path and its pkg-config flags (-pthread, -D_REENTRANT)
        // are ones SwiftPM refuses, so it is linked by its module map alone.
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        // G.722's encoder and decoder (the ones baresip's g722 module and FreeSWITCH use).
        .systemLibrary(name: "CSpanDSP", pkgConfig: "spandsp", providers: [.apt(["libspandsp-dev"])]),
        // Debian's OpenSSL 3, for DTLS (swift-nio-ssl's BoringSSL is not exported with DTLS).
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // DTLS-SRTP on OpenSSL behind opaque pointers: a datagram memory BIO, the retransmission
        // timer, certificate fingerprints and the SRTP keying-material exporter.
        .target(
            name: "CVoiceDTLS",
            dependencies: ["COpenSSL"],
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        // Typed C wrappers for what Swift cannot call: variadic ctl requests and macros.
        .target(
            name: "CVoiceShims",
            dependencies: ["COpus", "CLibSRTP"],
            linkerSettings: [.linkedLibrary("opus"), .linkedLibrary("srtp2")]
        ),
        // A C face for WebRTC's C++ audio processing module (Debian's libwebrtc-audio-processing-dev,
        // installed by scripts/install-deps.sh), so Swift needs no C++ interop. Its pkg-config
        // flags are -D defines SwiftPM refuses, so the shim defines them itself and finds the
        // headers through `system/webrtc`, a link to where Debian installs them.
        .target(
            name: "CVoiceAPM",
            cxxSettings: [.headerSearchPath("system")],
            linkerSettings: [.linkedLibrary("webrtc_audio_processing"), .linkedLibrary("stdc++")]
        ),
        // Linux APIs that Glibc's Swift module does not export (epoll, eventfd, timerfd), and socket
        // calls that need the CMSG macros (receive timestamps, the UDP error queue).
        .target(name: "CVoiceSys"),
        // Monotonic media time and the clocks that read it, a lock, a random source, control
        // characters escaped for logs, and the sockets a call reserves before its media takes
        // them: what every layer above shares. No dependencies.
        .target(name: "VoiceSupport"),
        // The cursor every parser reads bytes with (and the writer that builds them): network-
        // and little-endian integers, truncation as a typed error. No dependencies.
        .target(name: "VoiceBytes"),
        // What signaling and media agree on, as plain values: codecs and their settings, SRTP suites
        // and SDES keys (RFC 4568), a stream's encryption. Links no C library.
        .target(name: "VoiceMediaTypes", dependencies: ["VoiceBytes", "VoiceSupport"]),
        // An IP address as a value (IPv4 or IPv6, parsed and printed as RFC 5952 says). No dependencies.
        .target(name: "VoiceAddress"),
        // STUN (RFC 8489) as plain values: the message codec, MESSAGE-INTEGRITY (short- and
        // long-term keys, SASLprep) and FINGERPRINT, mapped addresses. No socket, no thread.
        .target(
            name: "VoiceSTUN",
            dependencies: ["VoiceAddress", "VoiceBytes", "VoiceSupport", .product(name: "Crypto", package: "swift-crypto")]),
        // DNS answers as plain values (RFC 1035, 2782, 3403): the message read with a cursor,
        // CNAME chains, negative TTLs, and a cache on an injected clock. No socket, no C library.
        .target(name: "VoiceDNS", dependencies: ["VoiceAddress", "VoiceBytes", "VoiceSupport"]),
        // c-ares (Debian's libc-ares-dev), the asynchronous DNS client queries go through.
        .systemLibrary(name: "CAres", pkgConfig: "libcares", providers: [.apt(["libc-ares-dev"])]),
        // A c-ares channel driven by one thread: queries, waiting on its sockets and timeouts.
        .target(name: "CVoiceDNS", dependencies: ["CAres"], linkerSettings: [.linkedLibrary("cares")]),
        // The host's networks as rtnetlink reports them (links, addresses, default routes), each
        // interface's type (ethernet, Wi-Fi, VPN, cellular, loopback) and the address calls prefer;
        // and the blocking STUN Binding query a port's server-reflexive address is found with.
        .target(
            name: "VoiceNetwork",
            dependencies: [
                "VoiceSupport", "VoiceBytes", "VoiceAddress", "VoiceSTUN", "CVoiceSys", .product(name: "Logging", package: "swift-log"),
            ]),
        // ICE (RFC 8445) as plain values: candidates, pairs and check lists, connectivity checks
        // as STUN Binding transactions with MESSAGE-INTEGRITY and FINGERPRINT.
        .target(name: "VoiceICE", dependencies: ["VoiceSTUN", "VoiceAddress", "VoiceBytes", "VoiceSupport"]),
        // RTP as plain values, with no C library: packets, RTCP and statistics, the source gate,
        // the jitter buffer and time-scale modification, and one stream's logic (``RTPStream``)
        // fed events and emitting actions, with its codec and packet protection behind protocols.
        .target(name: "VoiceRTP", dependencies: ["VoiceAddress", "VoiceBytes", "VoiceSupport", "VoiceMediaTypes", "VoiceICE"]),
        // DTLS-SRTP (RFC 5763, RFC 5764): a client's certificate and one association per stream,
        // fed datagrams and ticks, returning datagrams to send and the SRTP keys.
        .target(name: "VoiceDTLS", dependencies: ["VoiceSTUN", "CVoiceDTLS", "VoiceSupport", "VoiceMediaTypes", "VoiceICE", "VoiceDTLSTypes"]),
        // What DTLS-SRTP says, with no C library: its actions and errors, keys, roles,
        // fingerprints and settings. The association itself (OpenSSL) is VoiceDTLS's.
        .target(name: "VoiceDTLSTypes", dependencies: ["VoiceSupport", "VoiceMediaTypes"]),
        // WebRTC's media path as a value (``MediaPath``): ICE, the TURN relay and where DTLS-SRTP
        // fits, driven by datagrams, ticks and what the DTLS association said, returning
        // effects. No socket, no thread, no C library.
        .target(
            name: "VoiceMediaPath",
            dependencies: ["VoiceAddress", "VoiceICE", "VoiceDTLSTypes", "VoiceMediaTypes", "VoiceRTP", "VoiceSupport"]),
        .target(
            name: "VoiceMedia",
            dependencies: ["COpusEnc", 
                "VoiceAddress", "VoiceBytes", "VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "CVoiceSys", "COpus", "CLibSRTP", "CALSA", "CPulse", "CSpeexDSP", "CSpanDSP", "CVoiceShims", "CVoiceAPM",
                "VoiceICE", "VoiceDTLS", "VoiceMediaPath", "VoiceNetwork",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // SIP signaling as pure values driven by events and a clock: messages, transactions, dialogs,
        // INVITE sessions, registration, SDP offer/answer, digest, status mapping, the core responder.
        // No sockets, no event loop, no C media library.
        // Conference rooms: N−1 mixing with a limiter and talk detection (plain DSP, buffers
        // allocated once), the bridge that drives it on an audio clock, and the room server on a
        // VoiceClient's incoming calls.
        .target(
            name: "VoiceConference",
            dependencies: ["VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "VoiceMedia", "VoiceSIP", "VoiceSIPAgent", "VoiceCore"]
        ),
        .target(
            name: "VoiceSIP",
            dependencies: [
                "VoiceSupport", "VoiceMediaTypes",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The SIP driver: UDP/TCP/TLS transports on SwiftNIO and the user agent that runs the pure
        // layers on an event loop (or on an injected transport and clock).
        .target(
            name: "VoiceSIPAgent",
            dependencies: [
                "VoiceAddress", "VoiceSTUN", "VoiceSIP", "VoiceSupport", "VoiceMediaTypes", "CVoiceSys", "VoiceNetwork", "VoiceICE", "VoiceDTLS",
                "VoiceDNS", "CVoiceDNS", "CAres", "VoiceBytes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        // The test doubles apps may use for their own tests (see the VoiceEmbedded product). No
        // product an app ships with links it.
        .target(
            name: "VoiceEmbedded",
            dependencies: [
                "VoiceSupport", "VoiceRTP", "VoiceMedia", "VoiceSIP", "VoiceSIPAgent",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .target(
            name: "VoiceCore",
            dependencies: [
                "VoiceAddress", "VoiceSTUN", "VoiceNetwork", "VoiceICE", "VoiceDTLS", "VoiceMediaPath", "VoiceBytes",
                "VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "VoiceMedia", "VoiceSIP", "VoiceSIPAgent",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The server side: a VoiceClient as a swift-service-lifecycle Service (graceful shutdown
        // hangs calls up and unregisters), and the issuer of access tokens, which holds an API key's secret.
        .target(
            name: "VoiceService",
            dependencies: [
                "VoiceCore", "VoiceAddress", "VoiceSIP", "VoiceSIPAgent",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The `voicecall` command: the loopback demo, and calling/listening against a real SIP server.
        .executableTarget(
            name: "VoiceCall",
            dependencies: [
                "VoiceEmbedded", "VoiceCore", "VoiceTestAudio", "VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "VoiceMedia", "VoiceSIP", "VoiceSIPAgent",
                "CVoiceSys", "VoiceService", "VoiceConference", "VoiceNetwork",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Counts heap allocations per thread by wrapping glibc's allocator; linked only into tests and the benchmark.
        .target(name: "CMallocCounter"),
        // Test signals (speech-like noise, tones) and audio comparison (alignment, correlation, SNR):
        // plain Swift, used by the demo command as well as by tests.
        .target(name: "VoiceTestAudio"),
        // Tools for tests, bots and benchmarks: user-space network impairment, real peers, a scripted
        // SIP peer, an in-memory SIP network, an Insights publisher that records.
        .target(
            name: "VoiceTestKit",
            dependencies: [
                // VoiceService for RecordingInsightsPublisher, a test double of its InsightsPublisher.
                "VoiceEmbedded", "VoiceCore", "VoiceService",
                "VoiceTestAudio", "VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "VoiceMedia", "VoiceSIP", "VoiceSIPAgent", "CVoiceSys", "VoiceDNS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            // The peers' configuration templates (baresip, Kamailio).
            resources: [.copy("PeerTemplates")]
        ),
        .executableTarget(
            name: "VoiceBench",
            dependencies: [
                "VoiceEmbedded", "VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "VoiceMedia", "VoiceSIP", "VoiceSIPAgent", "VoiceCore", "VoiceTestKit", "VoiceTestAudio", "COpus", "CLibSRTP", "CVoiceShims", "CMallocCounter",
                "VoiceSIPTestVectors", "VoiceService", "VoiceDTLS", "VoiceConference",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "VoiceFuzzing",
            dependencies: [
                "VoiceEmbedded", "VoiceAddress", "VoiceSTUN", "VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "VoiceSIP", "VoiceSIPAgent", "VoiceMedia", "VoiceCore", "VoiceNetwork", "VoiceICE",
                "VoiceDTLS", "VoiceDNS",
            ]),
        .executableTarget(name: "VoiceFuzzTool", dependencies: ["VoiceFuzzing"]),
        // The pure RTP layer's tests: they build and run without libopus, libsrtp or ALSA.
        .testTarget(name: "VoiceRTPTests", dependencies: ["VoiceAddress", "VoiceBytes", "VoiceRTP", "VoiceSupport", "VoiceMediaTypes", "VoiceTestAudio", "CMallocCounter"]),
        .testTarget(
            name: "VoiceConferenceTests",
            dependencies: [
                "VoiceConference", "VoiceTestAudio", "VoiceMedia", "VoiceMediaTypes", "VoiceRTP", "VoiceSupport", "VoiceSIP", "VoiceCore",
                "CMallocCounter",
            ]),
        .testTarget(name: "VoiceICETests", dependencies: ["VoiceAddress", "VoiceSTUN", "VoiceICE", "VoiceNetwork", "VoiceTestAudio"]),
        .testTarget(
            name: "VoiceMediaPathTests",
            dependencies: ["VoiceAddress", "VoiceICE", "VoiceDTLS", "VoiceMediaPath", "VoiceMediaTypes", "VoiceRTP", "VoiceSupport", "VoiceTestAudio"]),
        .testTarget(name: "VoiceDNSTests", dependencies: ["VoiceDNS", "VoiceAddress", "VoiceSupport"]),
        .testTarget(name: "VoiceDTLSTests", dependencies: ["VoiceDTLS", "VoiceSupport", "VoiceMediaTypes"]),
        .testTarget(name: "VoiceNetworkTests", dependencies: ["VoiceEmbedded", "VoiceAddress", "VoiceBytes", "VoiceSTUN", "VoiceNetwork", "VoiceSupport", "VoiceTestKit", "VoiceTestAudio"]),
        .testTarget(name: "VoiceFuzzingTests", dependencies: ["VoiceFuzzing"], resources: [.copy("Corpus")]),
        .testTarget(
            name: "VoiceMediaTests",
            dependencies: [
                "VoiceEmbedded", "VoiceBytes", "VoiceSTUN", "VoiceSupport", "VoiceMediaTypes", "VoiceMediaPath", "VoiceRTP", "VoiceMedia", "VoiceTestKit", "VoiceTestAudio", "CMallocCounter", "CLibSRTP", "COpus",
                "CVoiceShims", "VoiceICE", "VoiceDTLS", "VoiceNetwork",
            ]),
        .testTarget(
            name: "VoiceCoreTests",
            dependencies: [
                "VoiceEmbedded", "VoiceAddress", "VoiceCore", "VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "VoiceMedia", "VoiceSIP", "VoiceSIPAgent",
                "VoiceNetwork", "VoiceTestKit", "VoiceTestAudio", "VoiceService", "VoiceConference",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            exclude: ["Fixtures"]
        ),
        // The pure SIP layers' tests: they build and run without libopus, libsrtp or ALSA.
        .testTarget(
            name: "VoiceSIPTests", dependencies: ["VoiceSIP", "VoiceSupport", "VoiceMediaTypes", "VoiceTestAudio", "VoiceSIPTestVectors"]),
        // RFC 4475's torture messages, shared by the parser tests and the user agent's flood test.
        .target(name: "VoiceSIPTestVectors", dependencies: ["VoiceSIP"], path: "Tests/VoiceSIPTestVectors"),
        // Transports, the user agent, and interop with real peers. Fixtures: peer configuration
        // templates (baresip, Kamailio) read from disk by the interop tests.
        .testTarget(
            name: "VoiceSIPAgentTests",
            dependencies: [
                "VoiceEmbedded", "VoiceAddress", "VoiceSTUN", "VoiceSIPAgent", "VoiceSIP", "VoiceSupport", "VoiceMediaTypes", "VoiceRTP", "VoiceMedia", "VoiceTestKit",
                "VoiceTestAudio", "VoiceSIPTestVectors", "VoiceDNS",
                // SIPCallMedia, for the calls that carry real audio to and from baresip.
                "VoiceCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
