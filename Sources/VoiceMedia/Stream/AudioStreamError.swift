import VoiceICE
import VoiceMediaPath
import VoiceRTP
/// Why a stream could not be created or started.
package enum AudioStreamError: Error, Sendable, CustomStringConvertible {
    /// A socket could not be opened or bound.
    case socket(SocketError)
    /// The codec could not be set up.
    case codec(MediaCodecError)
    /// SRTP could not be set up (bad key, unsupported suite).
    case srtp(SRTPError)
    /// The audio device refused to start.
    case audioDevice(AudioDeviceError)
    /// The configuration is inconsistent (e.g. unsupported ptime or device format).
    case invalidConfiguration(String)
    /// The stream was already started or is stopped.
    case invalidState(String)

    package var description: String {
        switch self {
        case .socket(let e): return "media socket: \(e)"
        case .codec(let e): return "codec: \(e)"
        case .srtp(let e): return "SRTP: \(e)"
        case .audioDevice(let e): return "\(e)"
        case .invalidConfiguration(let s): return "invalid media configuration: \(s)"
        case .invalidState(let s): return "invalid stream state: \(s)"
        }
    }
}

/// Something a running stream reports, delivered on the media thread (handlers must return quickly).
package enum AudioStreamEvent: Sendable, Equatable {
    /// The audio device reported an xrun or failed.
    case audioDevice(AudioDeviceEvent)
    /// The peer sent an RTCP BYE.
    case remoteBye
    /// A telephone-event (RFC 4733) ended: the digit or event code and its duration in RTP units.
    case telephoneEvent(code: UInt8, duration: Int)
    /// The WebRTC media path is up: ICE selected `path` and DTLS keyed SRTP (`security`).
    case mediaPathConnected(path: String, security: String)
    /// The WebRTC media path failed: the call has no audio.
    case mediaPathFailed(MediaPathFailure)
    /// The peer stopped answering consent checks (RFC 7675): nothing is sent until it answers again.
    case consentLost
    /// Consent came back.
    case consentRestored
    /// This many events found the stream's event queue full (a handler that did not return
    /// for thousands of events) and were lost; reported once the handler runs again.
    case eventsLost(UInt64)
    /// The new TURN allocation asked for with ``AudioStream/reallocateRelay(_:)`` number
    /// `request` gave these relayed candidates (one per family; none: no allocation). The
    /// stream hands them to that call's completion; the handler does not see it.
    case relayReallocated(request: Int, candidates: [ICECandidate])
}
