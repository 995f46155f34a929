import VoiceAddress
import VoiceSTUN
import VoiceSupport

/// Why a TURN allocation failed.
package enum TURNError: Error, Hashable, Sendable {
    /// The server refused the credentials (401 after we answered its challenge).
    case unauthorized
    /// The server refused with this error code (486 allocation quota, 508 capacity…).
    case refused(Int)
    /// No answer within the retransmissions.
    case timedOut
    /// A success response without the addresses it must carry.
    case malformedResponse
    /// The TCP or TLS connection to the server could not be made or ended (why).
    case connection(String)
}

/// What a TURN client asks its driver to do, or reports.
package enum TURNAction: Hashable, Sendable {
    /// Send `bytes` to the TURN server (over whichever transport reaches it).
    case send([UInt8])
    /// The allocation exists: the relayed address (a relayed ICE candidate) and the address the
    /// server saw us at (a server-reflexive one).
    case allocated(relayed: TransportAddress, mapped: TransportAddress)
    /// A peer may now send to the relayed address.
    case permitted(TransportAddress)
    /// Data to and from `peer` now goes over `channel` (4-byte ChannelData headers).
    case channelBound(TransportAddress, channel: UInt16)
    /// Data relayed from `peer` (a Data indication or ChannelData).
    case received([UInt8], from: TransportAddress)
    /// The allocation failed or expired.
    case failed(TURNError)
}

/// A TURN client (RFC 8656) for one allocation, as a value: Allocate with the long-term
/// credential (the 401 challenge answered, a stale nonce renewed), Refresh before the lifetime
/// ends, CreatePermission and ChannelBind per peer kept fresh, and data wrapped and unwrapped.
/// The driver sends to the server and feeds back what the server sends; it also decides the
/// transport (UDP, or TCP/TLS with RFC 8656's framing: ChannelData is always padded here, so
/// the same bytes frame on a stream).
package struct TURNClient: Sendable {
    package enum State: Hashable, Sendable {
        case idle
        case allocating
        case allocated(relayed: TransportAddress, mapped: TransportAddress)
        case failed(TURNError)
    }

    /// Timing (RFC 8656 §3.3, §9, §12).
    package struct Timing: Hashable, Sendable {
        /// Requested allocation lifetime.
        package var lifetime: UInt32 = 600
        /// Refresh this long before the allocation, a permission or a channel would expire.
        package var refreshMargin: MediaTime = .seconds(60)
        package var initialRetransmissionTimeout: MediaTime = .milliseconds(500)
        package var maximumTransmissions = 6
        package init() {}
    }

    private struct Pending: Sendable {
        var id: [UInt8]
        var method: UInt16
        var attributes: [STUNMessage.Attribute]
        var bytes: [UInt8]
        var transmissions: Int
        var timeout: MediaTime
        var next: MediaTime
        var peer: TransportAddress?
    }

    /// The relayed families an Allocate asks for (RFC 8656 §7.2). A server that refuses them is
    /// asked for another (``fallback(afterError:)``).
    package enum FamilyRequest: Hashable, Sendable {
        /// IPv4, and IPv6 besides (ADDITIONAL-ADDRESS-FAMILY): a dual allocation.
        case ipv4AndIPv6
        /// IPv4 alone (no family attribute: the default).
        case ipv4
        /// IPv6 alone (REQUESTED-ADDRESS-FAMILY), for a server that relays only IPv6.
        case ipv6
    }

    package private(set) var state: State = .idle
    package let timing: Timing
    /// The families asked for now.
    package private(set) var familyRequest: FamilyRequest
    /// The IPv6 relayed address of a dual allocation, beside ``relayedAddress`` (IPv4).
    package private(set) var additionalRelayedAddress: TransportAddress?
    /// The error the server gave for the additional family of a dual allocation it made with
    /// one family only (ADDRESS-ERROR-CODE: 440 not supported, 508 no capacity).
    package private(set) var additionalFamilyError: Int?
    private let asksForIPv6: Bool
    private let username: String
    private let password: String
    private var realm: String?
    private var nonce: String?
    private var key: STUNIntegrityKey?
    private var random: any RandomNumberGenerator & Sendable
    private var pending: [Pending] = []
    private var allocationExpires: MediaTime?
    /// Per peer: permission expiry, and its channel once bound.
    private var permissions: [TransportAddress: MediaTime] = [:]
    private var channels: [TransportAddress: (number: UInt16, expires: MediaTime?)] = [:]
    private var nextChannel: UInt16 = TURN.channelNumbers.lowerBound
    /// Channels the server confirmed, by number (a channel stays bound to its peer for the
    /// allocation's life: a lapsed one is only being refreshed).
    private var boundChannels: [UInt16: TransportAddress] = [:]

    /// The relayed address, once allocated.
    package var relayedAddress: TransportAddress? {
        if case .allocated(let relayed, _) = state { return relayed }
        return nil
    }

    /// The peer a bound channel carries data of.
    package func peer(onChannel number: UInt16) -> TransportAddress? { boundChannels[number] }

    /// Whether a permission for `peer` was asked for (data to it can be wrapped).
    package func hasAskedPermission(for peer: TransportAddress) -> Bool { channels[peer] != nil }

    /// - Parameter asksForIPv6: ask for an IPv6 relayed address besides the IPv4 one (a dual
    ///   allocation, RFC 8656 §7.2), so that peers of either family can be reached through the
    ///   relay. Without it, IPv4 only, as before RFC 8656; either way a server that relays only
    ///   IPv6 is asked for that after its 440.
    package init(
        username: String, password: String, timing: Timing = Timing(), asksForIPv6: Bool = false, random: any RandomNumberGenerator & Sendable
    ) {
        self.username = username
        self.password = password
        self.timing = timing
        self.random = random
        self.asksForIPv6 = asksForIPv6
        familyRequest = asksForIPv6 ? .ipv4AndIPv6 : .ipv4
    }

    /// A new client for the same server and credential, not started: a new allocation after
    /// the host moved (the old one is tied to the old address).
    package func restarted() -> TURNClient {
        TURNClient(username: username, password: password, timing: timing, asksForIPv6: asksForIPv6, random: random)
    }

    /// Every relayed address, once allocated: IPv4 (or the only one) first, then a dual
    /// allocation's IPv6 one.
    package var relayedAddresses: [TransportAddress] {
        guard let relayedAddress else { return [] }
        return [relayedAddress] + (additionalRelayedAddress.map { [$0] } ?? [])
    }

    /// Requests the allocation (first without credentials: the server's 401 names the realm and nonce).
    package mutating func start(now: MediaTime) -> [TURNAction] {
        guard state == .idle else { return [] }
        state = .allocating
        return [allocateRequest(now: now)]
    }

    /// What to ask for after the server refused ``familyRequest`` with `code`, nil for nothing.
    /// 440 (Address Family not Supported) means the default family, IPv4, is what the server
    /// lacks (one without IPv6 answers a dual request with success and ADDRESS-ERROR-CODE), so
    /// IPv6 alone is next. A 400 to the dual request comes from a server that knows both code
    /// points and refuses two family attributes (coturn's rule): IPv4 alone is next.
    private func fallback(afterError code: Int) -> FamilyRequest? {
        switch (familyRequest, code) {
        case (.ipv4AndIPv6, 440), (.ipv4, 440): .ipv6
        case (.ipv4AndIPv6, 400): .ipv4
        default: nil
        }
    }

    private mutating func allocateRequest(now: MediaTime) -> TURNAction {
        var attributes = [Self.requestedUDP, lifetimeAttribute(timing.lifetime)]
        switch familyRequest {
        case .ipv4AndIPv6:
            // Both code points: servers ignore the one they do not know (comprehension-optional).
            attributes.append(STUNMessage.Attribute(type: TURN.additionalAddressFamily, value: TURN.family(ipv6: true)))
            attributes.append(STUNMessage.Attribute(type: TURN.draftAdditionalAddressFamily, value: TURN.family(ipv6: true)))
        case .ipv4: break
        case .ipv6: attributes.append(STUNMessage.Attribute(type: TURN.requestedAddressFamily, value: TURN.family(ipv6: true)))
        }
        return request(TURN.allocate, attributes, now: now)
    }

    /// Lets `peer` send to us through the relay: CreatePermission, then ChannelBind (so data
    /// to it costs 4 bytes of header instead of a 36-byte Send indication).
    package mutating func permit(_ peer: TransportAddress, now: MediaTime) -> [TURNAction] {
        guard case .allocated = state, channels[peer] == nil else { return [] }
        let number = nextChannel
        guard TURN.channelNumbers.contains(number) else { return [] }
        nextChannel += 1
        channels[peer] = (number, nil)
        return [
            request(TURN.createPermission, [], peer: peer, now: now),
            request(TURN.channelBind, [STUNMessage.Attribute(type: TURN.channelNumber, value: TURN.uint32(UInt32(number) << 16))], peer: peer, now: now),
        ]
    }

    /// `data` for `peer`, wrapped for the server: ChannelData once the channel is bound, a
    /// Send indication before; nil before a permission was asked for.
    package mutating func wrap(_ data: [UInt8], to peer: TransportAddress) -> [UInt8]? {
        guard case .allocated = state, let channel = channels[peer] else { return nil }
        if boundChannels[channel.number] != nil { return TURN.channelData(data, channel: channel.number) }
        let id = transactionID()
        return STUNMessage(
            type: TURN.indication(TURN.send), transactionID: id,
            attributes: [
                STUNMessage.Attribute(type: TURN.xorPeerAddress, value: TURN.xorAddress(peer, transactionID: id)),
                STUNMessage.Attribute(type: TURN.dataAttribute, value: data),
            ]
        ).serialized
    }

    /// Gives the allocation back (Refresh with lifetime 0).
    package mutating func close(now: MediaTime) -> [TURNAction] {
        guard case .allocated = state else { return [] }
        state = .idle
        let bytes = signed(TURN.refresh, [lifetimeAttribute(0)], id: transactionID())
        pending = []
        return [.send(bytes)]
    }

    // MARK: - Time

    package mutating func tick(now: MediaTime) -> [TURNAction] {
        var actions: [TURNAction] = []
        var kept: [Pending] = []
        for var request in pending {
            guard now >= request.next else {
                kept.append(request)
                continue
            }
            guard request.transmissions < timing.maximumTransmissions else {
                if request.method == TURN.allocate || request.method == TURN.refresh { actions += fail(.timedOut) }
                continue
            }
            request.transmissions += 1
            request.timeout = request.timeout + request.timeout
            request.next = now + request.timeout
            actions.append(.send(request.bytes))
            kept.append(request)
        }
        if case .failed = state { return actions }
        pending = kept
        guard case .allocated = state else { return actions }
        if let expires = allocationExpires, now >= expires - timing.refreshMargin, !pending.contains(where: { $0.method == TURN.refresh }) {
            allocationExpires = nil
            actions.append(request(TURN.refresh, [lifetimeAttribute(timing.lifetime)], now: now))
        }
        for (peer, channel) in channels {
            // The permission (300 s) runs out before the channel (600 s): whichever is first.
            guard let channelExpires = channel.expires else { continue }
            let expires = min(channelExpires, permissions[peer] ?? channelExpires)
            guard now >= expires - timing.refreshMargin else { continue }
            channels[peer] = (channel.number, nil)
            // Re-binding refreshes the channel and its permission (RFC 8656 §12).
            actions.append(
                request(
                    TURN.channelBind, [STUNMessage.Attribute(type: TURN.channelNumber, value: TURN.uint32(UInt32(channel.number) << 16))],
                    peer: peer, now: now))
        }
        return actions
    }

    // MARK: - What the server sends

    /// A datagram (or a framed stream message) from the server.
    package mutating func receive(_ bytes: [UInt8], now: MediaTime) -> [TURNAction] {
        if let (number, data) = TURN.readChannelData(bytes) {
            guard let peer = boundChannels[number] else { return [] }
            return [.received(data, from: peer)]
        }
        guard let message = try? STUNMessage(parsing: bytes) else { return [] }
        if message.type == TURN.indication(TURN.data) {
            guard let peer = TURN.address(TURN.xorPeerAddress, of: message), permissions[peer] != nil || channels[peer] != nil,
                let data = message.attribute(TURN.dataAttribute)?.value
            else { return [] }
            return [.received(data, from: peer)]
        }
        guard let index = pending.firstIndex(where: { $0.id == message.transactionID }) else { return [] }
        let request = pending[index]
        // Answers to authenticated requests must authenticate, but a challenge (401) or a new
        // nonce (438) need not: at worst a forged one makes us sign again.
        let isChallenge = message.type == TURN.error(request.method) && [401, 438].contains(TURN.errorCode(of: message) ?? 0)
        if let key, !isChallenge, STUNMessage.checkIntegrity(of: bytes, key: key) != .valid { return [] }
        pending.remove(at: index)
        if message.type == TURN.error(request.method) {
            return errorResponse(message, to: request, now: now)
        }
        guard message.type == TURN.success(request.method) else { return [] }
        switch request.method {
        case TURN.allocate:
            let relayedAddresses = TURN.addresses(TURN.xorRelayedAddress, of: message)
            guard let relayed = relayedAddresses.first, let mapped = TURN.address(STUNMessage.Attribute.xorMappedAddress, of: message)
            else { return fail(.malformedResponse) }
            // A dual allocation's second address is of the other family; anything else is ignored.
            if familyRequest == .ipv4AndIPv6 {
                additionalRelayedAddress = relayedAddresses.dropFirst().first { $0.ip.isIPv6 != relayed.ip.isIPv6 }
                additionalFamilyError = (message.attribute(TURN.addressErrorCode) ?? message.attribute(TURN.draftAddressErrorCode))
                    .flatMap { TURN.errorCode(in: $0.value) }
            }
            state = .allocated(relayed: relayed, mapped: mapped)
            allocationExpires = now + lifetime(of: message)
            return [.allocated(relayed: relayed, mapped: mapped)]
        case TURN.refresh:
            allocationExpires = now + lifetime(of: message)
            return []
        case TURN.createPermission:
            guard let peer = request.peer else { return [] }
            let wasNew = permissions[peer] == nil
            permissions[peer] = now + .seconds(300)
            return wasNew ? [.permitted(peer)] : []
        case TURN.channelBind:
            guard let peer = request.peer, let channel = channels[peer] else { return [] }
            let wasBound = boundChannels[channel.number] != nil
            channels[peer] = (channel.number, now + .seconds(600))
            permissions[peer] = now + .seconds(300)
            boundChannels[channel.number] = peer
            return wasBound ? [] : [.channelBound(peer, channel: channel.number)]
        default:
            return []
        }
    }

    private mutating func errorResponse(_ message: STUNMessage, to request: Pending, now: MediaTime) -> [TURNAction] {
        let code = TURN.errorCode(of: message) ?? 0
        let realm = message.attribute(STUNMessage.Attribute.realm).map { String(decoding: $0.value, as: UTF8.self) }
        let nonce = message.attribute(STUNMessage.Attribute.nonce).map { String(decoding: $0.value, as: UTF8.self) }
        if request.method == TURN.allocate, let next = fallback(afterError: code) {
            familyRequest = next
            return [allocateRequest(now: now)]
        }
        switch code {
        case 401 where key == nil && realm != nil && nonce != nil, 438 where nonce != nil:
            // The challenge (or a new nonce): answer it once with the long-term credential.
            if let realm { self.realm = realm }
            self.nonce = nonce
            guard let realm = self.realm, let derived = try? STUNIntegrityKey.longTerm(username: username, realm: realm, password: password) else {
                return fail(.unauthorized)
            }
            key = derived
            var retry = request
            return [resend(&retry, now: now)]
        case 401:
            return fail(.unauthorized)
        default:
            if request.method == TURN.allocate || request.method == TURN.refresh { return fail(.refused(code)) }
            if let peer = request.peer, request.method == TURN.channelBind || request.method == TURN.createPermission {
                if let number = channels[peer]?.number { boundChannels[number] = nil }
                channels[peer] = nil
                permissions[peer] = nil
            }
            return []
        }
    }

    // MARK: - Requests

    private static let requestedUDP = STUNMessage.Attribute(type: TURN.requestedTransport, value: [17, 0, 0, 0])

    private func lifetimeAttribute(_ seconds: UInt32) -> STUNMessage.Attribute {
        STUNMessage.Attribute(type: TURN.lifetime, value: TURN.uint32(seconds))
    }

    private func lifetime(of message: STUNMessage) -> MediaTime {
        guard let value = message.attribute(TURN.lifetime)?.value, value.count == 4 else { return .seconds(Double(timing.lifetime)) }
        return .seconds(Double(value.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
    }

    private mutating func transactionID() -> [UInt8] { (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) } }

    /// A new request of `method`; with `peer`, its XOR-PEER-ADDRESS comes first.
    private mutating func request(_ method: UInt16, _ attributes: [STUNMessage.Attribute], peer: TransportAddress? = nil, now: MediaTime) -> TURNAction {
        var entry = Pending(id: [], method: method, attributes: attributes, bytes: [], transmissions: 0, timeout: .zero, next: .zero, peer: peer)
        return resend(&entry, now: now)
    }

    /// Sends `entry` as a new transaction (a fresh ID, so a fresh XOR-PEER-ADDRESS, signed with
    /// the current nonce).
    private mutating func resend(_ entry: inout Pending, now: MediaTime) -> TURNAction {
        let id = transactionID()
        let peerAttributes = entry.peer.map { [STUNMessage.Attribute(type: TURN.xorPeerAddress, value: TURN.xorAddress($0, transactionID: id))] } ?? []
        entry.id = id
        entry.bytes = signed(entry.method, peerAttributes + entry.attributes, id: id)
        entry.transmissions = 1
        entry.timeout = timing.initialRetransmissionTimeout
        entry.next = now + entry.timeout
        pending.append(entry)
        return .send(entry.bytes)
    }

    /// The request's bytes: with USERNAME, REALM, NONCE and MESSAGE-INTEGRITY once challenged.
    private func signed(_ method: UInt16, _ attributes: [STUNMessage.Attribute], id: [UInt8]) -> [UInt8] {
        var all = attributes
        guard let key, let realm, let nonce else {
            return STUNMessage(type: TURN.request(method), transactionID: id, attributes: all).serialized(integrity: nil, fingerprint: true)
        }
        all += [
            STUNMessage.Attribute(type: STUNMessage.Attribute.username, value: Array(username.utf8)),
            STUNMessage.Attribute(type: STUNMessage.Attribute.realm, value: Array(realm.utf8)),
            STUNMessage.Attribute(type: STUNMessage.Attribute.nonce, value: Array(nonce.utf8)),
        ]
        return STUNMessage(type: TURN.request(method), transactionID: id, attributes: all).serialized(integrity: key, fingerprint: true)
    }

    private mutating func fail(_ error: TURNError) -> [TURNAction] {
        if case .failed = state { return [] }
        state = .failed(error)
        pending = []
        return [.failed(error)]
    }
}
