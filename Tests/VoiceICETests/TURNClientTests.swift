import VoiceAddress
import VoiceSTUN
import VoiceNetwork
import VoiceSupport
import XCTest

@testable import VoiceICE

/// The TURN client against a TURN server written from RFC 8656 for the test: the long-term
/// credential challenge, permissions, channels, refreshes and data both ways, in virtual time.
final class TURNClientTests: XCTestCase {
    private static let clientAddress = TransportAddress(ip: IPAddress("10.0.0.1")!, port: 5000)
    private static let natAddress = TransportAddress(ip: IPAddress("203.0.113.1")!, port: 40000)
    private static let relayed = TransportAddress(ip: IPAddress("198.51.100.1")!, port: 50000)
    private static let peer = TransportAddress(ip: IPAddress("192.0.2.77")!, port: 7000)
    private static let relayedIPv6 = TransportAddress(ip: IPAddress("2001:db8::1")!, port: 50002)
    private static let peerIPv6 = TransportAddress(ip: IPAddress("2001:db8::77")!, port: 7002)

    private struct Counter: RandomNumberGenerator, Sendable {
        var state: UInt64 = 1
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    /// A TURN server as RFC 8656 describes it, for one client.
    private struct Server {
        var password = "secret"
        var nonce = "nonce-1"
        let realm = "example.org"
        /// Each permission's expiry (RFC 8656 §9: 300 s after it was installed or refreshed).
        var permissionExpiry: [TransportAddress: MediaTime] = [:]
        var now = MediaTime.zero
        var permissions: Set<TransportAddress> { Set(permissionExpiry.filter { $0.value > now }.keys) }
        var channels: [UInt16: TransportAddress] = [:]
        var relayedToPeers: [(TransportAddress, [UInt8])] = []
        var refreshes = 0
        var answers = true
        /// The families it relays, and whether it makes dual allocations (RFC 8656 §7.2); a
        /// server from before RFC 8656 ignores ADDITIONAL-ADDRESS-FAMILY (comprehension-optional).
        var relaysIPv4 = true
        var relaysIPv6 = false
        var knowsAdditionalFamily = true
        /// Knows the draft's code point as well, and refuses a request with two family attributes (400).
        var refusesTwoFamilyAttributes = false
        /// The families of the relayed addresses it allocated.
        var allocated: [Bool] = []
        var allocateRequests: [STUNMessage] = []

        var key: STUNIntegrityKey { try! STUNIntegrityKey.longTerm(username: "alice", realm: realm, password: password) }

        mutating func receive(_ bytes: [UInt8]) -> [[UInt8]] {
            if let (number, data) = TURN.readChannelData(bytes) {
                if let peer = channels[number], permissions.contains(peer) { relayedToPeers.append((peer, data)) }
                return []
            }
            guard answers, let message = try? STUNMessage(parsing: bytes) else { return [] }
            let method = message.type.rawValue & 0x3EEF
            if message.type == TURN.indication(TURN.send) {
                if let peer = TURN.address(TURN.xorPeerAddress, of: message), permissions.contains(peer),
                    let data = message.attribute(TURN.dataAttribute)?.value
                {
                    relayedToPeers.append((peer, data))
                }
                return []
            }
            guard message.attribute(STUNMessage.Attribute.messageIntegrity) != nil else {
                return [error(401, to: message, method: method, signed: false)]
            }
            guard STUNMessage.checkIntegrity(of: bytes, key: key) == .valid else { return [error(401, to: message, method: method, signed: false)] }
            guard message.attribute(STUNMessage.Attribute.nonce).map({ String(decoding: $0.value, as: UTF8.self) }) == nonce else {
                return [error(438, to: message, method: method, signed: false)]
            }
            var attributes: [STUNMessage.Attribute] = []
            switch method {
            case TURN.allocate:
                allocateRequests.append(message)
                let requested = message.attribute(TURN.requestedAddressFamily)?.value.first
                let additional = knowsAdditionalFamily && message.attribute(TURN.additionalAddressFamily)?.value.first == 0x02
                let ipv6Only = requested == 0x02
                if refusesTwoFamilyAttributes, message.attribute(TURN.additionalAddressFamily) != nil,
                    message.attribute(TURN.draftAdditionalAddressFamily) != nil
                {
                    return [error(400, to: message, method: method, signed: true)]
                }
                guard ipv6Only ? relaysIPv6 : relaysIPv4 else { return [error(440, to: message, method: method, signed: true)] }
                allocated = ipv6Only ? [true] : [false]
                let first = ipv6Only ? TURNClientTests.relayedIPv6 : TURNClientTests.relayed
                attributes = [STUNMessage.Attribute(type: TURN.xorRelayedAddress, value: TURN.xorAddress(first, transactionID: message.transactionID))]
                if additional, relaysIPv6 {
                    allocated.append(true)
                    attributes.append(
                        STUNMessage.Attribute(type: TURN.xorRelayedAddress, value: TURN.xorAddress(TURNClientTests.relayedIPv6, transactionID: message.transactionID)))
                } else if additional {
                    attributes.append(STUNMessage.Attribute(type: TURN.addressErrorCode, value: [0x02, 0, 4, 40]))
                }
                attributes += [
                    STUNMessage.Attribute(type: STUNMessage.Attribute.xorMappedAddress, value: TURN.xorAddress(TURNClientTests.natAddress, transactionID: message.transactionID)),
                    STUNMessage.Attribute(type: TURN.lifetime, value: TURN.uint32(600)),
                ]
            case TURN.refresh:
                refreshes += 1
                attributes = [STUNMessage.Attribute(type: TURN.lifetime, value: message.attribute(TURN.lifetime)?.value ?? TURN.uint32(600))]
            case TURN.createPermission where peerOfAnotherFamily(message), TURN.channelBind where peerOfAnotherFamily(message):
                return [error(443, to: message, method: method, signed: true)]
            case TURN.createPermission:
                if let peer = TURN.address(TURN.xorPeerAddress, of: message) { permissionExpiry[peer] = now + .seconds(300) }
            case TURN.channelBind:
                if let peer = TURN.address(TURN.xorPeerAddress, of: message), let value = message.attribute(TURN.channelNumber)?.value, value.count == 4 {
                    channels[UInt16(value[0]) << 8 | UInt16(value[1])] = peer
                    permissionExpiry[peer] = now + .seconds(300)
                }
            default:
                return []
            }
            return [STUNMessage(type: TURN.success(method), transactionID: message.transactionID, attributes: attributes).serialized(integrity: key, fingerprint: true)]
        }

        /// Whether the request names a peer of a family it has no relayed address in (443, RFC 8656 §9.1).
        private func peerOfAnotherFamily(_ message: STUNMessage) -> Bool {
            TURN.address(TURN.xorPeerAddress, of: message).map { !allocated.contains($0.ip.isIPv6) } ?? false
        }

        /// What a peer sends to the relayed address, as the server passes it to the client.
        func fromPeer(_ peer: TransportAddress, _ data: [UInt8]) -> [UInt8]? {
            guard permissions.contains(peer) else { return nil }
            if let number = channels.first(where: { $0.value == peer })?.key { return TURN.channelData(data, channel: number) }
            guard permissions.contains(peer) else { return nil }
            let id = [UInt8](repeating: 9, count: 12)
            return STUNMessage(
                type: TURN.indication(TURN.data), transactionID: id,
                attributes: [
                    STUNMessage.Attribute(type: TURN.xorPeerAddress, value: TURN.xorAddress(peer, transactionID: id)),
                    STUNMessage.Attribute(type: TURN.dataAttribute, value: data),
                ]
            ).serialized
        }

        private func error(_ code: Int, to message: STUNMessage, method: UInt16, signed: Bool) -> [UInt8] {
            let response = STUNMessage(
                type: TURN.error(method), transactionID: message.transactionID,
                attributes: [
                    STUNMessage.Attribute(type: STUNMessage.Attribute.errorCode, value: [0, 0, UInt8(code / 100), UInt8(code % 100)]),
                    STUNMessage.Attribute(type: STUNMessage.Attribute.realm, value: Array(realm.utf8)),
                    STUNMessage.Attribute(type: STUNMessage.Attribute.nonce, value: Array(nonce.utf8)),
                ]
            )
            return signed ? response.serialized(integrity: key, fingerprint: true) : response.serialized
        }
    }

    /// The client and the server in virtual time: every `send` reaches the server, every answer
    /// comes straight back.
    private struct Exchange {
        var client: TURNClient
        var server = Server()
        var now = MediaTime.zero
        var actions: [TURNAction] = []

        init(password: String = "secret", asksForIPv6: Bool = false) {
            client = TURNClient(username: "alice", password: password, asksForIPv6: asksForIPv6, random: Counter())
        }

        mutating func deliver(_ new: [TURNAction]) {
            var queue = new
            while !queue.isEmpty {
                let action = queue.removeFirst()
                actions.append(action)
                guard case .send(let bytes) = action else { continue }
                for answer in server.receive(bytes) { queue += client.receive(answer, now: now) }
            }
        }

        mutating func run(for duration: MediaTime, step: MediaTime = .milliseconds(100)) {
            let end = now + duration
            while now < end {
                now += step
                server.now = now
                deliver(client.tick(now: now))
            }
        }

        var failures: [TURNError] { actions.compactMap { if case .failed(let error) = $0 { error } else { nil } } }
        var sends: Int { actions.filter { if case .send = $0 { true } else { false } }.count }
    }

    func testTheChallengeIsAnsweredAndTheAllocationReportsBothAddresses() {
        var exchange = Exchange()
        exchange.deliver(exchange.client.start(now: .zero))
        XCTAssertTrue(exchange.actions.contains(.allocated(relayed: Self.relayed, mapped: Self.natAddress)))
        XCTAssertEqual(exchange.client.state, .allocated(relayed: Self.relayed, mapped: Self.natAddress))
        XCTAssertEqual(exchange.sends, 2, "unauthenticated, then with the long-term credential")
    }

    func testAWrongPasswordFailsOnceWithoutLooping() {
        var exchange = Exchange(password: "wrong")
        exchange.deliver(exchange.client.start(now: .zero))
        exchange.run(for: .seconds(30))
        XCTAssertEqual(exchange.failures, [.unauthorized])
        XCTAssertEqual(exchange.sends, 2)
    }

    func testDataFlowsBothWaysOverAChannelAfterAPermission() throws {
        var exchange = Exchange()
        exchange.deliver(exchange.client.start(now: .zero))
        let permit = exchange.client.permit(Self.peer, now: exchange.now)
        // Before the channel is bound, data goes in a Send indication.
        let early = try XCTUnwrap(exchange.client.wrap([1, 2, 3], to: Self.peer))
        XCTAssertNotNil(try? STUNMessage(parsing: early))
        exchange.deliver(permit)
        XCTAssertTrue(exchange.actions.contains(.permitted(Self.peer)))
        XCTAssertTrue(exchange.actions.contains(.channelBound(Self.peer, channel: 0x4000)))
        XCTAssertEqual(exchange.client.peer(onChannel: 0x4000), Self.peer)
        XCTAssertEqual(exchange.server.permissions, [Self.peer])
        let bound = try XCTUnwrap(exchange.client.wrap([4, 5, 6, 7, 8], to: Self.peer))
        XCTAssertEqual(bound.count, 4 + 8, "ChannelData: 4 bytes of header, padded to 4")
        _ = exchange.server.receive(early)
        _ = exchange.server.receive(bound)
        XCTAssertEqual(exchange.server.relayedToPeers.map(\.1), [[1, 2, 3], [4, 5, 6, 7, 8]])
        XCTAssertTrue(exchange.server.relayedToPeers.allSatisfy { $0.0 == Self.peer })

        let back = try XCTUnwrap(exchange.server.fromPeer(Self.peer, [9, 9]))
        XCTAssertEqual(exchange.client.receive(back, now: exchange.now), [.received([9, 9], from: Self.peer)])
        // Data from a peer without a permission never reaches the client.
        let stranger = TransportAddress(ip: IPAddress("192.0.2.66")!, port: 1)
        XCTAssertNil(exchange.server.fromPeer(stranger, [1]))
        XCTAssertNil(exchange.client.wrap([1], to: stranger), "no permission asked for")
    }

    func testTheAllocationAndTheChannelAreRefreshedBeforeTheyExpireAndANewNonceIsTaken() {
        var exchange = Exchange()
        exchange.deliver(exchange.client.start(now: .zero))
        exchange.deliver(exchange.client.permit(Self.peer, now: exchange.now))
        exchange.server.nonce = "nonce-2"  // the server rotates its nonce: the next request gets 438
        exchange.run(for: .seconds(400))
        // The permission (300 s, shorter than the channel's 600 s) was kept fresh: the peer still gets through.
        let relayed = try? XCTUnwrap(exchange.server.fromPeer(Self.peer, [7]))
        XCTAssertEqual(relayed.map { exchange.client.receive($0, now: exchange.now) }, [.received([7], from: Self.peer)])
        exchange.run(for: .seconds(900))
        XCTAssertEqual(exchange.failures, [])
        XCTAssertGreaterThanOrEqual(exchange.server.refreshes, 2, "every ~540 s of a 600 s lifetime")
        if case .allocated = exchange.client.state {} else { XCTFail("\(exchange.client.state)") }
        XCTAssertNotNil(exchange.client.wrap([1], to: Self.peer).flatMap { TURN.readChannelData($0) }, "the channel is still bound")
        let back = try? XCTUnwrap(exchange.server.fromPeer(Self.peer, [8]))
        XCTAssertEqual(back.map { exchange.client.receive($0, now: exchange.now) }, [.received([8], from: Self.peer)])
    }

    func testASilentServerTimesOutAndForgedAnswersAreIgnored() {
        var exchange = Exchange()
        exchange.server.answers = false
        exchange.deliver(exchange.client.start(now: .zero))
        exchange.run(for: .seconds(60))
        XCTAssertEqual(exchange.failures, [.timedOut])

        var forged = Exchange()
        forged.deliver(forged.client.start(now: .zero))
        let permit = forged.client.permit(Self.peer, now: .zero)
        guard case .send(let request)? = permit.first, let message = try? STUNMessage(parsing: request) else { return XCTFail("no request") }
        // A success for the permission, signed with the wrong key: not taken.
        let fake = STUNMessage(type: TURN.success(TURN.createPermission), transactionID: message.transactionID)
            .serialized(integrity: try! STUNIntegrityKey.longTerm(username: "alice", realm: "example.org", password: "guess"), fingerprint: true)
        XCTAssertEqual(forged.client.receive(fake, now: .zero), [])
        XCTAssertEqual(forged.client.receive([0x40, 0x00, 0x00, 0x09, 1], now: .zero), [], "a ChannelData cut short")
    }

    // MARK: - Address families (RFC 8656 §7.2)

    /// A dual allocation: one Allocate with ADDITIONAL-ADDRESS-FAMILY gives an IPv4 and an IPv6
    /// relayed address; peers of both families get permissions and channels.
    func testADualAllocationGivesBothFamiliesAndPermitsPeersOfEach() {
        var exchange = Exchange(asksForIPv6: true)
        exchange.server.relaysIPv6 = true
        exchange.deliver(exchange.client.start(now: .zero))
        XCTAssertEqual(exchange.client.relayedAddresses, [Self.relayed, Self.relayedIPv6])
        XCTAssertEqual(exchange.server.allocateRequests.last?.attribute(TURN.additionalAddressFamily)?.value, [0x02, 0, 0, 0])
        XCTAssertNil(exchange.server.allocateRequests.last?.attribute(TURN.requestedAddressFamily))
        exchange.deliver(exchange.client.permit(Self.peer, now: .zero))
        exchange.deliver(exchange.client.permit(Self.peerIPv6, now: .zero))
        XCTAssertTrue(exchange.actions.contains(.permitted(Self.peerIPv6)))
        XCTAssertTrue(exchange.actions.contains { if case .channelBound(Self.peerIPv6, _) = $0 { true } else { false } })
        XCTAssertEqual(exchange.server.permissions, [Self.peer, Self.peerIPv6])
    }

    /// A server that relays IPv4 only answers the dual request with one address and says why
    /// (ADDRESS-ERROR-CODE 440); one from before RFC 8656 ignores the attribute. Either way one
    /// Allocate, an IPv4 relay, and a permission for an IPv6 peer refused (443) without harm.
    func testAServerWithoutIPv6GivesTheIPv4RelayAlone() {
        for knows in [true, false] {
            var exchange = Exchange(asksForIPv6: true)
            exchange.server.knowsAdditionalFamily = knows
            exchange.deliver(exchange.client.start(now: .zero))
            XCTAssertEqual(exchange.client.relayedAddresses, [Self.relayed])
            XCTAssertEqual(exchange.client.additionalFamilyError, knows ? 440 : nil)
            XCTAssertEqual(exchange.server.allocateRequests.count, 1, "one signed Allocate")
            exchange.deliver(exchange.client.permit(Self.peerIPv6, now: .zero))
            XCTAssertFalse(exchange.actions.contains(.permitted(Self.peerIPv6)))
            XCTAssertFalse(exchange.client.hasAskedPermission(for: Self.peerIPv6), "the 443 dropped the channel")
            XCTAssertNil(exchange.client.wrap([1, 2, 3], to: Self.peerIPv6))
            XCTAssertEqual(exchange.failures, [], "a peer of the other family does not end the allocation")
        }
    }

    /// A server that relays IPv6 only refuses the default (IPv4) family with 440: the client
    /// asks for REQUESTED-ADDRESS-FAMILY IPv6 next, and gets that.
    func testAServerThatRelaysOnlyIPv6IsAskedForIPv6AfterIts440() {
        var exchange = Exchange(asksForIPv6: true)
        exchange.server.relaysIPv4 = false
        exchange.server.relaysIPv6 = true
        exchange.deliver(exchange.client.start(now: .zero))
        XCTAssertEqual(exchange.client.relayedAddresses, [Self.relayedIPv6])
        XCTAssertEqual(exchange.client.familyRequest, .ipv6)
        XCTAssertEqual(exchange.server.allocateRequests.last?.attribute(TURN.requestedAddressFamily)?.value, [0x02, 0, 0, 0])
        XCTAssertEqual(exchange.server.allocateRequests.count, 2, "the dual request's 440 says IPv4 is missing: IPv6 alone next")
        XCTAssertEqual(exchange.failures, [])
    }

    /// A server that knows both code points of ADDITIONAL-ADDRESS-FAMILY refuses a request that
    /// carries both (400, as coturn refuses a second family attribute): the client asks again
    /// for IPv4 alone and gets it.
    func testAServerThatRefusesBothCodePointsGetsAPlainAllocate() {
        var exchange = Exchange(asksForIPv6: true)
        exchange.server.relaysIPv6 = true
        exchange.server.refusesTwoFamilyAttributes = true
        exchange.deliver(exchange.client.start(now: .zero))
        XCTAssertEqual(exchange.client.relayedAddresses, [Self.relayed])
        XCTAssertEqual(exchange.client.familyRequest, .ipv4)
        XCTAssertEqual(exchange.failures, [])
    }

    /// A server that relays neither family asked for fails the allocation with its 440, once.
    func testAServerThatRelaysNothingFailsWithItsError() {
        var exchange = Exchange()
        exchange.server.relaysIPv4 = false
        exchange.deliver(exchange.client.start(now: .zero))
        exchange.run(for: .seconds(30))
        XCTAssertEqual(exchange.failures, [.refused(440)])
        XCTAssertEqual(exchange.server.allocateRequests.count, 2, "signed ones: IPv4, then IPv6")
    }
}
