import VoiceRTP

/// libsrtp as a stream's packet protection.
extension SRTPSession: PacketProtection {
    package var maximumTrailerLength: Int { Self.maxTrailerLength }

    package func protect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int {
        do throws(SRTPError) { return try protectRTP(buffer, length: length) } catch { throw PacketProtectionError(error) }
    }

    package func unprotect(rtp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int {
        do throws(SRTPError) { return try unprotectRTP(buffer, length: length) } catch { throw PacketProtectionError(error) }
    }

    package func protect(rtcp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int {
        do throws(SRTPError) { return try protectRTCP(buffer, length: length) } catch { throw PacketProtectionError(error) }
    }

    package func unprotect(rtcp buffer: UnsafeMutableRawBufferPointer, length: Int) throws(PacketProtectionError) -> Int {
        do throws(SRTPError) { return try unprotectRTCP(buffer, length: length) } catch { throw PacketProtectionError(error) }
    }
}

extension PacketProtectionError {
    /// What a libsrtp failure means to the stream: a forgery, a replay, or something else.
    init(_ error: SRTPError) {
        if error == .authFail {
            self = .authentication
        } else if error == .replayFail || error == .replayOld {
            self = .replay
        } else {
            self = .invalid
        }
    }
}
