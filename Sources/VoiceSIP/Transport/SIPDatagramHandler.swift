import NIOCore

/// Reads SIP datagrams off a UDP channel, parses each as one message (RFC 3261 §18.3) and
/// reports it to the transport layer. Datagrams of only CR/LF are keep-alives and are dropped.
final class SIPDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let parser: SIPMessageParser
    private let deliver: @Sendable (SIPTransportEvent) -> Void

    init(parser: SIPMessageParser, deliver: @escaping @Sendable (SIPTransportEvent) -> Void) {
        self.parser = parser
        self.deliver = deliver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let source = SIPTransportEndpoint(transport: .udp, address: envelope.remoteAddress)
        let bytes = Array(envelope.data.readableBytesView)
        if bytes.allSatisfy({ $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) { return }
        do {
            deliver(.received(try parser.parse(datagram: bytes), source: source))
        } catch {
            deliver(.malformed(error, bytes: bytes, source: source))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // ICMP port unreachable and similar surface here on a connected socket; the listening
        // socket stays open and the transactions time out or retransmit.
    }
}
