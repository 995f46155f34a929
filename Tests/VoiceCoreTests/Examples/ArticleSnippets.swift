// Every ```swift block of the DocC articles, as printed there, grouped by article: each function
// is run by DocumentationExamplesTests with a fresh configuration, a client on loopback and a
// connected call, and that test checks each article's blocks are text of this file.
import Foundation
import NIOCore
import Logging
import VoiceConference
import VoiceCore
import VoiceService

enum ArticleSnippets {
    /// ConferenceRooms.md
    static func conferenceRooms(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            let rooms = ConferenceServer(client: client, options: ConferenceServerOptions(maximumParticipants: 10))
            rooms.start { error in
                if let error { logger.error("registration failed: \(error)") }
            }
            rooms.stop()
        }
    }

    /// GettingStarted.md
    static func gettingStarted(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            let alice = try VoiceClient(
                configuration: VoiceClientConfiguration(
                    identity: "alice", domain: "sip.example.com", transport: .tls,
                    listenHost: "127.0.0.1",  // an address of this machine the server can reach
                    outboundProxy: try SIPServerAddress("sip:proxy.example.com;transport=tls"),
                    username: "alice", password: "secret"),
                audioDevice: try ALSAAudioDevice(name: "default"))
            alice.shutdown()
        }
        do {
            let options = ConnectOptions { builder in
                builder.params = ["To": "bob", "customer": "42"]
            }
            precondition(options.params["To"] == "bob")
        }
        do {
            call.isMuted = true
            call.sendDigits("1234#")
        }
    }

    /// EncryptingMedia.md
    static func encryptingMedia(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            configuration.mediaSecurity = .dtls
        }
        do {
            let identity = try DTLSIdentity.generate()
            let pem = try identity.pemEncoded()
            configuration.dtlsIdentity = try DTLSIdentity(certificatePEM: pem.certificate, privateKeyPEM: pem.privateKey)
        }
        do {
            configuration.tls = TLSSettings(
                trustedCertificateFiles: ["/etc/voice/private-ca.pem"],
                pinnedPublicKeys: ["sha256//UNhY4JhezH9gQYqvDMWrWH9CwlcKiECVqejMrND2VFw="])
        }
    }

    /// Migration.md
    static func migration(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            configuration.mediaSecurity = .unencrypted                    // was allowUnencryptedMedia = true
            configuration.mediaSecurity = .sdesOverUnencryptedSignaling   // was allowKeysOverUnencryptedSignaling = true
        }
        do {
            configuration.tls = TLSSettings(
                trustedCertificateFiles: ["/etc/voice/private-ca.pem"],
                certificateFile: "/etc/voice/client.pem", privateKeyFile: "/etc/voice/client-key.pem")
        }
        do {
            let bot = PCMAudioDevice { heard in
                logger.trace("the call played \(heard.count) samples")
            }
            bot.play([Int16](repeating: 0, count: 960))    // queue PCM to send
            bot.stopPlaying()                              // barge-in: drop what is queued
            let botCall = ConnectOptions { $0.params = ["To": "ivr"]; $0.audioDevice = bot }
            precondition(botCall.audioDevice === bot)
        }
    }

    /// NATAndTURN.md
    static func nATAndTURN(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            configuration.stunServer = try STUNServerAddress("stun.example.com:3478")
        }
        do {
            configuration.iceOptions = ICEOptions(
                servers: [try ICEServer("turn:turn.example.com:3478", username: "alice", password: "secret")],
                transportPolicy: .relay)
        }
        do {
            configuration.addressSelection = .automatic
        }
    }

    /// OnTheOpenInternet.md
    static func onTheOpenInternet(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            var server = VoiceServerSettings()
            server.trustedAddresses = [try VoiceServerSettings.TrustedAddress("203.0.113.5")]
            server.trustedTLSNames = [try VoiceServerSettings.TLSName("sip.example.com")]
            server.requiredCredentials = [VoiceServerSettings.Credential(username: "alice", password: "secret")]
            server.realm = "voice"
            let publicClient = try VoiceClient(configuration: configuration, server: server)
            publicClient.shutdown()
        }
    }

    /// ServersAndProxies.md
    static func serversAndProxies(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            configuration.outboundProxy = try SIPServerAddress("sip:proxy.example.com;transport=tls")
            configuration.registrar = try SIPServerAddress("sip:registrar.example.com")
            configuration.username = "alice"
            configuration.password = "secret"
        }
        do {
            configuration.outboundProxy = try SIPServerAddress("sip:edge.example.com")
            configuration.fallbackProxies = [try SIPServerAddress("sip:backup.example.net")]
            configuration.nameServers = ["192.0.2.53"]
        }
        do {
            call.sendDigits("1234#")
        }
    }

    /// Threading.md
    static func threading(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            let signalingGroup = VoiceClient.makeSignalingEventLoopGroup(numberOfThreads: 1)
            let sharedClient = try VoiceClient(
                configuration: configuration, server: VoiceServerSettings(), eventLoopGroup: signalingGroup)
            sharedClient.shutdown()
            try signalingGroup.syncShutdownGracefully()
        }
    }

    /// VoiceQualityAndProcessing.md
    static func voiceQualityAndProcessing(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            let lowBandwidth = ConnectOptions { builder in
                builder.params = ["To": "bob"]
                builder.preferredAudioCodecs = [.opus(maxAverageBitrate: 40_000), .g722, .pcmu, .pcma]
            }
            precondition(lowBandwidth.preferredAudioCodecs.first == .opus(maxAverageBitrate: 40_000))
        }
        do {
            let processed = ConnectOptions { builder in
                builder.params = ["To": "bob"]
                builder.audioProcessing = .all
            }
            call.audioProcessing = AudioProcessingOptions(echoCancellation: true, noiseSuppression: false)
            precondition(processed.audioProcessing == .all)
        }
        do {
            call.getStats { report in
                guard let received = report?.remoteAudioTrack else { return }
                logger.info("jitter \(received.jitterMs) ms, MOS \(received.mos ?? 0)")
            }
        }
    }

    /// WebRTCBrowsersAndGateways.md
    static func webRTCBrowsersAndGateways(configuration: inout VoiceClientConfiguration, client: VoiceClient, call: Call, logger: Logger) throws {
        do {
            configuration.outboundProxy = try SIPServerAddress("wss://edge.example.com/sip")
        }
    }

}
