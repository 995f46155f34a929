import VoiceMediaTypes
import VoiceSupport

/// RFC 3264 offer/answer for one audio stream, as a pure value: build offers (initial, hold,
/// resume), answer offers, and accept answers, each step returning SDP to send or the negotiated
/// media. Owns the session's `o=` line (bumping its version whenever our description changes), its
/// SRTP keys (fresh per session, kept across re-offers) and, for DTLS-SRTP, the ICE credentials,
/// fingerprint and DTLS role it sent (kept for the session's life). Not thread-safe; a value type
/// owned by one INVITE session.
package struct SDPOfferAnswer: Sendable {
    /// Where the exchange stands.
    package enum State: Equatable, Sendable {
        /// Nothing negotiated and no offer outstanding.
        case idle
        /// We sent `offer` and wait for the answer; `previous` is what was in force before.
        case offerSent(offer: SDPSessionDescription, previous: SDPNegotiatedMedia?)
        /// Negotiated: `media` is in force.
        case stable(SDPNegotiatedMedia)
    }

    /// Payload type offered for `telephone-event/48000` (paired with Opus).
    package static let telephoneEvent48kPayloadType: UInt8 = 110
    /// Payload type offered for `telephone-event/8000` (paired with G.711).
    package static let telephoneEvent8kPayloadType: UInt8 = 101
    /// Payload type offered for `red/48000/2` around Opus (Chromium's number).
    package static let redPayloadType: UInt8 = 63

    /// What we can do and where we receive.
    package var capabilities: SDPLocalCapabilities
    /// Where the exchange stands.
    package private(set) var state: State
    /// Our current `o=` line.
    package private(set) var origin: SDPOrigin
    /// Our `a=crypto` lines: all suites before the first exchange, the chosen one after.
    private var localCryptos: [SDESCryptoAttribute] = []
    /// The last description we sent, for the RFC 3264 §8 version rule.
    private var lastLocal: SDPSessionDescription?
    /// Our ICE credentials, fingerprint and mid once a DTLS description carried them.
    var dtlsIdentity: DTLSIdentity?

    /// Creates the negotiation of one session with a random session id.
    package init(capabilities: SDPLocalCapabilities) {
        var generator = SecureRandomNumberGenerator()
        self.init(capabilities: capabilities, using: &generator)
    }

    /// Creates the negotiation of one session, drawing the session id from `generator`.
    package init(capabilities: SDPLocalCapabilities, using generator: inout some RandomNumberGenerator) {
        self.capabilities = capabilities
        self.state = .idle
        let sessionID = UInt64.random(in: 1...(1 << 62), using: &generator)
        self.origin = SDPOrigin(
            username: capabilities.username, sessionID: String(sessionID), sessionVersion: 1,
            addressType: capabilities.addressType, address: capabilities.address)
    }

    /// The media in force, if any (during a re-offer, the one before it).
    package var negotiated: SDPNegotiatedMedia? {
        switch state {
        case .idle: nil
        case let .offerSent(_, previous): previous
        case let .stable(media): media
        }
    }

    // MARK: Offers

    /// Builds an offer (initial or re-offer) with `direction`, using the system's secure generator for keys.
    /// - Throws: ``SDPNegotiationError/offerPending`` if an offer is already outstanding.
    package mutating func makeOffer(direction: SDPDirection = .sendrecv) throws(SDPNegotiationError) -> SDPSessionDescription {
        var generator = SecureRandomNumberGenerator()
        return try makeOffer(direction: direction, using: &generator)
    }

    /// Builds an offer with `direction`, drawing any new SRTP keys from `generator` (a secure one outside tests).
    /// - Throws: ``SDPNegotiationError/offerPending`` if an offer is already outstanding.
    package mutating func makeOffer(
        direction: SDPDirection = .sendrecv,
        using generator: inout some RandomNumberGenerator
    ) throws(SDPNegotiationError) -> SDPSessionDescription {
        let previous: SDPNegotiatedMedia?
        switch state {
        case .offerSent: throw .offerPending
        case .idle: previous = nil
        case let .stable(media): previous = media
        }
        var formats: [String] = []
        var attributes: [SDPAttribute] = []
        for codec in capabilities.codecs {
            let pt = codec.defaultPayloadType
            guard !formats.contains(String(pt)) else { continue }
            formats.append(String(pt))
            attributes.append(.rtpmap(Self.rtpMap(codec, payloadType: pt)))
            if case let .opus(settings) = codec { attributes.append(.fmtp(Self.opusFormatParameters(settings, payloadType: pt))) }
        }
        if capabilities.redundancy, let opus = capabilities.codecs.first(where: { if case .opus = $0 { true } else { false } }) {
            let pt = Self.redPayloadType
            if capabilities.requestsRedundancy { formats.insert(String(pt), at: 0) } else { formats.append(String(pt)) }
            attributes.append(.rtpmap(SDPRTPMap(payloadType: pt, encodingName: "red", clockRate: 48_000, channels: 2)))
            attributes.append(.fmtp(Self.redFormatParameters(pt, wrapping: opus.defaultPayloadType)))
        }
        if capabilities.telephoneEvents {
            for (rate, pt) in [(48_000, Self.telephoneEvent48kPayloadType), (8_000, Self.telephoneEvent8kPayloadType)]
            where capabilities.codecs.contains(where: { $0.rtpClockRate == rate }) {
                formats.append(String(pt))
                attributes.append(.rtpmap(SDPRTPMap(payloadType: pt, encodingName: "telephone-event", clockRate: rate)))
                attributes.append(.fmtp(SDPFormatParameters(format: String(pt), parameters: "0-16")))
            }
        }
        // RFC 6464 levels in our packets, as browsers offer them: who talks is visible to a
        // conference room or an SFU without decoding.
        attributes.append(SDPAttribute(name: "extmap", value: "\(Self.audioLevelExtensionID) \(SDPMediaDescription.audioLevelExtensionURI)"))
        // RFC 3611 VoIP Metrics in the peer's reports: its loss runs set how deep our RED copies reach.
        attributes.append(Self.voipMetricsAttribute)
        let proto: String
        var transport = commonAttributes(direction: direction)
        var sessionAttributes: [SDPAttribute] = []
        // `.automatic` re-offers keep a session keyed by SDES on SDES: a running stream keeps its key exchange.
        var policy = capabilities.encryption
        if case let .automatic(suites) = policy, let previous, previous.dtls == nil { policy = .srtp(suites: suites) }
        switch policy {
        case let .srtp(suites):
            proto = "RTP/SAVP"
            if localCryptos.isEmpty {
                for (index, suite) in suites.enumerated() {
                    localCryptos.append(
                        SDESCryptoAttribute(
                            tag: UInt32(index + 1),
                            keyMaterial: .random(for: suite, using: &generator)))
                }
            }
            transport += localCryptos.map { .crypto($0) }
        case .dtlsSRTP, .automatic:
            proto = Self.dtlsProfile
            (transport, sessionAttributes) = try dtlsOffer(direction: direction)
        case .unencrypted:
            proto = "RTP/AVP"
        }
        let media = SDPMediaDescription(
            media: "audio", port: capabilities.port, proto: proto, formats: formats, attributes: attributes + transport)
        let offer = stamp(
            SDPSessionDescription(
                origin: origin, connection: capabilities.connection, attributes: sessionAttributes, media: [media]))
        state = .offerSent(offer: offer, previous: previous)
        return offer
    }

    /// Builds a hold re-offer: `a=sendonly`, or `a=inactive` when the peer already holds us.
    /// - Throws: ``SDPNegotiationError/offerPending`` if an offer is already outstanding.
    package mutating func makeHoldOffer() throws(SDPNegotiationError) -> SDPSessionDescription {
        // RFC 6337 §5.3: sendonly from sendrecv; inactive when we only receive (the peer holds us).
        let sending = negotiated?.direction.sends ?? true
        return try makeOffer(direction: sending ? .sendonly : .inactive)
    }

    /// Builds a resume re-offer: `a=sendrecv`.
    /// - Throws: ``SDPNegotiationError/offerPending`` if an offer is already outstanding.
    package mutating func makeResumeOffer() throws(SDPNegotiationError) -> SDPSessionDescription {
        try makeOffer(direction: .sendrecv)
    }

    /// Forgets an outstanding offer that the peer rejected (e.g. a re-INVITE answered 488): the
    /// media before it stays in force.
    package mutating func rollbackOffer() {
        guard case let .offerSent(_, previous) = state else { return }
        state = previous.map { .stable($0) } ?? .idle
    }

    // MARK: Answers

    /// Accepts the peer's answer to our outstanding offer.
    /// - Returns: The negotiated media, now in force.
    /// - Throws: ``SDPNegotiationError``; the offer stays outstanding so the caller can decide.
    package mutating func receiveAnswer(_ answer: SDPSessionDescription) throws(SDPNegotiationError) -> SDPNegotiatedMedia {
        guard case let .offerSent(offer, _) = state else { throw .noOfferPending }
        guard answer.media.count == offer.media.count, let ours = offer.media.first, let theirs = answer.media.first else {
            throw .answerMismatch("\(answer.media.count) media sections for \(offer.media.count) offered")
        }
        guard theirs.media == ours.media else { throw .answerMismatch("media \(theirs.media) for \(ours.media)") }
        guard theirs.port != 0 else { throw .streamRejected }
        guard theirs.proto.uppercased() == ours.proto.uppercased() else {
            throw .answerMismatch("transport \(theirs.proto) for \(ours.proto)")
        }
        // Every answered format must be one we offered (compared by encoding, as PTs may be renumbered).
        var chosen: (codec: MediaCodec, pt: UInt8)?
        var telephoneEvents: [(pt: UInt8, rate: Int)] = []
        var redundancy: [(pt: UInt8, parameters: SDPFormatParameters?)] = []
        for format in theirs.formats {
            guard let pt = UInt8(format), let map = theirs.rtpMap(for: pt) ?? ours.rtpMap(for: pt) else {
                throw .answerMismatch("format \(format) has no rtpmap")
            }
            let offered = ours.formats.compactMap { UInt8($0) }.compactMap { ours.rtpMap(for: $0) }
            guard offered.contains(where: { Self.sameEncoding($0, map) }) else {
                throw .answerMismatch("format \(map.value) was not offered")
            }
            if map.encodingName.lowercased() == "telephone-event" {
                telephoneEvents.append((pt, map.clockRate))
            } else if Self.isRED(map) {
                redundancy.append((pt, theirs.formatParameters(for: format) ?? ours.formatParameters(for: format)))
            } else if chosen == nil, let codec = supportedCodec(map, parameters: theirs.formatParameters(for: format)) {
                chosen = (codec, pt)
            }
        }
        guard let chosen else { throw .noCommonCodec }

        var localKey: SRTPKeyMaterial?
        var remoteKey: SRTPKeyMaterial?
        var chosenCrypto: SDESCryptoAttribute?
        var dtls: (association: SDPNegotiatedDTLS, ice: SDPNegotiatedICE?)?
        if ours.isDTLSSRTP {
            dtls = try acceptDTLSAnswer(theirs, in: answer)
        } else if ours.isSecureRTP {
            let offered = ours.cryptoAttributes
            guard let crypto = theirs.cryptoAttributes.first else { throw .noCommonCryptoSuite }
            guard let mine = offered.first(where: { $0.tag == crypto.tag && $0.suite == crypto.suite }) else {
                throw .answerMismatch("crypto tag \(crypto.tag) \(crypto.suite) was not offered")
            }
            localKey = mine.keyMaterial
            remoteKey = crypto.keyMaterial
            chosenCrypto = mine
        }
        let offeredDirection = offer.direction(of: ours)
        let answeredDirection = answer.direction(of: theirs)
        let direction = SDPDirection(
            sends: offeredDirection.sends && answeredDirection.receives,
            receives: offeredDirection.receives && answeredDirection.sends)
        var media = try negotiatedMedia(
            codec: chosen.codec, payloadType: chosen.pt,
            telephoneEvents: telephoneEvents, remote: answer, remoteMedia: theirs,
            rtcpMux: ours.rtcpMux && theirs.rtcpMux, localKey: localKey,
            remoteKey: remoteKey, direction: direction)
        media.dtls = dtls?.association
        media.ice = dtls?.ice
        media.redPayloadType = Self.redundancy(around: chosen.pt, codec: chosen.codec, in: redundancy, offered: capabilities.redundancy)
        media.peerBandwidthLimit = Self.bandwidthLimit(theirs, session: answer, ptime: media.ptime)
        // Levels go both ways under the ID the answer kept (RFC 8285 §6), if it kept the extension.
        if ours.audioLevelExtensionID != nil { media.audioLevelExtensionID = theirs.audioLevelExtensionID }
        media.peerWantsVoIPMetrics = theirs.listsXRFormat(SDPMediaDescription.voipMetricsXRFormat)
        if let chosenCrypto { localCryptos = [chosenCrypto] }
        state = .stable(media)
        return media
    }

    /// Answers the peer's offer (initial or re-offer) wanting `direction`, using the system's
    /// secure generator for keys.
    /// - Returns: The answer to send and the negotiated media, now in force.
    /// - Throws: ``SDPNegotiationError``, whose ``SDPNegotiationError/sipStatusCode`` is the
    ///   response to reject the offer with; the state is unchanged.
    package mutating func receiveOffer(
        _ offer: SDPSessionDescription, direction: SDPDirection = .sendrecv
    )
        throws(SDPNegotiationError) -> (answer: SDPSessionDescription, media: SDPNegotiatedMedia)
    {
        var generator = SecureRandomNumberGenerator()
        return try receiveOffer(offer, direction: direction, using: &generator)
    }

    /// Answers the peer's offer wanting `direction`, drawing a new SRTP key from `generator` if needed.
    /// - Throws: ``SDPNegotiationError``; the state is unchanged.
    package mutating func receiveOffer(
        _ offer: SDPSessionDescription, direction: SDPDirection = .sendrecv,
        using generator: inout some RandomNumberGenerator
    )
        throws(SDPNegotiationError) -> (answer: SDPSessionDescription, media: SDPNegotiatedMedia)
    {
        if case .offerSent = state { throw .offerPending }
        var answerMedia: [SDPMediaDescription] = []
        var result: AudioAnswer?
        var firstError: SDPNegotiationError?
        for section in offer.media {
            if result == nil, section.media == "audio", section.port != 0, section.isRTP {
                do throws(SDPNegotiationError) {
                    let answer = try answerAudio(section, in: offer, direction: direction, using: &generator)
                    answerMedia.append(answer.section)
                    result = answer
                    continue
                } catch {
                    firstError = firstError ?? error
                }
            }
            answerMedia.append(SDPMediaDescription(media: section.media, port: 0, proto: section.proto, formats: section.formats))
        }
        guard let result else { throw firstError ?? .noAudioStream }
        if let crypto = result.crypto { localCryptos = [crypto] }
        var sessionAttributes: [SDPAttribute] = []
        if let dtls = result.dtls {
            dtlsIdentity = dtls.identity
            sessionAttributes = dtls.sessionAttributes
            // Sections we refuse keep their mid, so BUNDLE-aware peers match the answer to the offer.
            for index in answerMedia.indices where answerMedia[index].port == 0 {
                if let mid = offer.media[index].mid { answerMedia[index].attributes.append(SDPAttribute(name: "mid", value: mid)) }
            }
        }
        let answer = stamp(
            SDPSessionDescription(
                origin: origin, connection: capabilities.connection, attributes: sessionAttributes, media: answerMedia))
        state = .stable(result.media)
        return (answer, result.media)
    }

    /// Our answer to the audio section we take.
    private struct AudioAnswer {
        /// The answering media section.
        var section: SDPMediaDescription
        /// What it negotiates.
        var media: SDPNegotiatedMedia
        /// Our `a=crypto` line (SDES).
        var crypto: SDESCryptoAttribute?
        /// The DTLS-SRTP parts (DTLS).
        var dtls: DTLSAnswer?
    }

    private func answerAudio(
        _ offered: SDPMediaDescription, in offer: SDPSessionDescription, direction: SDPDirection,
        using generator: inout some RandomNumberGenerator
    )
        throws(SDPNegotiationError) -> AudioAnswer
    {
        // Encryption first: a transport we refuse makes the codecs moot.
        var crypto: (mine: SDESCryptoAttribute, theirs: SDESCryptoAttribute)?
        var dtls: DTLSAnswer?
        switch try keyExchange(answering: offered) {
        case let .sdes(suites):
            guard let theirs = offered.cryptoAttributes.first(where: { suites.contains($0.suite) }) else {
                throw .noCommonCryptoSuite
            }
            // Keep our key across re-offers that keep the suite; a fresh one otherwise.
            let key =
                localCryptos.first(where: { $0.suite == theirs.suite })?.keyMaterial
                ?? .random(for: theirs.suite, using: &generator)
            crypto = (SDESCryptoAttribute(tag: theirs.tag, keyMaterial: key), theirs)
        case .dtls:
            dtls = try answerDTLS(offered, in: offer, restartCredentials: Self.freshICECredentials(using: &generator))
        case .plain:
            break
        }

        var chosen: (codec: MediaCodec, pt: UInt8, map: SDPRTPMap)?
        var telephoneEvents: [(pt: UInt8, rate: Int)] = []
        var redundancy: [(pt: UInt8, parameters: SDPFormatParameters?)] = []
        for format in offered.formats {
            guard let pt = UInt8(format), let map = offered.rtpMap(for: pt) else { continue }
            if map.encodingName.lowercased() == "telephone-event" {
                telephoneEvents.append((pt, map.clockRate))
            } else if Self.isRED(map) {
                redundancy.append((pt, offered.formatParameters(for: format)))
            } else if chosen == nil, let codec = supportedCodec(map, parameters: offered.formatParameters(for: format)) {
                chosen = (codec, pt, map)
            }
        }
        guard let chosen else { throw .noCommonCodec }

        let ourDirection = offer.direction(of: offered).answer(wanting: direction)
        let rtcpMux = dtls != nil || (capabilities.rtcpMux && offered.rtcpMux)
        var media = try negotiatedMedia(
            codec: chosen.codec, payloadType: chosen.pt, telephoneEvents: telephoneEvents,
            remote: offer, remoteMedia: offered, rtcpMux: rtcpMux,
            localKey: crypto?.mine.keyMaterial, remoteKey: crypto?.theirs.keyMaterial,
            direction: ourDirection)
        media.dtls = dtls?.association
        media.ice = dtls?.ice
        media.peerBandwidthLimit = Self.bandwidthLimit(offered, session: offer, ptime: media.ptime)
        var formats = [String(chosen.pt)]
        var attributes: [SDPAttribute] = [
            .rtpmap(
                SDPRTPMap(
                    payloadType: chosen.pt, encodingName: chosen.map.encodingName,
                    clockRate: chosen.map.clockRate, channels: chosen.map.channels))
        ]
        if case .opus = chosen.codec, let settings = localOpusSettings {
            attributes.append(.fmtp(Self.opusFormatParameters(settings, payloadType: chosen.pt)))
        }
        // RED around the chosen codec: after it, we take the peer's RED but do not ask for it
        // (a browser sends RED only to an answer that lists it first); before it, we ask.
        if let red = Self.redundancy(around: chosen.pt, codec: chosen.codec, in: redundancy, offered: capabilities.redundancy) {
            media.redPayloadType = red
            if capabilities.requestsRedundancy { formats.insert(String(red), at: 0) } else { formats.append(String(red)) }
            attributes.append(.rtpmap(SDPRTPMap(payloadType: red, encodingName: "red", clockRate: 48_000, channels: 2)))
            attributes.append(.fmtp(Self.redFormatParameters(red, wrapping: chosen.pt)))
        }
        if let te = media.telephoneEventPayloadType {
            formats.append(String(te))
            let rate = telephoneEvents.first { $0.pt == te }?.rate ?? chosen.codec.rtpClockRate
            attributes.append(.rtpmap(SDPRTPMap(payloadType: te, encodingName: "telephone-event", clockRate: rate)))
            attributes.append(.fmtp(SDPFormatParameters(format: String(te), parameters: "0-16")))
        }
        if let dtls {
            attributes += [.ptime(capabilities.ptime), .direction(ourDirection)] + dtls.attributes
        } else {
            attributes += commonAttributes(direction: ourDirection, rtcpMux: rtcpMux)
        }
        if let crypto { attributes.append(.crypto(crypto.mine)) }
        // RFC 6464 levels (a conference room reads who talks from them): accepted with the
        // offer's ID (RFC 8285 §6), read in the peer's packets and sent in ours; no direction is
        // written, as browsers write none.
        if let id = offered.audioLevelExtensionID {
            attributes.append(SDPAttribute(name: "extmap", value: "\(id) \(SDPMediaDescription.audioLevelExtensionURI)"))
            media.audioLevelExtensionID = id
        }
        // VoIP Metrics both ways when the offer asks for them (RFC 3611 §5.2).
        if offered.listsXRFormat(SDPMediaDescription.voipMetricsXRFormat) {
            attributes.append(Self.voipMetricsAttribute)
            media.peerWantsVoIPMetrics = true
        }
        let answer = SDPMediaDescription(
            media: "audio", port: capabilities.port, proto: offered.proto,
            formats: formats, attributes: attributes)
        return AudioAnswer(section: answer, media: media, crypto: crypto?.mine, dtls: dtls)
    }

    // MARK: Helpers

    /// The telephone-event format to use with `codec`: the one at the codec's clock rate
    /// (RFC 4733 §2.1), else, for Opus, `telephone-event/8000`, which baresip, Asterisk and
    /// FreeSWITCH pair with Opus. Events are then timed on the audio clock, as those peers do.
    static func telephoneEventPayloadType(for codec: MediaCodec, in offered: [(pt: UInt8, rate: Int)]) -> UInt8? {
        if let exact = offered.first(where: { $0.rate == codec.rtpClockRate }) { return exact.pt }
        if case .opus = codec { return offered.first { $0.rate == 8_000 }?.pt }
        return nil
    }

    /// `a=rtcp-xr:voip-metrics`: the XR blocks we would like in the peer's reports (RFC 3611 §5.1).
    static let voipMetricsAttribute = SDPAttribute(name: "rtcp-xr", value: SDPMediaDescription.voipMetricsXRFormat)

    private static func isRED(_ map: SDPRTPMap) -> Bool {
        map.encodingName.lowercased() == "red" && map.clockRate == 48_000
    }

    /// RED's `fmtp` (RFC 2198 §5): the payload type of each block, here the codec's twice
    /// (a redundant copy and the primary), as browsers write it.
    static func redFormatParameters(_ pt: UInt8, wrapping codec: UInt8) -> SDPFormatParameters {
        SDPFormatParameters(format: String(pt), parameters: "\(codec)/\(codec)")
    }

    /// The RED payload type to use around `codec` (payload type `pt`): one of `formats` whose
    /// `fmtp` names only that payload type (no fmtp: the codec is assumed, RFC 2198 leaves it
    /// open); nil when we do not do RED or the codec is not Opus.
    static func redundancy(
        around pt: UInt8, codec: MediaCodec, in formats: [(pt: UInt8, parameters: SDPFormatParameters?)], offered: Bool
    ) -> UInt8? {
        guard offered, case .opus = codec else { return nil }
        return formats.first { format in
            let blocks = (format.parameters?.parameters ?? "").split(separator: "/").map { $0.filter { $0 != " " } }
            guard !blocks.isEmpty else { return true }
            return blocks.allSatisfy { UInt8($0) == pt }
        }?.pt
    }

    /// The ID our offers map RFC 6464's audio level to (the one browsers use).
    static let audioLevelExtensionID: UInt8 = 1

    private func negotiatedMedia(
        codec: MediaCodec, payloadType: UInt8, telephoneEvents: [(pt: UInt8, rate: Int)],
        remote: SDPSessionDescription, remoteMedia: SDPMediaDescription, rtcpMux: Bool,
        localKey: SRTPKeyMaterial?, remoteKey: SRTPKeyMaterial?,
        direction: SDPDirection
    ) throws(SDPNegotiationError) -> SDPNegotiatedMedia {
        guard let connection = remote.connection(of: remoteMedia) else { throw .answerMismatch("no connection address") }
        let rtp = SDPTransportAddress(host: connection.address, port: remoteMedia.port)
        var rtcp = rtp
        if !rtcpMux {
            if let attribute = remoteMedia.rtcp {
                rtcp = SDPTransportAddress(host: attribute.connection?.address ?? connection.address, port: attribute.port)
            } else {
                rtcp.port = rtp.port == UInt16.max ? rtp.port : rtp.port + 1
            }
        }
        let te = capabilities.telephoneEvents ? Self.telephoneEventPayloadType(for: codec, in: telephoneEvents) : nil
        let ptime = remoteMedia.ptime.flatMap { MediaCodec.supportedPtimes.contains($0) ? $0 : nil } ?? capabilities.ptime
        return SDPNegotiatedMedia(
            codec: codec, payloadType: payloadType, telephoneEventPayloadType: te, ptime: ptime,
            remoteRTP: rtp, remoteRTCP: rtcp, rtcpMux: rtcpMux, localKey: localKey,
            remoteKey: remoteKey, direction: direction)
    }

    private func commonAttributes(direction: SDPDirection, rtcpMux: Bool? = nil) -> [SDPAttribute] {
        var attributes: [SDPAttribute] = [.ptime(capabilities.ptime), .direction(direction)]
        if rtcpMux ?? capabilities.rtcpMux { attributes.append(.rtcpMux) }
        if let rtcpPort = capabilities.rtcpPort { attributes.append(.rtcp(SDPRTCPAttribute(port: rtcpPort))) }
        return attributes
    }

    private var localOpusSettings: OpusSettings? {
        for codec in capabilities.codecs { if case let .opus(settings) = codec { return settings } }
        return nil
    }

    /// Our codec for a peer's rtpmap, Opus settings adjusted to the peer's receive preferences:
    /// the bitrates capped by `maxaveragebitrate` (a low cap raises the complexity), FEC off only if the peer says `useinbandfec=0`.
    private func supportedCodec(_ map: SDPRTPMap, parameters: SDPFormatParameters?) -> MediaCodec? {
        for codec in capabilities.codecs
        where codec.name.lowercased() == map.encodingName.lowercased()
            && codec.rtpClockRate == map.clockRate
        {
            guard case var .opus(settings) = codec else { return codec }
            if let cap = Self.bitrateCap(parameters) {
                settings = settings.limited(toPeerMaximum: cap)
            }
            if parameters?["useinbandfec"] == "0" { settings.fec = false }
            return .opus(settings)
        }
        return nil
    }

    /// The peer's Opus `maxaveragebitrate`, if it states one in the valid range (RFC 7587).
    static func bitrateCap(_ parameters: SDPFormatParameters?) -> Int? {
        guard let cap = parameters?["maxaveragebitrate"].flatMap({ Int($0) }), (6_000...510_000).contains(cap) else { return nil }
        return cap
    }

    /// The peer's limit for the whole stream (payload bits per second): its media section's
    /// `b=TIAS` (RFC 3890), else its `b=AS` (kilobits, RFC 4566) less 40 bytes of IP, UDP and
    /// RTP headers per packet, else the same lines at session level. Nil when none is stated
    /// or one is out of range (a hostile 0 must not silence the stream, so under 6 kbps is ignored).
    static func bandwidthLimit(_ media: SDPMediaDescription, session: SDPSessionDescription, ptime: Int) -> Int? {
        for lines in [media.bandwidths, session.bandwidths] {
            let headers = 40 * 8 * 1_000 / max(1, ptime)
            var limit: Int?
            if let tias = lines.first(where: { $0.type.uppercased() == "TIAS" }) {
                limit = Int(min(tias.bandwidth, 10_000_000_000))
            } else if let kbps = lines.first(where: { $0.type.uppercased() == "AS" }) {
                limit = Int(min(kbps.bandwidth, 10_000_000)) * 1_000 - headers
            }
            if let limit { return limit >= 6_000 ? limit : nil }
        }
        return nil
    }

    private static func sameEncoding(_ a: SDPRTPMap, _ b: SDPRTPMap) -> Bool {
        a.encodingName.lowercased() == b.encodingName.lowercased() && a.clockRate == b.clockRate
    }

    static func rtpMap(_ codec: MediaCodec, payloadType: UInt8) -> SDPRTPMap {
        SDPRTPMap(
            payloadType: payloadType, encodingName: codec.name, clockRate: codec.rtpClockRate,
            channels: codec.channels > 1 ? codec.channels : nil)
    }

    /// The Opus `fmtp` we announce (RFC 7587): what we want to receive.
    static func opusFormatParameters(_ settings: OpusSettings, payloadType: UInt8) -> SDPFormatParameters {
        SDPFormatParameters(
            format: String(payloadType),
            pairs: [
                ("useinbandfec", settings.fec ? "1" : "0"),
                ("usedtx", settings.dtx ? "1" : "0"),
                ("maxaveragebitrate", String(settings.maxAverageBitrate)),
                ("stereo", "0"),
            ])
    }

    /// We now receive media at `address` (our host changed networks): later offers and answers
    /// carry it in `c=` and `o=` (with the version bumped, since the description changed). The
    /// SRTP keys and the session id stay.
    package mutating func moveLocalAddress(to address: String) {
        capabilities.address = address
        origin.address = address
        origin.addressType = capabilities.addressType
    }

    /// Gives `description` our origin, bumping the version if it differs from the last one sent.
    private mutating func stamp(_ description: SDPSessionDescription) -> SDPSessionDescription {
        var description = description
        description.origin = origin
        if let lastLocal, lastLocal != description {
            origin.sessionVersion += 1
            description.origin = origin
        }
        lastLocal = description
        return description
    }
}
