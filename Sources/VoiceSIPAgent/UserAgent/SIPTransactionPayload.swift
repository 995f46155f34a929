import VoiceSIP
import VoiceSupport
/// What the user agent's transaction table stores per message: the parsed message, its bytes as
/// sent (retransmissions resend them unchanged), and the peer: the destination of a request we
/// send, or the source of a request we received (where its responses go, RFC 3261 §18.2.2).
struct SIPTransactionPayload: Sendable, Equatable {
    var message: SIPMessage
    var bytes: [UInt8]
    var peer: SIPTransportEndpoint
    var serverName: String?

    init(_ message: SIPMessage, peer: SIPTransportEndpoint, serverName: String? = nil) {
        self.message = message
        self.bytes = message.serialized()
        self.peer = peer
        self.serverName = serverName
    }
}
