import Foundation

/// An event baresip pushed on the control connection (`{"event":true,"type":"CALL_ESTABLISHED",...}`).
package struct BaresipControlEvent: Hashable, Sendable, CustomStringConvertible {
    /// The event type (`CALL_INCOMING`, `CALL_ESTABLISHED`, `CALL_DTMF_START`, ...).
    package var type: BaresipEventType
    /// Every string member of the event object (`class`, `accountaor`, `direction`, `peeruri`,
    /// `id`, `param`, ...); nested objects such as `rtcp_stats` are left out.
    package var fields: [String: String]
    /// When the event was read from the connection.
    package var receivedAt: ContinuousClock.Instant

    /// Creates an event.
    package init(type: BaresipEventType, fields: [String: String], receivedAt: ContinuousClock.Instant = .now) {
        self.type = type
        self.fields = fields
        self.receivedAt = receivedAt
    }

    /// `param`: the peer URI for call state events, the key for `CALL_DTMF_START`, the reason for
    /// `CALL_CLOSED`, `offer`/`answer` for the SDP events.
    package var param: String? { fields["param"] }
    /// `id`: the call's SIP Call-ID (absent on the first `CALL_LOCAL_SDP` of an outgoing call).
    package var callID: String? { fields["id"] }
    /// `peeruri`: the remote party.
    package var peerURI: String? { fields["peeruri"] }
    /// `direction`: `incoming` or `outgoing`.
    package var direction: String? { fields["direction"] }
    /// `accountaor`: the local account.
    package var accountAOR: String? { fields["accountaor"] }

    package var description: String {
        "\(type.rawValue)" + (param.map { "(\($0))" } ?? "") + (callID.map { " id=\($0)" } ?? "")
    }
}

/// A baresip 1.0.0 user agent event type, as `ctrl_tcp` spells it in `"type"`.
package struct BaresipEventType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The name, e.g. `CALL_ESTABLISHED`.
    package var rawValue: String

    /// Wraps a name.
    package init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a name literal.
    package init(stringLiteral value: String) { self.rawValue = value }

    /// An incoming call rings (answer mode `manual`); answer with ``BaresipControl/accept(timeout:)``.
    package static let callIncoming: Self = "CALL_INCOMING"
    /// An outgoing call got 180 Ringing.
    package static let callRinging: Self = "CALL_RINGING"
    /// 183 with early media.
    package static let callProgress: Self = "CALL_PROGRESS"
    /// The call is answered (200 OK sent or received).
    package static let callEstablished: Self = "CALL_ESTABLISHED"
    /// The call ended; `param` is the reason (`Connection reset by peer` after a BYE from the peer).
    package static let callClosed: Self = "CALL_CLOSED"
    /// An RFC 4733 digit started; `param` is the key (`1`, `#`, ...).
    package static let callDTMFStart: Self = "CALL_DTMF_START"
    /// The digit ended (no `param`).
    package static let callDTMFEnd: Self = "CALL_DTMF_END"
    /// An SDP offer or answer was received (`param` = `offer`/`answer`); a re-INVITE shows up as
    /// `offer` after `CALL_ESTABLISHED` on the side that receives it.
    package static let callRemoteSDP: Self = "CALL_REMOTE_SDP"
    /// An SDP offer or answer was sent.
    package static let callLocalSDP: Self = "CALL_LOCAL_SDP"
    /// Media encryption is up; `param` is `0,audio,<suite>`.
    package static let callMediaEncryption: Self = "CALL_MENC"
    /// The first RTP packet arrived.
    package static let callRTPEstablished: Self = "CALL_RTPESTAB"
    /// A periodic RTCP report (nested `rtcp_stats`, not kept in ``BaresipControlEvent/fields``).
    package static let callRTCP: Self = "CALL_RTCP"
    /// The peer asked to transfer the call (REFER).
    package static let callTransfer: Self = "CALL_TRANSFER"
}
