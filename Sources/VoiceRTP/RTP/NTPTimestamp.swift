import VoiceSupport
/// A 64-bit NTP timestamp (RFC 5905): seconds since 1 January 1900 in the high 32 bits,
/// the binary fraction of a second in the low 32 bits. Used by RTCP sender reports.
package struct NTPTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The 64-bit wire value.
    package var rawValue: UInt64

    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970).
    package static let unixEpochOffset: UInt64 = 2_208_988_800

    /// Creates a timestamp from its 64-bit wire value.
    @inlinable package init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Creates a timestamp from whole seconds and a 32-bit binary fraction.
    @inlinable package init(seconds: UInt32, fraction: UInt32) {
        self.rawValue = UInt64(seconds) << 32 | UInt64(fraction)
    }

    /// Creates a timestamp from a time measured from the NTP epoch (1 January 1900 00:00 UTC).
    /// Negative times clamp to zero; seconds wrap into the next NTP era after 2036.
    @inlinable package init(sinceEpoch time: MediaTime) {
        let ns = UInt64(max(0, time.nanoseconds))
        let seconds = ns / 1_000_000_000
        let fraction = ((ns % 1_000_000_000) << 32 + 500_000_000) / 1_000_000_000
        self.rawValue = (seconds << 32) &+ fraction
    }

    /// Creates a timestamp from wall-clock seconds since 1900 (fractional part kept to the nanosecond).
    @inlinable package init(secondsSince1900: Double) {
        self.init(sinceEpoch: .seconds(secondsSince1900))
    }

    /// Creates a timestamp from wall-clock Unix time (seconds since 1970).
    @inlinable package init(unixSeconds: Double) {
        self.init(secondsSince1900: unixSeconds + Double(Self.unixEpochOffset))
    }

    /// Whole seconds since 1900 (within the current NTP era).
    @inlinable package var seconds: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 32) }
    /// The binary fraction of a second, in units of 2⁻³² s.
    @inlinable package var fraction: UInt32 { UInt32(truncatingIfNeeded: rawValue) }

    /// Time since the NTP epoch, to the nearest nanosecond.
    @inlinable package var sinceEpoch: MediaTime {
        let ns = (UInt64(fraction) * 1_000_000_000 + (1 << 31)) >> 32
        return MediaTime(nanoseconds: Int64(seconds) * 1_000_000_000 + Int64(ns))
    }

    /// Seconds since 1900 as a floating-point value.
    @inlinable package var secondsSince1900: Double { Double(seconds) + Double(fraction) / 4_294_967_296 }

    /// The middle 32 bits (16.16 fixed-point seconds) used by LSR and DLSR (RFC 3550 §6.4.1).
    @inlinable package var compact: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }

    /// Converts a duration to compact 16.16 fixed-point seconds (for DLSR), rounding to nearest
    /// and saturating at `UInt32.max`; negative durations give 0.
    @inlinable package static func compact(duration: MediaTime) -> UInt32 {
        let ns = UInt64(max(0, duration.nanoseconds))
        guard ns < (1 << 47) else { return UInt32.max }
        return UInt32(clamping: (ns << 16 + 500_000_000) / 1_000_000_000)
    }

    /// Converts a compact 16.16 fixed-point value to a duration, to the nearest nanosecond.
    @inlinable package static func duration(compact: UInt32) -> MediaTime {
        MediaTime(nanoseconds: Int64((UInt64(compact) * 1_000_000_000 + (1 << 15)) >> 16))
    }

    /// Orders timestamps by wire value (within one NTP era).
    @inlinable package static func < (a: NTPTimestamp, b: NTPTimestamp) -> Bool { a.rawValue < b.rawValue }

    /// A human-readable explanation.
    /// The seconds and fraction fields, for logs.
    package var description: String { "NTP \(seconds).\(fraction)" }
}
