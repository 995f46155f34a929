import CLibSRTP
import VoiceBytes
import VoiceSupport
import VoiceMediaTypes

/// One SRTP/SRTCP crypto context pair over libsrtp: packets sent are protected with the
/// outbound keys, packets received are checked and decrypted with the inbound keys, whatever
/// their SSRC (a libsrtp session with an `ssrc_any_outbound` stream and one with an
/// `ssrc_any_inbound` stream).
///
/// The protect/unprotect calls work in place in caller-owned buffers and allocate nothing
/// (before the peer's first packet authenticates, a failing packet may get a second try with a
/// new libsrtp context: see ``unprotectRTP(_:length:)``).
///
/// Threading: not thread-safe. Use one session from one thread at a time (the media send and
/// receive paths of a stream normally share one queue); the type is deliberately not `Sendable`.
package final class SRTPSession {
    /// Session options.
    package struct Configuration: Hashable, Sendable {
        /// Replay window in packets, 64...32767 (libsrtp's limits). RFC 3711 requires at least 64.
        package var replayWindowSize: Int
        /// Accept re-sent outbound packets with an already used sequence number (libsrtp
        /// `allow_repeat_tx`). Safe only if the payload is identical.
        package var allowsRepeatedTransmission: Bool

        /// Creates a configuration; the default window is 128 packets.
        package init(replayWindowSize: Int = 128, allowsRepeatedTransmission: Bool = false) {
            self.replayWindowSize = replayWindowSize
            self.allowsRepeatedTransmission = allowsRepeatedTransmission
        }

        /// Window sizes libsrtp accepts.
        package static let replayWindowRange = 64...0x7FFF
    }

    /// Most bytes libsrtp appends to any packet (`SRTP_MAX_TRAILER_LEN`): size buffers with
    /// `packet length + maxTrailerLength` and they fit every suite and MKI.
    package static let maxTrailerLength = Int(SRTP_MAX_TRAILER_LEN)

    /// Suite used for packets sent.
    package let outboundSuite: SRTPSuite
    /// Suite used for packets received.
    package let inboundSuite: SRTPSuite
    /// Configuration the session was created with.
    package let configuration: Configuration
    /// Packet counters.
    package private(set) var stats = SRTPSessionStats()

    /// libsrtp session with the `ssrc_any_outbound` stream (libsrtp allows one wildcard per session).
    private let sender: srtp_t
    /// libsrtp session with the `ssrc_any_inbound` stream (replaced once if the peer's first
    /// packets need a rollover counter of 1: ``unprotectRTP(_:length:)``).
    private var receiver: srtp_t
    private let inboundKeys: SRTPKeyMaterial
    /// Until a packet authenticates, a copy of each arriving one (for a second try) and how many
    /// second tries are left; nil afterwards.
    private var rolloverProbe: (copy: UnsafeMutableRawBufferPointer, triesLeft: Int)?
    /// Packets before the first authenticated one that get a second try with rollover counter 1.
    static let rolloverTries = 256
    private let outboundMKI: UInt32
    private let inboundMKI: UInt32
    private let rtpTrailer: Int
    private let rtcpTrailer: Int
    private let minimumSRTPLength: Int
    private let minimumSRTCPLength: Int

    private static let rtpHeaderLength = 12
    private static let rtcpHeaderLength = 8

    /// Creates a session.
    /// - Parameters:
    ///   - outbound: keys for packets this side sends.
    ///   - inbound: keys for packets the peer sends.
    ///   - configuration: replay window and retransmission policy.
    /// - Throws: ``SRTPError/unsupportedSuite`` if libsrtp lacks a suite, ``SRTPError/badParam``
    ///   for a window outside ``Configuration/replayWindowRange``, or libsrtp's error.
    package init(
        outbound: SRTPKeyMaterial,
        inbound: SRTPKeyMaterial,
        configuration: Configuration = Configuration()
    ) throws(SRTPError) {
        try SRTPLibrary.initialize()
        guard outbound.suite.isAvailable, inbound.suite.isAvailable else { throw .unsupportedSuite }
        guard Configuration.replayWindowRange.contains(configuration.replayWindowSize) else { throw .badParam }

        var sender: srtp_t?
        try SRTPError.check(
            SRTPLibrary.createContext(
                &sender, direction: ssrc_any_outbound, keys: outbound, configuration: configuration))
        guard let sender else { throw .initFail }
        var receiver: srtp_t?
        let status = SRTPLibrary.createContext(
            &receiver, direction: ssrc_any_inbound, keys: inbound, configuration: configuration)
        guard status == srtp_err_status_ok, let receiver else {
            srtp_dealloc(sender)
            throw status == srtp_err_status_ok ? .initFail : SRTPError(status: status)
        }

        self.sender = sender
        self.receiver = receiver
        inboundKeys = inbound
        rolloverProbe = (UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048 + Self.maxTrailerLength, alignment: 16), Self.rolloverTries)
        outboundSuite = outbound.suite
        inboundSuite = inbound.suite
        self.configuration = configuration
        outboundMKI = outbound.mki == nil ? 0 : 1
        inboundMKI = inbound.mki == nil ? 0 : 1
        let outboundMKILength = outbound.mki?.length ?? 0
        let inboundMKILength = inbound.mki?.length ?? 0
        rtpTrailer = outbound.suite.rtpTrailerLength(mkiLength: outboundMKILength)
        rtcpTrailer = outbound.suite.rtcpTrailerLength(mkiLength: outboundMKILength)
        minimumSRTPLength = Self.rtpHeaderLength + inbound.suite.rtpTrailerLength(mkiLength: inboundMKILength)
        minimumSRTCPLength = Self.rtcpHeaderLength + inbound.suite.rtcpTrailerLength(mkiLength: inboundMKILength)
    }

    deinit {
        srtp_dealloc(sender)
        srtp_dealloc(receiver)
        rolloverProbe?.copy.deallocate()
    }

    /// Bytes ``protectRTP(_:length:)`` appends for this session's outbound keys.
    package var rtpTrailerLength: Int { rtpTrailer }
    /// Bytes ``protectRTCP(_:length:)`` appends for this session's outbound keys.
    package var rtcpTrailerLength: Int { rtcpTrailer }

    /// Encrypts and authenticates the RTP packet in `buffer[0..<length]` in place.
    /// - Parameters:
    ///   - buffer: holds the packet and at least ``rtpTrailerLength`` free bytes after it.
    ///   - length: the RTP packet's length (header included).
    /// - Returns: the SRTP packet's length.
    /// - Throws: ``SRTPError/packetTooShort`` or ``SRTPError/bufferTooSmall`` (checked before
    ///   libsrtp runs), or libsrtp's error. Counted in ``SRTPSessionStats/protectFailures``.
    package func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        do {
            var (base, size) = try Self.outboundPacket(buffer, length, header: Self.rtpHeaderLength, trailer: rtpTrailer)
            try SRTPError.check(srtp_protect_mki(sender, base, &size, outboundMKI, 0))
            stats.rtpPacketsProtected += 1
            return Int(size)
        } catch {
            stats.protectFailures += 1
            throw error
        }
    }

    /// Authenticates, replay-checks and decrypts the SRTP packet in `buffer[0..<length]` in place.
    /// - Returns: the RTP packet's length. On failure no length is returned and the buffer's
    ///   contents must be discarded.
    /// - Throws: ``SRTPError/authFail``, ``SRTPError/replayFail``, ``SRTPError/replayOld``,
    ///   ``SRTPError/packetTooShort``, ``SRTPError/bufferTooSmall`` or another libsrtp error;
    ///   each is counted in ``stats``.
    package func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        do throws(SRTPError) {
            var (base, size) = try Self.inboundPacket(buffer, length, minimum: minimumSRTPLength)
            let copied = keepForSecondTry(base, length)
            do throws(SRTPError) {
                try SRTPError.check(srtp_unprotect_mki(receiver, base, &size, inboundMKI))
            } catch {
                guard error == .authFail, copied, let recovered = unprotectWithRolloverOne(into: base, length) else { throw error }
                size = recovered
            }
            endSecondTries()
            stats.rtpPacketsUnprotected += 1
            return Int(size)
        } catch {
            countRejection(error)
            throw error
        }
    }

    // MARK: - A sender first heard after it wrapped

    // SRTP does not signal the rollover counter: a receiver starts at 0, so a sender whose
    // sequence number wrapped before its first packet reached us (the first packets lost, or
    // sent before we were ready, from a sender starting near 65535) would fail authentication
    // for the whole call. Until one packet authenticates, a packet that fails is tried once more
    // with rollover counter 1 for its SSRC; one success and the context with it stays.

    /// Copies the packet before libsrtp touches it (a failed AEAD decryption leaves the buffer
    /// changed), while no packet has authenticated and tries are left.
    private func keepForSecondTry(_ base: UnsafeMutableRawPointer, _ length: Int) -> Bool {
        guard let probe = rolloverProbe, probe.triesLeft > 0, length <= probe.copy.count, let copy = probe.copy.baseAddress else { return false }
        copy.copyMemory(from: base, byteCount: length)
        return true
    }

    private func unprotectWithRolloverOne(into base: UnsafeMutableRawPointer, _ length: Int) -> Int32? {
        guard var probe = rolloverProbe, let copy = probe.copy.baseAddress else { return nil }
        probe.triesLeft -= 1
        rolloverProbe = probe
        var reader = ByteReader(UnsafeRawBufferPointer(start: copy, count: length))
        guard (try? reader.skip(8)) != nil, let ssrc = try? reader.readUInt32() else { return nil }
        var context: srtp_t?
        guard SRTPLibrary.createInboundContext(&context, ssrc: ssrc, rollover: 1, keys: inboundKeys, configuration: configuration)
            == srtp_err_status_ok, let context
        else { return nil }
        base.copyMemory(from: copy, byteCount: length)
        var size = Int32(length)
        guard srtp_unprotect_mki(context, base, &size, inboundMKI) == srtp_err_status_ok else {
            srtp_dealloc(context)
            return nil
        }
        srtp_dealloc(receiver)
        receiver = context
        stats.rolloverRecoveries += 1
        return size
    }

    private func endSecondTries() {
        guard let probe = rolloverProbe else { return }
        probe.copy.deallocate()
        rolloverProbe = nil
    }

    /// Encrypts and authenticates the RTCP compound packet in `buffer[0..<length]` in place.
    /// - Parameters:
    ///   - buffer: holds the packet and at least ``rtcpTrailerLength`` free bytes after it.
    ///   - length: the RTCP packet's length.
    /// - Returns: the SRTCP packet's length.
    /// - Throws: ``SRTPError/packetTooShort``, ``SRTPError/bufferTooSmall`` or libsrtp's error;
    ///   counted in ``SRTPSessionStats/protectFailures``.
    package func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        do {
            var (base, size) = try Self.outboundPacket(buffer, length, header: Self.rtcpHeaderLength, trailer: rtcpTrailer)
            try SRTPError.check(srtp_protect_rtcp_mki(sender, base, &size, outboundMKI, 0))
            stats.rtcpPacketsProtected += 1
            return Int(size)
        } catch {
            stats.protectFailures += 1
            throw error
        }
    }

    /// Authenticates, replay-checks and decrypts the SRTCP packet in `buffer[0..<length]` in place.
    /// - Returns: the RTCP packet's length. On failure the buffer's contents must be discarded.
    /// - Throws: as ``unprotectRTP(_:length:)``; each failure is counted in ``stats``.
    package func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        do {
            var (base, size) = try Self.inboundPacket(buffer, length, minimum: minimumSRTCPLength)
            try SRTPError.check(srtp_unprotect_rtcp_mki(receiver, base, &size, inboundMKI))
            stats.rtcpPacketsUnprotected += 1
            return Int(size)
        } catch {
            countRejection(error)
            throw error
        }
    }

    /// Checks an outbound packet has its fixed header and room for `trailer` more bytes.
    @inline(__always)
    private static func outboundPacket(
        _ buffer: UnsafeMutableRawBufferPointer, _ length: Int, header: Int, trailer: Int
    ) throws(SRTPError) -> (UnsafeMutableRawPointer, Int32) {
        guard length >= header else { throw .packetTooShort }
        guard length <= buffer.count - trailer, let base = buffer.baseAddress, let size = Int32(exactly: length) else {
            throw .bufferTooSmall
        }
        return (base, size)
    }

    /// Checks an inbound packet is at least `minimum` bytes and lies within `buffer`.
    @inline(__always)
    private static func inboundPacket(
        _ buffer: UnsafeMutableRawBufferPointer, _ length: Int, minimum: Int
    ) throws(SRTPError) -> (UnsafeMutableRawPointer, Int32) {
        guard length >= minimum else { throw .packetTooShort }
        guard length <= buffer.count, let base = buffer.baseAddress, let size = Int32(exactly: length) else {
            throw .bufferTooSmall
        }
        return (base, size)
    }

    /// Counts a refused inbound packet under its reason.
    private func countRejection(_ error: SRTPError) {
        if error == .authFail {
            stats.authenticationFailures += 1
        } else if error.isReplay {
            stats.replayFailures += 1
        } else {
            stats.otherFailures += 1
        }
    }
}

@available(*, unavailable)
extension SRTPSession: Sendable {}
