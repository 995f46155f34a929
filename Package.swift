// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "VoiceSDK",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "VoiceCore", targets: ["VoiceCore"]),
        .library(name: "VoiceMedia", targets: ["VoiceMedia"]),
        .library(name: "VoiceSIP", targets: ["VoiceSIP"]),
        .executable(name: "voicecall", targets: ["VoiceCall"]),
        .executable(name: "voice-bench", targets: ["VoiceBench"]),
        .executable(name: "voice-fuzz", targets: ["VoiceFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
    ],
    targets: [
        // System libraries, found through pkg-config; apt names the Debian packages that provide them.
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CLibSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        // Typed C wrappers for what Swift cannot call: variadic ctl requests and macros.
        .target(
            name: "CVoiceShims",
            dependencies: ["COpus", "CLibSRTP"],
            linkerSettings: [.linkedLibrary("opus"), .linkedLibrary("srtp2")]
        ),
        // Linux APIs that Glibc's Swift module does not export (epoll, eventfd, timerfd), and socket
        // calls that need the CMSG macros (receive timestamps, the UDP error queue).
        .target(name: "CVoiceSys"),
        .target(
            name: "VoiceMedia",
            dependencies: [
                "CVoiceSys", "COpus", "CLibSRTP", "CALSA", "CSpeexDSP", "CVoiceShims",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // SIP signaling: the protocol layers as pure values (messages, transactions, dialogs, sessions,
        // registration, SDP offer/answer, digest, status mapping), UDP/TCP/TLS transports on SwiftNIO,
        // and the user agent that drives them.
        .target(
            name: "VoiceSIP",
            dependencies: [
                "VoiceMedia", "CVoiceSys",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        .target(
            name: "VoiceCore",
            dependencies: [
                "VoiceMedia", "VoiceSIP",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The `voicecall` command: the loopback demo, and calling/listening against a real SIP server.
        .executableTarget(
            name: "VoiceCall",
            dependencies: [
                "VoiceCore", "VoiceSIP", "VoiceMedia", "VoiceTestKit", "CVoiceSys",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Counts heap allocations per thread by wrapping glibc's allocator; linked only into tests and the benchmark.
        .target(name: "CMallocCounter"),
        // Tools for tests, bots and benchmarks: user-space network impairment, test signals, audio comparison, a scripted SIP peer.
        .target(
            name: "VoiceTestKit",
            dependencies: [
                "VoiceMedia", "VoiceSIP",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "VoiceBench",
            dependencies: [
                "VoiceMedia", "VoiceSIP", "VoiceCore", "VoiceTestKit", "COpus", "CLibSRTP", "CVoiceShims", "CMallocCounter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(name: "VoiceFuzzing", dependencies: ["VoiceSIP", "VoiceMedia", "VoiceCore"]),
        .executableTarget(name: "VoiceFuzz", dependencies: ["VoiceFuzzing"]),
        .testTarget(name: "VoiceFuzzingTests", dependencies: ["VoiceFuzzing"], resources: [.copy("Corpus")]),
        .testTarget(
            name: "VoiceMediaTests", dependencies: ["VoiceMedia", "VoiceTestKit", "CMallocCounter", "CLibSRTP", "COpus", "CVoiceShims"]),
        .testTarget(
            name: "VoiceCoreTests",
            dependencies: [
                "VoiceCore", "VoiceSIP", "VoiceTestKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // Fixtures: peer configuration templates (baresip, Kamailio) read from disk by the interop tests.
        .testTarget(
            name: "VoiceSIPTests",
            dependencies: [
                "VoiceSIP", "VoiceTestKit", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
