/// Produces the RFC 4733 packet sequence for one event, one packet per tick (§2.5.1).
///
/// The first packet has the marker bit; every packet carries the event's start timestamp;
/// durations grow by one packet interval per tick up to the event duration; then the final
/// duration is sent three times with the E bit. A pure value type: the caller ticks it once
/// per packet interval and assigns RTP sequence numbers. Allocation-free.
package struct TelephoneEventSender: Hashable, Sendable {
    /// One packet to send.
    package struct Packet: Hashable, Sendable {
        /// The RTP marker bit (set on the first packet of the event).
        package var marker: Bool
        /// The RTP timestamp: the event's start, in every packet.
        package var timestamp: UInt32
        /// The payload block.
        package var event: TelephoneEvent

        /// Creates a packet description.
        package init(marker: Bool, timestamp: UInt32, event: TelephoneEvent) {
            self.marker = marker
            self.timestamp = timestamp
            self.event = event
        }
    }

    /// Number of packets sent with the E bit (§2.5.1.4 recommends three).
    package static let endPacketCount = 3

    /// The event code.
    package let event: UInt8
    /// RTP timestamp of the event's start.
    package let startTimestamp: UInt32
    /// Timestamp units between packets (e.g. 400 for 50 ms at 8 kHz).
    package let packetInterval: UInt16
    /// Total event duration in timestamp units.
    package let duration: UInt16
    /// Volume in -dBm0.
    package let volume: UInt8

    @usableFromInline var sent = 0
    @usableFromInline var endsSent = 0

    /// Creates a sender for one event.
    ///
    /// - Throws: ``TelephoneEventError/invalidTiming`` if `packetInterval` or `duration` is 0,
    ///   ``TelephoneEventError/volumeOutOfRange`` if `volume` exceeds 63.
    package init(
        event: UInt8, startTimestamp: UInt32, packetInterval: UInt16, duration: UInt16, volume: UInt8 = 10
    ) throws(TelephoneEventError) {
        guard packetInterval > 0, duration > 0 else { throw .invalidTiming }
        guard volume <= 63 else { throw .volumeOutOfRange }
        self.event = event
        self.startTimestamp = startTimestamp
        self.packetInterval = packetInterval
        self.duration = duration
        self.volume = volume
    }

    /// Creates a sender for a DTMF digit ("0"-"9", "*", "#", "A"-"D").
    ///
    /// - Throws: ``TelephoneEventError/unknownDigit`` for other characters, or as the designated initializer.
    package init(
        digit: Character, startTimestamp: UInt32, packetInterval: UInt16, duration: UInt16, volume: UInt8 = 10
    ) throws(TelephoneEventError) {
        guard let code = TelephoneEvent.dtmfEvent(for: digit) else { throw .unknownDigit }
        try self.init(
            event: code, startTimestamp: startTimestamp, packetInterval: packetInterval,
            duration: duration, volume: volume)
    }

    /// True once every packet, end packets included, has been produced.
    @inlinable package var isFinished: Bool { endsSent >= Self.endPacketCount }

    /// The packet for this tick, or nil when the event is finished.
    @inlinable package mutating func tick() -> Packet? {
        guard !isFinished else { return nil }
        let reached = Int(packetInterval) * sent
        if reached < Int(duration) {
            sent += 1
            let current = UInt16(min(Int(packetInterval) * sent, Int(duration)))
            return Packet(
                marker: sent == 1, timestamp: startTimestamp,
                event: TelephoneEvent(event: event, isEnd: false, volume: volume, duration: current))
        }
        endsSent += 1
        return Packet(
            marker: false, timestamp: startTimestamp,
            event: TelephoneEvent(event: event, isEnd: true, volume: volume, duration: duration))
    }
}
