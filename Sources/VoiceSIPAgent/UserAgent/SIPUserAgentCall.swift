import VoiceICE
import NIOCore
import VoiceSupport
import VoiceSIP

/// One call the user agent runs: its session machine, the local media port its SDP carries,
/// and the session's running timers.
struct SIPUserAgentCall {
    var session: SIPInviteSession
    /// The call's media ports, held until its media stream takes them.
    var media: ReservedMediaPort
    var mediaPort: UInt16 { media.port }
    /// The TURN relay allocated from the media port, until the call's media takes it over.
    var relay: TURNRelay?
    var timers: [SIPInviteSessionTimer: Scheduled<Void>] = [:]
    /// Where the INVITE of an incoming call came from: 2xx retransmissions go there once the
    /// INVITE server transaction has ended (RFC 3261 §13.3.1.4). Over connections, the one the
    /// peer's latest request came on (it follows a peer that reconnected).
    var invitePeer: SIPTransportEndpoint?
    /// Where the call's requests were sent (the next hops; connections we may reopen).
    var requestPeers: Set<SIPTransportEndpoint> = []
    /// The dialog-routing key registered for it (Call-ID and our tag).
    var routingKey: String
    /// Who waits for the final status of each INFO sent through ``SIPUserAgent/sendInfo(_:contentType:body:headers:)``,
    /// by the CSeq number its result reports.
    var infoWaiters: [UInt32: EventLoopPromise<Int>] = [:]
    /// For an incoming call not yet answered: the source address it counts against in
    /// ``SIPUserAgentLimits/maximumRingingCallsPerSource``.
    var ringingSource: String?

    /// Removes the INFOs still waiting for their status, for the caller to fail once the call
    /// is gone (outside any access to the call table: failing runs their callbacks).
    mutating func takeInfoWaiters() -> [EventLoopPromise<Int>] {
        defer { infoWaiters = [:] }
        return Array(infoWaiters.values)
    }
}
