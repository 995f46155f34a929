import Foundation
import VoiceMedia
import VoiceTestAudio

/// What the namespace scenarios (``NetworkChangeCall``, ``NATCall``) share: Kamailio on
/// 10.9.0.1:5060 in the provider's namespace, and the two tones the parties play.
enum NamespaceScenario {
    /// The tones the two parties play ("mover"/"nated" and "far"), written to `directory` as
    /// `<name>-plays.wav`.
    static func writeTones(to directory: String, names: (near: String, far: String)) throws -> (near: [Int16], far: [Int16]) {
        let near = TestSignals.multiTone([(523, 6_000), (659, 4_000)], seconds: 2)
        let far = TestSignals.multiTone([(440, 8_000)], seconds: 2)
        try WAVFile(sampleRate: 48_000, channels: 1, samples: near).write(toFile: directory + "/\(names.near)-plays.wav")
        try WAVFile(sampleRate: 48_000, channels: 1, samples: far).write(toFile: directory + "/\(names.far)-plays.wav")
        return (near, far)
    }

    /// Kamailio (registrar and record-routing proxy) on 10.9.0.1, UDP and TCP port 5060, in
    /// `namespace`; with `tls` (certificate and key), also TLS on 5061.
    static func kamailio(in namespace: NetworkNamespace, tls: (certificate: String, key: String)? = nil) throws -> KamailioPeer {
        var configuration = KamailioConfiguration()
        configuration.listenHost = "10.9.0.1"
        configuration.udpPort = 5060
        configuration.tcpPort = 5060
        configuration.tls = tls.map { KamailioTLS(port: 5061, certificate: $0.certificate, privateKey: $0.key) }
        return try KamailioPeer(configuration: configuration, namespace: namespace)
    }

    /// The proxy's URI for `transport` (`udp`, `tcp`, `tls`).
    static func proxy(_ transport: String) -> String {
        transport == "tls" ? "sip:10.9.0.1:5061;transport=tls" : "sip:10.9.0.1:5060;transport=\(transport)"
    }

    /// What `name` recorded in `directory` (`<name>-heard.wav`), and its longest gap after the first second.
    static func recording(_ name: String, in directory: String) -> (samples: [Int16], gap: Int) {
        let samples = (try? WAVFile(contentsOfFile: directory + "/\(name)-heard.wav").channel(0)) ?? []
        return (samples, AudioGap.longest(in: samples, after: 48_000))
    }
}
