import Foundation
import Logging
import NIOCore
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

extension EmbeddedSIPTestCase {
    /// A user agent on the in-memory network at `host`:5060, asking `dns`, its events recorded with their times.
    func memoryAgent(
        _ user: String, host: String, dns: MemoryDNS, transport: SIPTransportProtocol = .udp, configure: (inout SIPUserAgentConfiguration) -> Void = { _ in }
    ) throws -> (SIPUserAgent, Locked<[(MediaTime, SIPUserAgentEvent)]>) {
        let events = Locked<[(MediaTime, SIPUserAgentEvent)]>([])
        var configuration = SIPUserAgentConfiguration(
            identity: SIPNameAddress(uri: SIPURI(user: user, host: "example.test")), transport: transport, listenHost: host, listenPort: 5060,
            media: SDPLocalCapabilities(address: host, port: 0, encryption: .unencrypted))
        configuration.dnsLookup = dns
        configuration.flowLiveness = nil
        configure(&configuration)
        let clock = EventLoopMediaClock(loop: loop)
        let ports = Locked(30_000)
        var logger = Logger(label: "test.sip.\(user)")
        logger.logLevel = ProcessInfo.processInfo.environment["SIP_TRACE"] == nil ? .warning : .trace
        let agent = try SIPUserAgent(
            configuration: configuration, transport: network.transportFactory,
            mediaPorts: { loop in loop.makeSucceededFuture(UInt16(ports.withLock { $0 += 2; return $0 })) }, logger: logger
        ) { event in events.withLock { $0.append((clock.now(), event)) } }
        XCTAssertEqual(try value(agent.start()).port, 5060)
        return (agent, events)
    }
}
