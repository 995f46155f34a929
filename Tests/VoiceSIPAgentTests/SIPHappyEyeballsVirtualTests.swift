import Foundation
import NIOCore
import VoiceAddress
import VoiceDNS
import VoiceSupport
import VoiceTestKit
import XCTest

@testable import VoiceSIP
@testable import VoiceSIPAgent

/// Happy Eyeballs for SIP in virtual time: a server name with an AAAA and an A record, our
/// agent on a dual-stack listener (`::`, so it asks for both). The addresses are raced with
/// OPTIONS, IPv6 first and IPv4 250 ms later; the first to answer gets the INVITE and is
/// pinned; the INVITE itself never goes to two addresses.
final class SIPHappyEyeballsVirtualTests: EmbeddedSIPTestCase {
    private let dns = MemoryDNS()

    /// `pbx.example.test` at `ipv6` (AAAA) and `ipv4` (A); no NAPTR or SRV.
    private func publish(ipv6: String, ipv4: String) {
        dns.zone[DNSQuestion("pbx.example.test", .aaaa)] = [.address(IPAddress(ipv6)!)]
        dns.zone[DNSQuestion("pbx.example.test", .a)] = [.address(IPAddress(ipv4)!)]
    }

    private func alice() throws -> SIPUserAgent {
        // An IPv6 listener asks for AAAA and A. (The memory network lets it reach IPv4 too, as a
        // `::` socket does; it needs a concrete source address, so not `::` itself.)
        try memoryAgent("alice", host: "::1", dns: dns) { $0.advertisedHost = "127.0.0.1" }.0
    }

    private func sent(_ method: SIPMethod, to address: String, since start: NIODeadline) -> [Int64] {
        network.sent.compactMap { datagram in
            guard datagram.destination.host == address, case .request(let request)? = datagram.message, request.method == method else { return nil }
            return (datagram.time - start).nanoseconds / 1_000_000
        }
    }

    /// Every OPTIONS sent so far, to any address.
    private var optionsSent: Int {
        network.sent.filter { if case .request(let request)? = $0.message { request.method == .options } else { false } }.count
    }

    /// The first `method` request sent to `address`.
    private func firstRequest(_ method: SIPMethod, to address: String) -> SIPRequest? {
        network.sent.lazy.compactMap { $0.destination.host == address ? $0.message?.request : nil }.first { $0.method == method }
    }

    /// The handle of the first incoming call in `events`.
    private func incomingHandle(_ events: Locked<[(MediaTime, SIPUserAgentEvent)]>) -> SIPCallHandle? {
        events.withLock { $0 }.lazy.compactMap { event -> SIPCallHandle? in
            if case .incomingCall(let call, _, _, _) = event.1 { call } else { nil }
        }.first
    }

    private func incoming(_ events: Locked<[(MediaTime, SIPUserAgentEvent)]>) -> MediaTime? {
        events.withLock { $0 }.first { if case .incomingCall = $0.1 { true } else { false } }?.0
    }

    func testASilentIPv6AddressLetsIPv4WinAfterTheAttemptDelay() throws {
        publish(ipv6: "fd00::2", ipv4: "127.0.0.3")
        let alice = try alice()
        let (bob, bobEvents) = try memoryAgent("bob", host: "127.0.0.3", dns: dns)
        let start = loop.now
        _ = try value(alice.call(SIPURI(user: "bob", host: "pbx.example.test")))
        XCTAssertTrue(dns.asked.contains(DNSQuestion("pbx.example.test", .aaaa)), "a dual-stack agent asks for AAAA: \(dns.asked)")
        loop.advanceTime(by: .milliseconds(249))
        XCTAssertEqual(sent(.options, to: "fd00::2", since: start), [0], "IPv6 first")
        XCTAssertEqual(sent(.options, to: "127.0.0.3", since: start), [])
        loop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(sent(.options, to: "127.0.0.3", since: start), [250], "IPv4 250 ms later")
        let reached = try XCTUnwrap(incoming(bobEvents), "the INVITE went to the address that answered")
        XCTAssertEqual(reached, MediaTime(nanoseconds: Int64(start.uptimeNanoseconds)) + .milliseconds(250))
        loop.advanceTime(by: .seconds(40))
        withExtendedLifetime(bob) {}
        XCTAssertEqual(sent(.invite, to: "fd00::2", since: start), [], "the INVITE never went to two addresses")
        XCTAssertEqual(sent(.invite, to: "127.0.0.3", since: start).count, 1)
        // The winner is pinned: the next call goes straight to it, without probes.
        let optionsBefore = optionsSent
        _ = try value(alice.call(SIPURI(user: "bob", host: "pbx.example.test")))
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertEqual(sent(.invite, to: "127.0.0.3", since: start).count, 2)
        XCTAssertEqual(optionsSent, optionsBefore)
    }

    func testAnAnsweringIPv6AddressWinsAndIPv4IsNeverProbed() throws {
        publish(ipv6: "fd00::3", ipv4: "127.0.0.3")
        let alice = try alice()
        let (bob, bobEvents) = try memoryAgent("bob", host: "fd00::3", dns: dns)
        let start = loop.now
        _ = try value(alice.call(SIPURI(user: "bob", host: "pbx.example.test")))
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertEqual(incoming(bobEvents), MediaTime(nanoseconds: Int64(start.uptimeNanoseconds)), "at once over IPv6")
        loop.advanceTime(by: .seconds(5))
        XCTAssertEqual(sent(.options, to: "127.0.0.3", since: start), [], "IPv4 was never needed")
        XCTAssertEqual(sent(.invite, to: "127.0.0.3", since: start), [])
        withExtendedLifetime(bob) {}
    }

    /// A dual-stack host advertising IPv4 names itself by its IPv6 address in what goes over
    /// IPv6: the server that answered over IPv6 gets a Contact, a Via and an SDP `c=` it can
    /// reach back over IPv6 (a server with only AAAA records could not reach the IPv4 one).
    /// What goes over IPv4 keeps the IPv4 address.
    func testWhatGoesOverEachFamilyNamesUsInThatFamily() throws {
        publish(ipv6: "fd00::3", ipv4: "127.0.0.3")
        let alice = try alice()
        alice.setHostAddresses(ipv4: IPAddress("127.0.0.1"), ipv6: IPAddress("::1"))
        let (bob, bobEvents) = try memoryAgent("bob", host: "fd00::3", dns: dns)
        _ = try value(alice.call(SIPURI(user: "bob", host: "pbx.example.test")))
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertNotNil(incoming(bobEvents))
        let invite = try XCTUnwrap(firstRequest(.invite, to: "fd00::3"))
        XCTAssertEqual(try invite.headers.topVia().host, "::1")
        guard case .addresses(let contacts)? = try invite.headers.contact() else { return XCTFail("no Contact") }
        XCTAssertEqual(contacts.first?.uri.host, "::1")
        let offer = try SDPSessionDescription(parsing: invite.body)
        XCTAssertEqual(offer.connection, SDPConnection(addressType: "IP6", address: "::1"))
        XCTAssertEqual(offer.origin.address, "127.0.0.1", "o= names the session, whatever the hop")
        // Bob answers over IPv6 at the Contact he was given: the call is up, and the ACK follows.
        bob.accept(try XCTUnwrap(incomingHandle(bobEvents)))
        loop.advanceTime(by: .milliseconds(10))
        let ack = try XCTUnwrap(firstRequest(.ack, to: "fd00::3"))
        XCTAssertEqual(try ack.headers.topVia().host, "::1")

        // The same agent to an IPv4-only server: IPv4 throughout.
        dns.zone[DNSQuestion("v4.example.test", .a)] = [.address(IPAddress("127.0.0.4")!)]
        let (carol, carolEvents) = try memoryAgent("carol", host: "127.0.0.4", dns: dns)
        _ = try value(alice.call(SIPURI(user: "carol", host: "v4.example.test")))
        loop.advanceTime(by: .milliseconds(10))
        XCTAssertNotNil(incoming(carolEvents))
        let second = try XCTUnwrap(firstRequest(.invite, to: "127.0.0.4"))
        XCTAssertEqual(try second.headers.topVia().host, "127.0.0.1")
        XCTAssertEqual(try SDPSessionDescription(parsing: second.body).connection?.address, "127.0.0.1")
        carol.accept(try XCTUnwrap(incomingHandle(carolEvents)))
        loop.advanceTime(by: .milliseconds(10))

        // The IPv6 address renumbers while IPv4 stays: the call over IPv6 named the old one, so
        // it re-INVITEs with the new; the call over IPv4 is left alone.
        let invitesBefore = network.sent.filter { $0.message?.request?.method == .invite }.count
        alice.setHostAddresses(ipv4: IPAddress("127.0.0.1"), ipv6: IPAddress("fd00::99"))
        loop.advanceTime(by: .milliseconds(10))
        let reinvites = network.sent.filter { $0.message?.request?.method == .invite }.dropFirst(invitesBefore)
        XCTAssertEqual(reinvites.map(\.destination.host), ["fd00::3"], "one re-INVITE, to the call over IPv6")
        let reinvite = try XCTUnwrap(reinvites.first?.message?.request)
        guard case .addresses(let moved)? = try reinvite.headers.contact() else { return XCTFail("no Contact") }
        XCTAssertEqual(moved.first?.uri.host, "fd00::99")
        XCTAssertEqual(try SDPSessionDescription(parsing: reinvite.body).connection?.address, "fd00::99")
        XCTAssertEqual(try reinvite.headers.topVia().host, "fd00::99")
        withExtendedLifetime((bob, carol)) {}
    }

    /// Nobody answers the probes (both addresses silent): the race gives up after 2 s and the
    /// INVITE goes to the addresses in turn, failing over after its timeout as without a race.
    func testARaceNobodyAnswersHandsTheRequestToOrdinaryFailover() throws {
        publish(ipv6: "fd00::2", ipv4: "127.0.0.2")
        let alice = try alice()
        let start = loop.now
        _ = try value(alice.call(SIPURI(user: "bob", host: "pbx.example.test")))
        loop.advanceTime(by: .milliseconds(1_999))
        XCTAssertEqual(sent(.invite, to: "fd00::2", since: start), [])
        loop.advanceTime(by: .milliseconds(1))
        XCTAssertEqual(sent(.invite, to: "fd00::2", since: start).first, 2_000, "then the INVITE, to the first located address")
        loop.advanceTime(by: .seconds(4))
        XCTAssertEqual(sent(.invite, to: "127.0.0.2", since: start).first, 6_000, "and the next after the failover timeout")
    }
}
